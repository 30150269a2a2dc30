package main

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// seedBatch is how many payments the loader writes per statement (SQLite)
// or COPY (PostgreSQL); a SQLite transaction takes several.
const seedBatch = 500

// seedTable is the rows of one table in a batch of seeded rows.
type seedTable struct {
	name string
	cols []string
	rows [][]any
}

// seedRows are the rows of one batch of seeded payments: each payment, an
// event about it, for every tenth succeeded payment a refund, and the
// ledger's entries, postings and running totals of all of it.
type seedRows struct {
	payments, events, refunds [][]any
	entries, postings, totals [][]any
	settlements, attempts     [][]any
	payTotals                 [][]any
}

// tables are the batch's rows in the order they may be written: postings
// refer to their entries.
func (r *seedRows) tables() []seedTable {
	return []seedTable{{"payments", seedPaymentCols, r.payments}, {"events", seedEventCols, r.events},
		{"refunds", seedRefundCols, r.refunds}, {"ledger_entries", seedEntryCols, r.entries},
		{"ledger_postings", seedPostingCols, r.postings}, {"ledger_totals", seedTotalCols, r.totals},
		{"settlements", seedSettlementCols, r.settlements}, {"sandbox_attempts", seedAttemptCols, r.attempts},
		{"payment_day_totals", seedPayTotalCols, r.payTotals}}
}

var (
	seedPaymentCols = []string{"id", "shop_id", "test", "status", "order_id", "amount", "currency", "created_at",
		"provider", "provider_payment_id", "doc", "expires_at", "view", "method"}
	seedEventCols      = []string{"id", "shop_id", "merchant_id", "test", "type", "object_id", "created_at", "body", "delivery_status"}
	seedRefundCols     = []string{"id", "shop_id", "test", "payment_id", "status", "created_at", "doc"}
	seedEntryCols      = []string{"id", "at", "kind", "ref_type", "ref_id"}
	seedPostingCols    = []string{"entry_id", "seq", "account_key", "owner", "test", "currency", "bucket", "sub", "amount", "at"}
	seedTotalCols      = []string{"kind", "owner", "test", "currency", "bucket", "sub", "slot", "amount"}
	seedSettlementCols = []string{"id", "merchant_id", "test", "currency", "period_from", "period_to", "status", "created_at", "doc"}
	seedAttemptCols    = []string{"id", "provider", "reference", "payment_id", "created_at", "doc"}
	seedPayTotalCols   = []string{"shop_id", "test", "day", "status", "currency", "slot", "count", "amount"}
)

// seedPayTotalSlot is the slot of the payments' day totals the seeder
// writes (migration 0037): no server process has a negative id, so the
// seeded counts add to whatever the shop's days already held.
const seedPayTotalSlot = -1

// seedPayTotalKey names one of the seeded shop's day totals (RUB, test).
type seedPayTotalKey struct {
	day    int64
	status payd.PaymentStatus
}

// seedSlot names the running-total slot the seeder writes (docs/money.md,
// "Slots"): a key no posting of the service opens (theirs are named after
// their entries), so the seeded amounts add to whatever the shop's
// contour already held.
const seedSlot = "seed"

// seedTotalKey names one running total, as migration 0016 keys them:
// kind "account" (with sub) or "bucket" (sub empty).
type seedTotalKey struct {
	kind   string
	bucket ledger.Bucket
	owner  string
	sub    string
}

// seedDay is what the ledger of one day of the regional calendar holds for
// the shop's merchant: the sums its register is made of.
type seedDay struct {
	gross, fees, refunds int64
	entries              int
}

