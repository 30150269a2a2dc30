package api_test

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// A database of one PostgreSQL moves onto a Citus cluster as
// docs/operations.md says ("Moving a single PostgreSQL onto a cluster"):
// dumped, restored into the coordinator, distributed by the service's
// first start. Its objects were made before merchant keys, with
// identifiers that do not carry them, the hard case: after the move every
// object reads as it did, the ledger check holds, and the merchant's work
// on them (capture, a payment finished, a refund, webhook deliveries) goes
// on beside new objects, each statement in the merchant's shard group.
func TestMoveOntoCluster(t *testing.T) {
	t.Parallel()
	single, cluster := paydtest.MoveBackends(t)
	rc := newReceiver(t)
	pool := x509.NewCertPool()
	pool.AddCert(rc.srv.Certificate())
	opts := func() *paydtest.Options {
		return &paydtest.Options{Stage: payd.StageM5, WebhookAllowHosts: []string{"127.0.0.1"}, WebhookRootCAs: pool}
	}

	o := opts()
	o.IDs = payd.NewUnkeyedIDGen()
	before := paydtest.Start(t, single, o)
	shop := before.NewShop(payd.RegionRU, "")
	c := before.As(shop, false)
	endpoint := c.Post("/v1/webhook-endpoints", key(), map[string]any{
		"url": rc.srv.URL + "/hooks", "events": []string{"payment.succeeded", "refund.succeeded"},
	}).Expect(t, 201).JSON(t)["id"].(string)
	paid := paidPayment(t, c, "1000.00")
	refunded := refund(c, paid, "100.00", nil).Expect(t, 201).JSON(t)["id"].(string)
	waitRefund(t, c, refunded, "succeeded")
	disputed := paidPayment(t, c, "500.00")
	dispute := openDispute(t, c, disputed, map[string]any{"amount": rub("200.00"), "reason_code": "13.1",
		"evidence_deadline_seconds": 3 * 86400})["id"].(string)
	created := c.Post("/v1/payments", key(), newPayment("300.00", map[string]any{"capture": false})).Expect(t, 201).JSON(t)
	authorized := created["id"].(string)
	payer := before.Payer()
	payer.PayCard(payer.Choose(created["confirmation"].(map[string]any)["confirmation_url"].(string), "bank_card"), "123456")
	c.WaitStatus(authorized, "waiting_for_capture")
	pending := c.Post("/v1/payments", key(), newPayment("70.00", map[string]any{"confirmation": map[string]any{"type": "qr"}})).
		Expect(t, 201).JSON(t)["id"].(string)
	link := c.Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("150.00")})).Expect(t, 201).JSON(t)["id"].(string)
	// Two payment.succeeded and one refund.succeeded, delivered.
	paydtest.Eventually(t, "the deliveries", func() bool { return len(rc.deliveries()) == 3 })
	for _, id := range []string{shop.ID, endpoint, paid, refunded, dispute, authorized, pending, link} {
		if payd.KeyCarried(id) {
			t.Fatalf("%s carries a merchant key; the database to move should hold identifiers from before them", id)
		}
	}

	// Every object and list, as the merchant reads them; events are read
	// one by one too, deliveries included.
	paths := []string{"/v1/payments/" + paid, "/v1/payments/" + disputed, "/v1/payments/" + authorized, "/v1/payments/" + pending,
		"/v1/refunds/" + refunded, "/v1/disputes/" + dispute, "/v1/payment-links/" + link, "/v1/webhook-endpoints/" + endpoint,
		"/v1/payments", "/v1/refunds", "/v1/disputes", "/v1/payment-links", "/v1/webhook-endpoints", "/v1/events", "/v1/balance", "/v1/shop"}
	for _, ev := range c.Get("/v1/events").Expect(t, 200).JSON(t)["items"].([]any) {
		paths = append(paths, "/v1/events/"+ev.(map[string]any)["id"].(string))
	}
	read := func(c *paydtest.Client) map[string]string {
		out := map[string]string{}
		for _, p := range paths {
			out[p] = canonical(t, c.Get(p).Expect(t, 200).Body)
		}
		return out
	}
	var want map[string]string
	paydtest.Eventually(t, "the objects to settle", func() bool {
		a := read(c)
		want = read(c)
		return equal(a, want)
	})
	checkLedger(t, before)
	before.Close()

	o = opts()
	o.DatabaseURL, o.DataDir = paydtest.Move(t, before, cluster), before.DataDir
	after := paydtest.Start(t, cluster, o)
	c = after.As(shop, false)
	db := after.InspectDB()
	var distributed, directory int
	if err := db.QueryRow(`SELECT COUNT(*) FROM pg_dist_partition WHERE logicalrelid IN ('payments'::regclass, 'unkeyed_ids'::regclass)`).Scan(&distributed); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT COUNT(*) FROM unkeyed_ids`).Scan(&directory); err != nil {
		t.Fatal(err)
	}
	if distributed != 2 || directory == 0 {
		t.Fatalf("after the move: %d of payments and unkeyed_ids distributed, %d identifiers in the directory", distributed, directory)
	}
	got := read(c)
	for _, p := range paths {
		// Links to the service's pages name its address, which is the
		// new instance's.
		if strings.ReplaceAll(got[p], after.API.URL, before.API.URL) != want[p] {
			t.Errorf("GET %s after the move:\n%s\nbefore:\n%s", p, got[p], want[p])
		}
	}
	checkLedger(t, after)

	// Work goes on: on the objects made before, and on new ones, whose
	// identifiers carry the key.
	c.Post("/v1/payments/"+authorized+"/capture", key(), nil).Expect(t, 200)
	c.Post("/v1/test/payments/"+pending+"/simulate", key(), map[string]any{"outcome": "succeed"}).Expect(t, 202)
	c.WaitStatus(pending, "succeeded")
	second := refund(c, paid, "50.00", nil).Expect(t, 201).JSON(t)["id"].(string)
	waitRefund(t, c, second, "succeeded")
	fresh := paidPayment(t, c, "40.00")
	if !payd.KeyCarried(fresh) || !payd.KeyCarried(second) || payd.KeyOf(fresh) != payd.KeyOf(shop.MerchantID) {
		t.Fatalf("new identifiers %s, %s do not carry merchant %s's key", fresh, second, shop.MerchantID)
	}
	// Three more payment.succeeded and a refund.succeeded, to the
	// endpoint made before.
	paydtest.Eventually(t, "the deliveries after the move", func() bool { return len(rc.deliveries()) == 7 })
	if p := c.Get("/v1/payments/"+paid).Expect(t, 200).JSON(t); value(p, "refunded_amount") != "150.00" {
		t.Fatalf("payment after two refunds = %v", p)
	}
	checkLedger(t, after)
}

// canonical is body with its keys in one order, for comparing.
func canonical(t *testing.T, body []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", " ")
	enc.Encode(v)
	return b.String()
}
