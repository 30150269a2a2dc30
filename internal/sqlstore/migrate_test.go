package sqlstore_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sqlstore"
)

// openUnmigrated opens a fresh store of the backend without migrating it.
func openUnmigrated(t *testing.T, b paydtest.Backend) *sqlstore.Store {
	t.Helper()
	s, err := sqlstore.Open(t.Context(), b.DatabaseURL(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// deliveryDoc is a delivery document as the service wrote it before
// migration 0007: compact JSON of these fields, in this order.
type deliveryDoc struct {
	ID               string                    `json:"id"`
	EventID          string                    `json:"event_id"`
	EndpointID       string                    `json:"endpoint_id"`
	ShopID           string                    `json:"shop_id"`
	Test             bool                      `json:"test"`
	State            payd.WebhookDeliveryState `json:"state"`
	Attempts         int                       `json:"attempts"`
	LastResponseCode *int                      `json:"last_response_code,omitempty"`
	LastAttemptAt    *time.Time                `json:"last_attempt_at,omitempty"`
	NextAttemptAt    *time.Time                `json:"next_attempt_at,omitempty"`
	CreatedAt        time.Time                 `json:"created_at"`
}

// TestMigration0007Backfill fills the schema of migration 0006 with
// deliveries and events as the job-per-delivery version left them, then
// migrates: each delivery's state must come from its document, pending
// ones due at their creation, and each event's counters from its
// deliveries, its summary as it was.
func TestMigration0007Backfill(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := t.Context()
		s := openUnmigrated(t, b)
		if _, err := s.MigrateTo(ctx, 6); err != nil {
			t.Fatalf("migrate to 0006: %v", err)
		}
		ids := payd.NewIDGen()
		base := time.Now().UTC().Truncate(time.Microsecond).Add(-time.Hour)
		shop := ids.New(payd.PrefixShop, base)

		type event struct {
			id       string
			status   payd.EventDeliveryStatus
			attempts int
		}
		mixed := event{ids.New(payd.PrefixEvent, base), payd.DeliveryPending, 12}
		done := event{ids.New(payd.PrefixEvent, base), payd.DeliverySucceeded, 2}
		waiting := event{ids.New(payd.PrefixEvent, base), payd.DeliveryPending, 0}
		none := event{ids.New(payd.PrefixEvent, base), payd.DeliveryNone, 0}
		for _, e := range []event{mixed, done, waiting, none} {
			_, err := s.DB().ExecContext(ctx, `INSERT INTO events (id, shop_id, merchant_id, test, type, object_id, created_at, body,
				delivery_status, delivery_attempts) VALUES ($1, $2, 'mer_1', $3, 'payment.succeeded', 'pay_1', $4, '{}', $5, $6)`,
				e.id, shop, true, base.UnixMicro(), e.status, e.attempts)
			if err != nil {
				t.Fatalf("insert old event: %v", err)
			}
		}
		type delivery struct {
			event string
			state payd.WebhookDeliveryState
			// retry: the delivery waits for a retry, its job scheduled.
			retry bool
		}
		list := []delivery{
			{mixed.id, payd.DeliveryStateSucceeded, false},
			{mixed.id, payd.DeliveryStateFailed, false},
			{mixed.id, payd.DeliveryStatePending, true},
			{mixed.id, payd.DeliveryStateSkipped, false},
			{done.id, payd.DeliveryStateSucceeded, false},
			{done.id, payd.DeliveryStateSucceeded, false},
			{waiting.id, payd.DeliveryStatePending, false},
			{waiting.id, payd.DeliveryStatePending, true},
		}
		// State and Status are scanned into the domain's types, as the
		// store does.
		type row struct {
			ID    string
			State payd.WebhookDeliveryState
			DueAt int64
		}
		var wantRows []row
		for i, d := range list {
			created := base.Add(time.Duration(i) * time.Minute)
			doc := deliveryDoc{ID: ids.New(payd.PrefixDelivery, created), EventID: d.event, EndpointID: "whe_1", ShopID: shop, Test: true,
				State: d.state, CreatedAt: created}
			if d.state != payd.DeliveryStatePending || d.retry {
				code, next := 500, created.Add(time.Hour)
				doc.Attempts, doc.LastResponseCode, doc.LastAttemptAt = 1, &code, &created
				if d.retry {
					doc.NextAttemptAt = &next
				}
			}
			raw, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.DB().ExecContext(ctx, `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, created_at, doc) VALUES ($1, $2, $3, $4, $5)`,
				doc.ID, doc.EventID, doc.EndpointID, created.UnixMicro(), string(raw))
			if err != nil {
				t.Fatalf("insert old delivery: %v", err)
			}
			wantRows = append(wantRows, row{doc.ID, d.state, created.UnixMicro()})
		}

		applied, err := s.MigrateTo(ctx, 7)
		if err != nil {
			t.Fatalf("migrate: %v", err)
		}
		if d := cmp.Diff([]string{"0007_delivery_queue.sql"}, applied); d != "" {
			t.Errorf("migrations applied mismatch (-want +got):\n%s", d)
		}

		var gotRows []row
		rows, err := s.DB().QueryContext(ctx, `SELECT id, state, due_at FROM webhook_deliveries ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.ID, &r.State, &r.DueAt); err != nil {
				t.Fatal(err)
			}
			gotRows = append(gotRows, r)
		}
		rows.Close()
		if d := cmp.Diff(wantRows, gotRows); d != "" {
			t.Errorf("deliveries after the migration mismatch (-want +got):\n%s", d)
		}

		type counters struct {
			ID                               string
			Status                           payd.EventDeliveryStatus
			Attempts, Total, Pending, Failed int
		}
		want := []counters{
			{mixed.id, payd.DeliveryPending, 12, 4, 1, 2},
			{done.id, payd.DeliverySucceeded, 2, 2, 0, 0},
			{waiting.id, payd.DeliveryPending, 0, 2, 2, 0},
			{none.id, payd.DeliveryNone, 0, 0, 0, 0},
		}
		var got []counters
		rows, err = s.DB().QueryContext(ctx, `SELECT id, delivery_status, delivery_attempts, deliveries_total, deliveries_pending,
			deliveries_failed FROM events ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var c counters
			if err := rows.Scan(&c.ID, &c.Status, &c.Attempts, &c.Total, &c.Pending, &c.Failed); err != nil {
				t.Fatal(err)
			}
			got = append(got, c)
		}
		rows.Close()
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("events after the migration mismatch (-want +got):\n%s", d)
		}

		// The queue takes over at once: every pending delivery is due (to
		// this build's store, which reads its own schema).
		if _, err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		var claimed []string
		err = s.Tx(ctx, func(tx payd.Tx) error {
			works, err := tx.WebhookDeliveryClaim(ctx, &payd.WebhookDeliveryClaimParams{Now: base.Add(time.Hour),
				LeaseUntil: base.Add(2 * time.Hour), Limit: 100, PerEndpoint: 100})
			for _, w := range works {
				claimed = append(claimed, w.Delivery.ID)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		var pending []string
		for _, r := range wantRows {
			if r.State == payd.DeliveryStatePending {
				pending = append(pending, r.ID)
			}
		}
		slices.Sort(claimed)
		if d := cmp.Diff(pending, claimed); d != "" {
			t.Errorf("claimed after the migration mismatch (-want +got):\n%s", d)
		}
	})
}

// A database that ran the migrations after 0006 before 0006 existed (a
// branch's build) gets 0006 when it is migrated, and is not ready before.
func TestMigrateAppliesAnEarlierMissingMigration(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := t.Context()
		s := openUnmigrated(t, b)
		if _, err := s.MigrateTo(ctx, 5); err != nil {
			t.Fatal(err)
		}
		var later []int
		for v := 7; v <= sqlstore.LatestVersion(); v++ {
			later = append(later, v)
		}
		if got, err := s.MigrateOnly(ctx, later...); err != nil || len(got) < 2 {
			t.Fatalf("applied %v, %v; want every migration after 0006", got, err)
		}
		err := s.Ready(ctx)
		if err == nil || !strings.Contains(err.Error(), "0006_provider_routes.sql") {
			t.Fatalf("Ready with 0006 missing: %v; want it named", err)
		}
		got, err := s.Migrate(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"0006_provider_routes.sql"}; !slices.Equal(got, want) {
			t.Fatalf("Migrate applied %v, want %v", got, want)
		}
		if err := s.Ready(ctx); err != nil {
			t.Fatalf("Ready after Migrate: %v", err)
		}
		if _, err := s.DB().ExecContext(ctx, `SELECT region FROM provider_routes`); err != nil {
			t.Fatalf("0006's table: %v", err)
		}
		if got, err := s.Migrate(ctx); err != nil || len(got) != 0 {
			t.Fatalf("second Migrate applied %v, %v; want nothing", got, err)
		}
	})
}

// A database migrated by a newer build is not served by this one.
func TestReadyRefusesAnUnknownMigration(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := t.Context()
		s := openUnmigrated(t, b)
		if _, err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DB().ExecContext(ctx, `INSERT INTO payd_migrations (version, name, applied_at) VALUES (9999, '9999_future.sql', 0)`); err != nil {
			t.Fatal(err)
		}
		if err := s.Ready(ctx); err == nil || !strings.Contains(err.Error(), "9999") {
			t.Fatalf("Ready with migration 9999 applied: %v; want it refused", err)
		}
	})
}

// Migration 0024 leaves room on the pages of payments and sandbox
// attempts on PostgreSQL; on SQLite, which has no such setting, it is
// applied with its statements dropped (TestSQLiteDDL).
func TestMigration0024Fillfactor(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := t.Context()
		s := openUnmigrated(t, b)
		applied, err := s.Migrate(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(applied, "0024_hot_updates.sql") {
			t.Fatalf("migrations applied: %v; want 0024_hot_updates.sql among them", applied)
		}
		if b.Name != "postgres" {
			return
		}
		for table, want := range map[string]string{"payments": "fillfactor=70", "sandbox_attempts": "fillfactor=85"} {
			row := s.DB().QueryRowContext(ctx, `SELECT COALESCE(array_to_string(reloptions, ','), '') FROM pg_class WHERE oid = $1::regclass`, table)
			var got string
			if err := row.Scan(&got); err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(strings.Split(got, ","), want) {
				t.Errorf("%s's storage parameters = %q, want %s among them", table, got, want)
			}
		}
	})
}