// seeder makes the rows of n payments of one shop, created a few seconds
// apart and ending an hour before the run, so that the run's own payments
// are the newest and a list walks through the seeded ones after them.
// Nine in ten succeeded with a card (fee fixed), the rest were declined;
// every payment has the event of its outcome, every tenth succeeded one a
// refund of a tenth of it. The rows are the service's own: documents and
// renderings are encoded from the domain types.
//
// The ledger gets what the service would have posted (docs/money.md): each
// capture, its release to available a day later (the tariff's default
// hold; at the latest at the end of the seeded period, so that no release
// is left for a job), each refund's creation from the payment's unreleased
// part and its success with the fee part returned, and a register for
// every finished day of the regional calendar, paid two days later (the
// last ones stay drafts, their money in available). The running totals of
// every account and bucket are written beside the postings, so that `payd
// admin ledger check` passes on the seeded database.
type seeder struct {
	shopID, merchantID string
	n                  int
	start, end         time.Time
	step               time.Duration
	ids                *payd.IDGen
	// totals are the running totals of the accounts without a sub-key and
	// of every bucket, written when the seeding ends; an account with a
	// sub-key (a payment's pending part, a refund in flight) has all its
	// postings in one batch, which writes its total.
	totals map[seedTotalKey]int64
	// days are the sums of each calendar day (Moscow, the calendar of
	// RUB) by date; closed is the last day whose register was decided.
	days      map[string]*seedDay
	closed    time.Time
	registers map[string]*payd.Settlement
	// Available is what the seeded ledger leaves in the merchant's
	// available account (test contour, RUB).
	Available int64
	// payTotals are the shop's payments by day and status: count, sum.
	payTotals map[seedPayTotalKey][2]int64
}

func newSeeder(shopID, merchantID string, n int) *seeder {
	end := time.Now().UTC().Add(-time.Hour).Truncate(time.Microsecond)
	step := 30 * 24 * time.Hour / time.Duration(max(n, 1))
	start := end.Add(-time.Duration(n) * step)
	return &seeder{shopID: shopID, merchantID: merchantID, n: n, start: start, end: end, step: step, ids: payd.NewIDGen(),
		totals: map[seedTotalKey]int64{}, payTotals: map[seedPayTotalKey][2]int64{}, days: map[string]*seedDay{}, registers: map[string]*payd.Settlement{},
		closed: seedDayOf(start).AddDate(0, 0, -1)}
}

// seedLoc is the calendar of the seeded payments' currency, RUB.
var seedLoc = payd.RegionOf(money.RUB).Location()

// seedDayOf is the start of t's calendar day.
func seedDayOf(t time.Time) time.Time {
	t = t.In(seedLoc)
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, seedLoc)
}

func (s *seeder) day(t time.Time) *seedDay {
	k := seedDayOf(t).Format(time.DateOnly)
	if s.days[k] == nil {
		s.days[k] = &seedDay{}
	}
	return s.days[k]
}

// post adds one entry's rows: the entry, its postings, and its amounts to
// the totals — sub-accounts' into subTotals (written with the batch), the
// others' into the seeder's.
func (s *seeder) post(rows *seedRows, subTotals map[seedTotalKey]int64, kind ledger.EntryKind, refType, refID string, at time.Time, moves ...[]ledger.Posting) {
	id := s.ids.New(payd.PrefixEntry, at)
	rows.entries = append(rows.entries, []any{id, micros(at), string(kind), refType, refID})
	seq := 0
	for _, m := range moves {
		for _, p := range m {
			a := p.Account
			rows.postings = append(rows.postings, []any{id, seq, a.Key(), a.Owner, a.Test, string(a.Currency), string(a.Bucket), a.Sub, p.Amount, micros(at)})
			seq++
			if a.Sub != "" {
				subTotals[seedTotalKey{"account", a.Bucket, a.Owner, a.Sub}] += p.Amount
			} else {
				s.totals[seedTotalKey{"account", a.Bucket, a.Owner, ""}] += p.Amount
			}
			s.totals[seedTotalKey{"bucket", a.Bucket, a.Owner, ""}] += p.Amount
			if a.Owner == s.merchantID && a.Bucket == ledger.Available {
				s.Available += p.Amount
			}
		}
	}
	s.day(at).entries++
}

func (s *seeder) merchant(b ledger.Bucket, sub string) ledger.Account {
	return ledger.Account{Owner: s.merchantID, Test: true, Currency: money.RUB, Bucket: b, Sub: sub}
}

func seedService(b ledger.Bucket) ledger.Account {
	return ledger.Account{Owner: ledger.ServiceOwner, Test: true, Currency: money.RUB, Bucket: b}
}

