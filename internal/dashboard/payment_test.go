package dashboard_test

import (
	"bytes"
	"crypto/x509"
	"encoding/csv"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// A partial refund from the payment's page, once confirmed, is the API's
// refund, with its event; the confirmation sent twice (a double click)
// makes one refund. A
// viewer sees no refund form, and one posted by hand is refused and
// changes nothing.
func TestRefundFromThePage(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		id := paidPayment(t, c, "1000.00", "order-4711", false)

		support := newVisitor(t, env)
		support.signIn(newUser(t, env, shop.MerchantID, payd.RoleSupport))
		page := support.get("/dashboard/test/payments/" + id)
		if page.status != 200 || !strings.Contains(page.body, "Test data: nothing here moves real money.") {
			t.Fatalf("payment page = %d\n%s", page.status, page.body)
		}
		form := formOf(t, page.body, "refund-form")
		form.Set("amount", "250.50")
		review := support.post("/dashboard/test/payments/"+id+"/refunds/review", form)
		if review.status != http.StatusOK || !strings.Contains(section(review.body, "confirm-amount"), "250.50") {
			t.Fatalf("refund review = %d\n%s", review.status, review.body)
		}
		if n := len(c.Get("/v1/refunds?payment_id="+id).Expect(t, 200).JSON(t)["items"].([]any)); n != 0 {
			t.Fatalf("%d refunds before the confirmation, want 0", n)
		}
		confirm := formOf(t, review.body, "refund-confirm-form")
		for range 2 {
			if p := support.post("/dashboard/test/payments/"+id+"/refunds", confirm); p.status != http.StatusSeeOther {
				t.Fatalf("refund post = %d\n%s", p.status, p.body)
			}
		}
		refunds := c.Get("/v1/refunds?payment_id="+id).Expect(t, 200).JSON(t)["items"].([]any)
		if len(refunds) != 1 {
			t.Fatalf("%d refunds after a double submit, want 1", len(refunds))
		}
		r := refunds[0].(map[string]any)
		if es := audited(t, env, shop.MerchantID, "create refund"); len(es) != 1 || es[0].ObjectID != r["id"] || es[0].Addr == "" {
			t.Errorf("audit entries of the refund = %s, want one naming %v", entries(es), r["id"])
		}
		if amt := r["amount"].(map[string]any); amt["value"] != "250.50" || amt["currency"] != "RUB" {
			t.Fatalf("refund amount = %v", amt)
		}
		paydtest.Eventually(t, "the refund's event", func() bool {
			items := c.Get("/v1/events?object_id="+r["id"].(string)).Expect(t, 200).JSON(t)["items"].([]any)
			return len(items) == 1
		})
		// More than is left is refused in the rule's words, next to the
		// form, and nothing is made.
		form = formOf(t, support.get("/dashboard/test/payments/"+id).body, "refund-form")
		form.Set("amount", "800.00")
		p := support.post("/dashboard/test/payments/"+id+"/refunds/review", form)
		if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="refund-error"`) {
			t.Fatalf("refund beyond the refundable = %d\n%s", p.status, p.body)
		}

		viewer := newVisitor(t, env)
		viewer.signIn(newUser(t, env, shop.MerchantID, payd.RoleViewer))
		vp := viewer.get("/dashboard/test/payments/" + id)
		if vp.status != 200 || strings.Contains(vp.body, `id="refund-form"`) {
			t.Fatalf("viewer's payment page = %d, refund form shown: %v", vp.status, strings.Contains(vp.body, `id="refund-form"`))
		}
		byHand := formOf(t, vp.body, "signout-form") // the session's CSRF token
		byHand.Set("idempotency_key", "dash_byhand")
		byHand.Set("amount", "1.00")
		if p := viewer.post("/dashboard/test/payments/"+id+"/refunds", byHand); p.status != http.StatusForbidden ||
			!strings.Contains(p.body, "Your role does not allow this") {
			t.Fatalf("viewer's refund by hand = %d\n%s", p.status, p.body)
		}
		if n := len(c.Get("/v1/refunds?payment_id="+id).Expect(t, 200).JSON(t)["items"].([]any)); n != 1 {
			t.Fatalf("%d refunds after the viewer's post, want 1", n)
		}
		// Without the session's CSRF token a post is refused too.
		form = formOf(t, support.get("/dashboard/test/payments/"+id).body, "refund-form")
		form.Set("csrf", "forged")
		if p := support.post("/dashboard/test/payments/"+id+"/refunds", form); p.status != http.StatusForbidden {
			t.Fatalf("post with a forged CSRF token = %d", p.status)
		}
	})
}

// The search finds a payment by order id (a list of one) and by payment
// id (straight to its page); a payment of the live contour is not found
// among test data.
func TestFindPayment(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	shop := env.NewShop(payd.RegionRU, "")
	c := env.As(shop, false)
	id := paidPayment(t, c, "10.00", "order-4711", false)
	paidPayment(t, c, "11.00", "order-4712", false)
	v := newVisitor(t, env)
	v.signIn(newUser(t, env, shop.MerchantID, payd.RoleViewer))

	p := v.get("/dashboard/test/payments?q=order-4711")
	if p.status != 200 || !strings.Contains(p.body, id) || strings.Contains(p.body, "order-4712") {
		t.Fatalf("search by order id = %d\n%s", p.status, p.body)
	}
	if p := v.get("/dashboard/test/payments?q=" + id); p.status != http.StatusSeeOther || p.location != "/dashboard/test/payments/"+id {
		t.Fatalf("search by payment id = %d to %q", p.status, p.location)
	}
	if p := v.get("/dashboard/payments?q=order-4711"); p.status != 200 || strings.Contains(p.body, id) {
		t.Fatalf("live search found a test payment: %d", p.status)
	}
	// A test payment's id under the live prefix opens it in test data
	// (address.go).
	if p := v.get("/dashboard/payments/" + id); p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/dashboard/test/payments/"+id+"?") {
		t.Fatalf("a test payment under the live prefix = %d to %q, want its test page", p.status, p.location)
	}
}

// The export holds every payment of the filter, across pages, and a
// merchant's text cannot become a spreadsheet formula.
func TestPaymentsCSV(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	shop := env.NewShop(payd.RegionRU, "")
	c := env.As(shop, false)
	// More than one page of the export (100), within the key's creation
	// rate (120 a minute).
	const n = 110
	for i := range n {
		body := map[string]any{"amount": map[string]any{"value": fmt.Sprintf("%d.00", i+1), "currency": "RUB"},
			"order_id": fmt.Sprintf("csv-%03d", i), "description": "=HYPERLINK(\"x\")", "confirmation": map[string]any{"type": "qr"}}
		c.Post("/v1/payments", idemKey(), body).Expect(t, 201)
	}
	v := newVisitor(t, env)
	v.signIn(newUser(t, env, shop.MerchantID, payd.RoleViewer))
	p := v.get("/dashboard/test/payments.csv?status=pending")
	if p.status != 200 || !strings.HasPrefix(p.header.Get("Content-Type"), "text/csv") {
		t.Fatalf("export = %d %s", p.status, p.header.Get("Content-Type"))
	}
	rows, err := csv.NewReader(strings.NewReader(p.body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n+1 || rows[0][0] != "id" {
		t.Fatalf("export has %d rows (header %v), want %d", len(rows), rows[0], n+1)
	}
	seen := map[string]bool{}
	for _, r := range rows[1:] {
		seen[r[7]] = true
		if r[9] != `'=HYPERLINK("x")` {
			t.Fatalf("description cell = %q, want it defused", r[9])
		}
	}
	if len(seen) != n {
		t.Fatalf("export has %d distinct orders, want %d", len(seen), n)
	}
	if p := v.get("/dashboard/test/payments.csv?status=succeeded"); strings.Count(p.body, "\n") != 1 {
		t.Fatalf("export of no payment has %d lines", strings.Count(p.body, "\n"))
	}
}