// batch returns the rows of payments from..to-1, with the registers of
// the days that ended before the last of them.
func (s *seeder) batch(from, to int) (*seedRows, error) {
	rows := &seedRows{}
	subTotals := map[seedTotalKey]int64{}
	for i := from; i < to; i++ {
		created := s.start.Add(time.Duration(i) * s.step).Truncate(time.Microsecond)
		at := created.Add(40 * time.Second)
		if err := s.closeDays(rows, seedDayOf(at).AddDate(0, 0, -1)); err != nil {
			return nil, err
		}
		p := &payd.Payment{ID: s.ids.New(payd.PrefixPayment, created), ShopID: s.shopID, MerchantID: s.merchantID,
			Region: payd.RegionRU, Test: true, Amount: money.New(int64(10000+i%500000), money.RUB),
			OrderID: fmt.Sprintf("seed-%d", i), CreatedAt: created, Description: "Order of two books and a lamp",
			Capture: true, Metadata: map[string]string{"cart": fmt.Sprint(i % 9973), "channel": "web"},
			ConfirmationType: payd.ConfirmationRedirect, ReturnURL: "https://shop.example.com/return",
			MerchantDisplayName: "Demo shop", StatementDescriptor: "DEMO SHOP", ExpiresAt: created.Add(24 * time.Hour),
			Provider: "sandbox", ProviderPaymentID: payd.PrefixSandboxAttempt + fmt.Sprintf("seed_%d", i),
			PaymentMethod: &payd.PaymentMethodData{Type: payd.MethodBankCard,
				Card: &payd.CardData{First6: "555555", Last4: fmt.Sprintf("%04d", i%10000), Brand: "MasterCard", IssuerCountry: "RU"}}}
		event := payd.EventPaymentSucceeded
		if i%10 == 9 {
			p.Status, p.CanceledAt = payd.PaymentCanceled, &at
			p.Cancellation = &payd.CancellationDetails{Party: payd.PartyPaymentNetwork, Reason: "insufficient_funds"}
			event = payd.EventPaymentCanceled
		} else {
			p.Status, p.CapturedAmount, p.CapturedAt, p.AuthorizedAt = payd.PaymentSucceeded, p.Amount.Minor, &at, &at
			p.FeeFixed, p.FeeAmount = true, p.Amount.Minor*155/10000
			p.Authorization = &payd.AuthorizationDetails{RRN: fmt.Sprintf("%012d", i), AuthCode: "A1B2C3"}
			if err := s.ledgerOf(rows, subTotals, p, at, i%100 < 10); err != nil {
				return nil, err
			}
		}
		// The sandbox bank's side of the payment: a refund asks the bank,
		// which answers through the notification path.
		a := &payd.SandboxAttempt{ID: p.ProviderPaymentID, Provider: p.Provider, PaymentID: p.ID, Reference: payd.AttemptReference(p.ID, 0),
			Method: payd.MethodBankCard, Amount: p.Amount.Minor, Currency: string(money.RUB), Capture: true, Region: payd.RegionRU,
			Outcome: payd.SandboxSucceed, State: "captured", ReturnURL: p.ReturnURL, CreatedAt: created,
			MerchantDisplayName: p.MerchantDisplayName, Description: p.Description}
		if p.Status == payd.PaymentCanceled {
			a.Outcome, a.DeclineCode, a.State = payd.SandboxDecline, "insufficient_funds", "declined"
		}
		doc, err := json.Marshal(a)
		if err != nil {
			return nil, err
		}
		rows.attempts = append(rows.attempts, []any{a.ID, a.Provider, a.Reference, p.ID, micros(created), string(doc)})
		doc, err = json.Marshal(p)
		if err != nil {
			return nil, err
		}
		view, err := json.Marshal(p.View(""))
		if err != nil {
			return nil, err
		}
		k := seedPayTotalKey{created.UnixMicro() / (24 * time.Hour).Microseconds(), p.Status}
		s.payTotals[k] = [2]int64{s.payTotals[k][0] + 1, s.payTotals[k][1] + p.Amount.Minor}
		rows.payments = append(rows.payments, []any{p.ID, s.shopID, true, string(p.Status), p.OrderID, p.Amount.Minor, "RUB",
			micros(created), p.Provider, p.ProviderPaymentID, string(doc), micros(p.ExpiresAt), string(view), p.KnownMethod()})
		evID := s.ids.New(payd.PrefixEvent, at)
		body, err := json.Marshal(map[string]any{"id": evID, "type": event, "created_at": at, "test": true,
			"data": map[string]any{"object_type": "payment", "object": json.RawMessage(view)}})
		if err != nil {
			return nil, err
		}
		rows.events = append(rows.events, []any{evID, s.shopID, s.merchantID, true, string(event), p.ID, micros(at), string(body), payd.DeliveryNone})
	}
	for _, k := range slices.SortedFunc(maps.Keys(subTotals), compareSeedTotals) {
		rows.totals = append(rows.totals, s.totalRow(k, subTotals[k]))
	}
	return rows, nil
}