// An export whose store fails after its first page has sent its headers
// and rows: it ends with a line that says it was cut short and names the
// request, the error is in the service's log, and nothing of the error's
// text is in the user's file.
func TestPaymentsCSVCutShort(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	env := paydtest.Start(t, paydtest.Backends(t)[0], &paydtest.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	shop := env.NewShop(payd.RegionRU, "")
	c := env.As(shop, false)
	// Two more than the export reads at a time: the oldest is read with
	// the second page only (a page's read looks one row further, to know
	// whether another follows).
	var oldest string
	for i := range payd.MaxPageSize + 2 {
		body := map[string]any{"amount": map[string]any{"value": fmt.Sprintf("%d.00", i+1), "currency": "RUB"},
			"order_id": fmt.Sprintf("cut-%03d", i), "confirmation": map[string]any{"type": "qr"}}
		id := c.Post("/v1/payments", idemKey(), body).Expect(t, 201).JSON(t)["id"].(string)
		if i == 0 {
			oldest = id
		}
	}
	// The oldest payment's document is unreadable and has no rendering
	// to fall back on: the second page's read fails.
	if _, err := env.InspectDB().ExecContext(t.Context(), `UPDATE payments SET view_version = 0, doc = $1 WHERE id = $2`,
		`{"id": "unreadable`, oldest); err != nil {
		t.Fatal(err)
	}
	v := newVisitor(t, env)
	v.signIn(newUser(t, env, shop.MerchantID, payd.RoleViewer))
	p := v.get("/dashboard/test/payments.csv")
	if p.status != 200 || !strings.HasPrefix(p.header.Get("Content-Type"), "text/csv") {
		t.Fatalf("export = %d %s", p.status, p.header.Get("Content-Type"))
	}
	// The last line is one field: a reader that wants every row alike
	// stops there too, which is as well.
	cr := csv.NewReader(strings.NewReader(p.body))
	cr.FieldsPerRecord = -1
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	id := p.header.Get("X-Request-Id")
	if len(rows) != 1+payd.MaxPageSize+1 || rows[0][0] != "id" || id == "" {
		t.Fatalf("export has %d rows, request id %q; want the header, the first page and the last line", len(rows), id)
	}
	if last := rows[len(rows)-1]; len(last) != 1 || last[0] != "# export interrupted; request "+id {
		t.Fatalf("last line = %q, want one that says the export was cut short and names request %s", last, id)
	}
	for _, secret := range []string{"unexpected", "unreadable", "json", "EOF", "sql"} {
		if strings.Contains(p.body, secret) {
			t.Fatalf("the file shows the internal error (%q):\n%s", secret, p.body[strings.LastIndex(p.body[:len(p.body)-1], "\n"):])
		}
	}
	if !strings.Contains(logs.String(), "dashboard: export") || !strings.Contains(logs.String(), "request_id="+id) {
		t.Fatalf("the service's log has no error of the export naming request %s:\n%s", id, logs.String())
	}
}

// syncBuffer is a log the service writes from many goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// The export's cells cannot become formulas whatever separator the
// spreadsheet splits at (`;` in the ru locale, `,`, tab) and whatever blank
// comes first, and amounts stay numbers.
func TestPaymentsCSVUnderEverySeparator(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	shop := env.NewShop(payd.RegionRU, "")
	c := env.As(shop, false)
	hostile := []struct{ orderID, description string }{
		{"a;=1+1", "x;@SUM(A1)"},
		{" =1+1", "\u00a0=1+1"},
		{"\u2003+1", "\u3000-1+1"},
		{"b,=HYPERLINK(\"x\")", "c;\u00a0-2+3"},
		{"-7", "Books; two"},
	}
	for i, h := range hostile {
		body := map[string]any{"amount": map[string]any{"value": fmt.Sprintf("%d.50", i+1), "currency": "RUB"},
			"order_id": h.orderID, "description": h.description, "confirmation": map[string]any{"type": "qr"}}
		c.Post("/v1/payments", idemKey(), body).Expect(t, 201)
	}
	v := newVisitor(t, env)
	v.signIn(newUser(t, env, shop.MerchantID, payd.RoleViewer))
	p := v.get("/dashboard/test/payments.csv")
	if p.status != 200 {
		t.Fatalf("export = %d", p.status)
	}
	for _, sep := range []string{",", ";", "\t"} {
		for _, piece := range strings.FieldsFunc(p.body, func(r rune) bool { return strings.ContainsRune(sep+"\r\n", r) }) {
			for _, cell := range []string{piece, strings.Trim(piece, `"`)} {
				if startsFormula(cell) {
					t.Errorf("split at %q: cell %q starts a formula\n%s", sep, cell, p.body)
				}
			}
		}
	}
	rows, err := csv.NewReader(strings.NewReader(p.body)).ReadAll()
	if err != nil || len(rows) != len(hostile)+1 {
		t.Fatalf("export = %d rows, %v\n%s", len(rows), err, p.body)
	}
	for _, r := range rows[1:] {
		if !strings.HasSuffix(r[3], ".50") || strings.HasPrefix(r[3], "'") {
			t.Errorf("amount cell %q, want the amount as a number", r[3])
		}
		if r[7] == "-7" {
			continue // a number: no formula, kept as it is
		}
		// What changed is apostrophes added, nothing else.
		found := false
		for _, h := range hostile {
			found = found || strings.ReplaceAll(r[7], "'", "") == strings.ReplaceAll(h.orderID, "'", "")
		}
		if !found {
			t.Errorf("order_id cell %q is none of the orders", r[7])
		}
	}
}

// startsFormula is how a spreadsheet reads a cell: blanks, control and
// format characters and quotes skipped, then = + - @ (or a full-width
// one) first, and not a plain number.
func startsFormula(s string) bool {
	t := strings.Trim(s, `"`)
	if n := strings.TrimPrefix(t, "-"); n != "" && strings.Trim(n, "0123456789.") == "" {
		return false
	}
	for _, r := range s {
		if r == '\t' || r == '\r' {
			return true
		}
		if unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '"' {
			continue
		}
		return strings.ContainsRune("=+-@\uff1d\uff0b\uff0d\uff20", r)
	}
	return false
}

// The timeline shows an event's failed attempt and the successful retry,
// each with the receiver's answer and the headers the attempt sent.
func TestTimelineShowsAttempts(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		var calls atomic.Int32
		rc := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			if calls.Add(1) == 1 {
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = io.WriteString(w, "database is down <b>")
				return
			}
			_, _ = io.WriteString(w, "thanks, got it")
		}))
		t.Cleanup(rc.Close)
		pool := x509.NewCertPool()
		pool.AddCert(rc.Certificate())
		env := paydtest.Start(t, b, &paydtest.Options{WebhookAllowHosts: []string{"127.0.0.1"}, WebhookRootCAs: pool})
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		c.Post("/v1/webhook-endpoints", idemKey(), map[string]any{"url": rc.URL + "/hook", "events": []string{"payment.succeeded"}}).Expect(t, 201)
		id := paidPayment(t, c, "99.00", "order-hook", false)
		// The first attempt is recorded (its retry due a minute after it)
		// before the clock moves; moved earlier, the retry would fall due a
		// minute after the moved time.
		paydtest.Eventually(t, "the first attempt recorded", func() bool {
			items := c.Get("/v1/events?object_id="+id).Expect(t, 200).JSON(t)["items"].([]any)
			return len(items) == 1 && items[0].(map[string]any)["delivery"].(map[string]any)["attempts"] == float64(1)
		})
		env.Clock.Advance(payd.RetrySchedule()[0] + time.Second)
		paydtest.Eventually(t, "the retry", func() bool {
			env.Service.KickDeliveries()
			return calls.Load() == 2
		})

		v := newVisitor(t, env)
		v.signIn(newUser(t, env, shop.MerchantID, payd.RoleDeveloper))
		var p page
		paydtest.Eventually(t, "both attempts on the page", func() bool {
			p = v.get("/dashboard/test/payments/" + id)
			return strings.Count(p.body, `class="attempt"`) == 2
		})
		for _, want := range []string{"payment.succeeded", "HTTP 500", "HTTP 200", "database is down <b>", "thanks, got it",
			"X-Service-Signature: t=", `"order_id":"order-hook"`} {
			if !strings.Contains(html.UnescapeString(p.body), want) && !strings.Contains(p.body, want) {
				t.Errorf("timeline lacks %q", want)
			}
		}
		if strings.Contains(p.body, "database is down <b>") {
			t.Error("the receiver's answer is not escaped")
		}
	})
}