func compareSeedTotals(a, b seedTotalKey) int {
	return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.owner, b.owner), cmp.Compare(a.bucket, b.bucket), cmp.Compare(a.sub, b.sub))
}

func (s *seeder) totalRow(k seedTotalKey, amount int64) []any {
	return []any{k.kind, k.owner, true, string(money.RUB), string(k.bucket), k.sub, seedSlot, amount}
}

// ledgerOf posts a succeeded payment's ledger, as the service does
// (ledger_post.go, refund.go): the capture with its fee; with refunded, a
// refund of a tenth taken from the payment's unreleased part, succeeded at
// once with its fee part returned; and the release of what is left a day
// later.
func (s *seeder) ledgerOf(rows *seedRows, subTotals map[seedTotalKey]int64, p *payd.Payment, at time.Time, refunded bool) error {
	pending := s.merchant(ledger.Pending, p.ID)
	available := s.merchant(ledger.Available, "")
	clearing, fees := seedService(ledger.ProviderClearing), seedService(ledger.Fees)
	s.post(rows, subTotals, ledger.KindPaymentCaptured, "payment", p.ID, at,
		ledger.Move(clearing, pending, p.CapturedAmount), ledger.Move(pending, fees, p.FeeAmount))
	d := s.day(at)
	d.gross += p.CapturedAmount
	d.fees += p.FeeAmount
	left := p.CapturedAmount - p.FeeAmount
	if refunded {
		r := &payd.Refund{ID: s.ids.New(payd.PrefixRefund, at), ShopID: s.shopID, MerchantID: s.merchantID, PaymentID: p.ID,
			Test: true, Status: payd.RefundSucceeded, Amount: money.New(p.Amount.Minor/10, money.RUB), OrderID: p.OrderID,
			CreatedAt: at, SucceededAt: &at, FromPending: p.Amount.Minor / 10}
		r.FeeReturned = payd.Tariff{}.FeeReturn(p.FeeAmount, 0, p.CapturedAmount, r.Amount.Minor)
		inFlight := s.merchant(ledger.PendingRefunds, r.ID)
		s.post(rows, subTotals, ledger.KindRefundCreated, "refund", r.ID, at, ledger.Move(pending, inFlight, r.FromPending))
		s.post(rows, subTotals, ledger.KindRefundSucceeded, "refund", r.ID, at,
			ledger.Move(inFlight, clearing, r.Amount.Minor), ledger.Move(fees, available, r.FeeReturned))
		d.refunds += r.Amount.Minor
		d.fees -= r.FeeReturned
		left -= r.FromPending
		p.RefundedAmount, p.FeeRefundedAmount = r.Amount.Minor, r.FeeReturned
		doc, err := json.Marshal(r)
		if err != nil {
			return err
		}
		rows.refunds = append(rows.refunds, []any{r.ID, s.shopID, true, p.ID, string(r.Status), micros(at), string(doc)})
	}
	released := at.Add(payd.Tariff{}.Hold())
	if released.After(s.end) {
		released = s.end
	}
	s.post(rows, subTotals, ledger.KindPendingReleased, "payment", p.ID, released, ledger.Move(pending, available, left))
	p.PendingReleased = true
	return nil
}

// closeDays decides the registers of every day up to and including last
// that is not decided yet; it is called once no later posting can fall on
// those days but the registers' own payments. A day's register is formed
// an hour after the day ends and paid at noon two days after it, each if
// that is before the end of the seeded period (the registers of the last
// days stay drafts, as the merchant's settlement delay keeps them).
func (s *seeder) closeDays(rows *seedRows, last time.Time) error {
	for d := s.closed.AddDate(0, 0, 1); !d.After(last); d = d.AddDate(0, 0, 1) {
		s.closed = d
		key := d.Format(time.DateOnly)
		if st := s.registers[d.AddDate(0, 0, -2).Format(time.DateOnly)]; st != nil {
			if noon := d.Add(12 * time.Hour).UTC(); !noon.After(s.end) {
				st.Status, st.PaidAt = payd.SettlementPaid, &noon
				s.post(rows, nil, ledger.KindSettlementPaid, "settlement", st.ID, noon,
					ledger.Move(s.merchant(ledger.Available, ""), seedService(ledger.Payouts), st.Net))
				if err := s.settlementRow(rows, st); err != nil {
					return err
				}
			}
		}
		day := s.days[key]
		formed := d.AddDate(0, 0, 1).Add(time.Hour).UTC()
		if day == nil || formed.After(s.end) {
			continue
		}
		st := &payd.Settlement{ID: s.ids.New(payd.PrefixSettlement, formed), MerchantID: s.merchantID, Test: true,
			Currency: money.RUB, PeriodFrom: key, PeriodTo: key, Status: payd.SettlementDraft,
			Gross: day.gross, Fees: day.fees, Refunds: day.refunds, SettlementDelayDays: 1, Entries: day.entries, CreatedAt: formed}
		st.Net = st.Gross - st.Fees - st.Refunds
		s.registers[key] = st
	}
	return nil
}

// settlementRow writes a register once it is decided: paid, or left a
// draft at the end.
func (s *seeder) settlementRow(rows *seedRows, st *payd.Settlement) error {
	doc, err := json.Marshal(st)
	if err != nil {
		return err
	}
	rows.settlements = append(rows.settlements, []any{st.ID, st.MerchantID, true, string(st.Currency), st.PeriodFrom, st.PeriodTo,
		string(st.Status), micros(st.CreatedAt), string(doc)})
	return nil
}

// finish closes the days up to the end of the seeded period and returns
// the rows left: the registers not paid, and the running totals of the
// accounts without a sub-key and of every bucket.
func (s *seeder) finish() (*seedRows, error) {
	rows := &seedRows{}
	if err := s.closeDays(rows, seedDayOf(s.end)); err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(s.registers)) {
		if st := s.registers[k]; st.Status == payd.SettlementDraft {
			if err := s.settlementRow(rows, st); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(s.totals), compareSeedTotals) {
		rows.totals = append(rows.totals, s.totalRow(k, s.totals[k]))
	}
	for _, k := range slices.SortedFunc(maps.Keys(s.payTotals), func(a, b seedPayTotalKey) int {
		return cmp.Or(cmp.Compare(a.day, b.day), cmp.Compare(a.status, b.status))
	}) {
		t := s.payTotals[k]
		rows.payTotals = append(rows.payTotals, []any{s.shopID, true, k.day, string(k.status), string(money.RUB), seedPayTotalSlot, t[0], t[1]})
	}
	return rows, nil
}

func micros(t time.Time) int64 { return t.UnixMicro() }

// restAfter is the seed from which the load's dirty pages are written out
// before the phases: 10^5 payments are a few hundred megabytes.
const restAfter = 100_000

// seeded is what a seeding left for the phases.
type seeded struct {
	// reads are up to keep payments spread over all of them, for the
	// reads; paid are as many succeeded ones, whose money is available,
	// for the refunds.
	reads, paid []string
	// available is what the merchant's available account holds after it.
	available int64
	seconds   float64
}

// seedPayments loads n payments (with their events, refunds, ledger and
// registers) into the shop of a running server's database: PostgreSQL by
// COPY, SQLite by multi-row INSERTs in large transactions beside the idle
// server (WAL lets it read meanwhile). It reports how long it took.
func seedPayments(ctx context.Context, database, pgURL, dataDir, shopID string, n, keep int, log io.Writer) (out *seeded, err error) {
	started := time.Now()
	var load func(rows *seedRows) error
	var merchantID string
	var finish func() error
	// columns are the columns each table has. An older build may lack
	// some (the running totals of migration 0016, the payment's method
	// column of 0018); the seed then writes what that build kept, so that
	// the benchmark can measure it too.
	var columns func(table string) (map[string]bool, error)
	have := seedSchema{}
	if database == "postgres" {
		conn, err := pgx.Connect(ctx, pgURL)
		if err != nil {
			return nil, err
		}
		defer conn.Close(context.Background())
		if err := conn.QueryRow(ctx, `SELECT merchant_id FROM shops WHERE id = $1`, shopID).Scan(&merchantID); err != nil {
			return nil, fmt.Errorf("seed: the shop: %w", err)
		}
		columns = func(table string) (map[string]bool, error) {
			return queryStringSet(ctx, func(q string, args ...any) (pgx.Rows, error) { return conn.Query(ctx, q, args...) },
				`SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`, table)
		}
		load = func(r *seedRows) error {
			for _, t := range r.tables() {
				if t = have.project(t); len(t.rows) == 0 {
					continue
				}
				if _, err := conn.CopyFrom(ctx, pgx.Identifier{t.name}, t.cols, pgx.CopyFromRows(t.rows)); err != nil {
					return fmt.Errorf("seed %s: %w", t.name, err)
				}
			}
			return nil
		}
		// The tables as an old shop's are: vacuumed and analyzed. Without
		// the vacuum, whatever autovacuum has not finished of the rows
		// just copied in (its first pass sets their hint bits and the
		// visibility map) runs during the phases, and its CPU is counted
		// as the database's, as if every operation cost more on a big
		// ledger. Without the statistics, the planner would be surprised
		// by an unanalyzed table.
		finish = func() error {
			var names []string
			for _, t := range (&seedRows{}).tables() {
				if len(have[t.name]) > 0 {
					names = append(names, t.name)
				}
			}
			if _, err := conn.Exec(ctx, `VACUUM (ANALYZE) `+strings.Join(names, ", ")); err != nil {
				return err
			}
			// The load and the vacuum left gigabytes of dirty pages, which
			// the checkpointer and the kernel would otherwise write out
			// during the first runs, slowing them down: the shop is
			// measured at rest. CHECKPOINT needs a superuser (or
			// pg_checkpoint); without one the runs say so by their spread.
			// A small seed (the tests') leaves too little to matter, and a
			// sync of the whole machine is not for them.
			if n < restAfter {
				return nil
			}
			if _, err := conn.Exec(ctx, `CHECKPOINT`); err != nil {
				fmt.Fprintf(log, "%s: no checkpoint after seeding: %v\n", database, err)
			}
			syncDisks()
			return nil
		}
	} else {
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "payd.db")+"?_pragma=busy_timeout(60000)&_pragma=synchronous(NORMAL)")
		if err != nil {
			return nil, err
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		if err := db.QueryRowContext(ctx, `SELECT merchant_id FROM shops WHERE id = $1`, shopID).Scan(&merchantID); err != nil {
			return nil, fmt.Errorf("seed: the shop: %w", err)
		}
		columns = func(table string) (map[string]bool, error) {
			rows, err := db.QueryContext(ctx, `SELECT name FROM pragma_table_info($1)`, table)
			if err != nil {
				return nil, err
			}
			defer rows.Close()
			return scanStringSet(rows)
		}
		var tx *sql.Tx
		inTx := 0
		insert := func(table string, cols []string, rows [][]any) error {
			var b strings.Builder
			b.WriteString("INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES ")
			args := make([]any, 0, len(rows)*len(cols))
			for i, r := range rows {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString("(")
				for j := range cols {
					if j > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, "$%d", len(args)+j+1)
				}
				b.WriteString(")")
				args = append(args, r...)
			}
			_, err := tx.ExecContext(ctx, b.String(), args...)
			return err
		}
		load = func(r *seedRows) error {
			if tx == nil {
				if tx, err = db.BeginTx(ctx, nil); err != nil {
					return err
				}
			}
			// SQLite binds at most 32,766 values a statement: 100 rows of
			// at most 14 columns stay far below.
			for _, t := range r.tables() {
				t = have.project(t)
				for len(t.rows) > 0 {
					k := min(len(t.rows), 100)
					if err := insert(t.name, t.cols, t.rows[:k]); err != nil {
						return fmt.Errorf("seed %s: %w", t.name, err)
					}
					t.rows = t.rows[k:]
				}
			}
			if inTx++; inTx == 40 {
				inTx = 0
				err := tx.Commit()
				tx = nil
				return err
			}
			return nil
		}
		finish = func() error {
			if tx != nil {
				if err := tx.Commit(); err != nil {
					return err
				}
			}
			if _, err := db.ExecContext(ctx, `ANALYZE`); err != nil {
				return err
			}
			// The load went through the write-ahead log; folding it into
			// the database now keeps that work out of the first phase.
			_, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
			return err
		}
	}
	for _, t := range (&seedRows{}).tables() {
		if have[t.name], err = columns(t.name); err != nil {
			return nil, fmt.Errorf("seed: the columns of %s: %w", t.name, err)
		}
	}
	s := newSeeder(shopID, merchantID, n)
	out = &seeded{}
	every := max(1, n/max(keep, 1))
	for from := 0; from < n; from += seedBatch {
		rows, err := s.batch(from, min(from+seedBatch, n))
		if err != nil {
			return nil, err
		}
		for i, p := range rows.payments {
			if (from+i)%every == 0 && len(out.reads) < keep {
				out.reads = append(out.reads, p[0].(string))
			}
			// Every payment after a canceled one (i%10 == 9) succeeded.
			if (from+i)%every == 0 && p[3] == string(payd.PaymentSucceeded) && len(out.paid) < keep {
				out.paid = append(out.paid, p[0].(string))
			}
		}
		if err := load(rows); err != nil {
			return nil, err
		}
	}
	rest, err := s.finish()
	if err != nil {
		return nil, err
	}
	if err := load(rest); err != nil {
		return nil, err
	}
	if err := finish(); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	out.available, out.seconds = s.Available, time.Since(started).Seconds()
	fmt.Fprintf(log, "%s: seeded %d payments with their ledger in %.1f s\n", database, n, out.seconds)
	return out, nil
}

// seedSchema is the columns of each table of the server's database.
type seedSchema map[string]map[string]bool

// project keeps the columns the table has; a table that does not exist
// gets no rows.
func (h seedSchema) project(t seedTable) seedTable {
	have := h[t.name]
	if len(have) == 0 {
		t.rows = nil
		return t
	}
	var keep []int
	for i, c := range t.cols {
		if have[c] {
			keep = append(keep, i)
		}
	}
	if len(keep) == len(t.cols) {
		return t
	}
	out := seedTable{name: t.name}
	for _, i := range keep {
		out.cols = append(out.cols, t.cols[i])
	}
	for _, r := range t.rows {
		row := make([]any, len(keep))
		for j, i := range keep {
			row[j] = r[i]
		}
		out.rows = append(out.rows, row)
	}
	return out
}

// queryStringSet reads one text column of a query into a set.
func queryStringSet(ctx context.Context, query func(q string, args ...any) (pgx.Rows, error), q string, args ...any) (map[string]bool, error) {
	rows, err := query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanStringSet(rows)
}

// scanStringSet reads the rows of one text column into a set; pgx's rows
// and database/sql's both serve.
func scanStringSet(rows interface {
	Next() bool
	Scan(...any) error
	Err() error
}) (map[string]bool, error) {
	out := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		out[c] = true
	}
	return out, rows.Err()
}
