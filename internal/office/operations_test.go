package office_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// paidPayment makes a sandbox QR payment through the merchant API and
// has the sandbox pay it.
func paidPayment(t *testing.T, c *paydtest.Client, value string) string {
	t.Helper()
	p := c.Post("/v1/payments", fmt.Sprintf("pay-%d", time.Now().UnixNano()), map[string]any{
		"amount": map[string]any{"value": value, "currency": "RUB"}, "order_id": fmt.Sprintf("order-%d", time.Now().UnixNano()),
		"confirmation": map[string]any{"type": "qr"},
	}).Expect(t, 201).JSON(t)
	id := p["id"].(string)
	c.Post("/v1/test/payments/"+id+"/simulate", fmt.Sprintf("sim-%d", time.Now().UnixNano()), map[string]any{"outcome": "succeed"}).Expect(t, 202)
	c.WaitStatus(id, "succeeded")
	return id
}

// uploadEvidence attaches a small PDF to a dispute as its merchant does.
func uploadEvidence(t *testing.T, c *paydtest.Client, disputeID string) (fileID string, body []byte) {
	t.Helper()
	body = append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("x"), 100)...)
	up := c.Post("/v1/disputes/"+disputeID+"/evidence/uploads", fmt.Sprintf("up-%d", time.Now().UnixNano()), map[string]any{
		"file_name": "receipt.pdf", "content_type": "application/pdf", "size_bytes": len(body)}).Expect(t, 201).JSON(t)
	req, _ := http.NewRequest(http.MethodPut, up["upload_url"].(string), bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/pdf")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("the upload answered %d", resp.StatusCode)
	}
	fileID = up["file_id"].(string)
	c.Post("/v1/disputes/"+disputeID+"/evidence", fmt.Sprintf("att-%d", time.Now().UnixNano()),
		map[string]any{"file_ids": []string{fileID}}).Expect(t, 200)
	return fileID, body
}

// TestSupportOpensADisputeTheBankReported: at stage M2 a support member
// finds a payment made through the merchant API by its id, with its
// provider attempt, opens the dispute the bank reported on it, and finds
// the dispute in the queue; support sees no decision, a risk member
// decides it, and its evidence downloads through the back office.
func TestSupportOpensADisputeTheBankReported(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		env := paydtest.Start(t, be, &paydtest.Options{Stage: payd.StageM2})
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		pay := paidPayment(t, c, "1500.00")
		support := newMember(t, env, "support@operator.test", payd.StaffSupport)
		risk := newMember(t, env, "risk@operator.test", payd.StaffRisk)

		page := support.get("/office/payments?id=" + pay)
		if page.status != http.StatusOK || !strings.Contains(page.body, `id="payment-id">`+pay+`<`) ||
			!strings.Contains(page.body, shop.MerchantID) {
			t.Fatalf("the payment lookup answered %d:\n%s", page.status, page.body)
		}
		if !strings.Contains(page.body, `id="attempts"`) || !strings.Contains(page.body, ">created<") {
			t.Fatalf("the payment's provider attempt is not on its page:\n%s", page.body)
		}
		if !strings.Contains(page.body, `id="events"`) || !strings.Contains(page.body, ">payment.succeeded</a>") {
			t.Fatalf("the payment's events are not on its page:\n%s", page.body)
		}
		if none := support.get("/office/payments?id=pay_00000000000000000000000000"); none.status != http.StatusNotFound ||
			!strings.Contains(none.body, `id="payment-not-found"`) {
			t.Fatalf("an unknown payment answered %d:\n%s", none.status, none.body)
		}

		form := formOf(t, page.body, "open-dispute")
		form.Set("kind", "chargeback")
		form.Set("amount", "400.00")
		form.Set("reason_code", "4853")
		opened := support.post("/office/payments/"+pay+"/disputes", form)
		m := regexp.MustCompile(`^/office/disputes/(dsp_[0-9A-Za-z]+)\?notice=done$`).FindStringSubmatch(opened.location)
		if opened.status != http.StatusSeeOther || m == nil {
			t.Fatalf("opening the dispute answered %d %q:\n%s", opened.status, opened.location, opened.body)
		}
		id := m[1]
		// A sandbox payment's dispute is in the test contour's queue.
		if live := support.get("/office/disputes"); strings.Contains(live.body, `id="dispute-`+id+`"`) {
			t.Fatalf("a test dispute is in the live queue:\n%s", live.body)
		}
		queue := support.get("/office/disputes?test=true")
		if queue.status != http.StatusOK || !strings.Contains(queue.body, `id="dispute-`+id+`"`) {
			t.Fatalf("the dispute is not in the queue (%d):\n%s", queue.status, queue.body)
		}
		shown := support.get("/office/disputes/" + id)
		if shown.status != http.StatusOK || !strings.Contains(shown.body, "4853") || strings.Contains(shown.body, `id="dispute-decision"`) {
			t.Fatalf("support's view of the dispute (%d), want it without the decision form:\n%s", shown.status, shown.body)
		}

		fileID, pdf := uploadEvidence(t, c, id)
		req, _ := http.NewRequest(http.MethodGet, env.Admin.URL+"/office/disputes/"+id+"/evidence/"+fileID, nil)
		resp, err := support.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/pdf" ||
			!strings.Contains(resp.Header.Get("Content-Disposition"), "receipt.pdf") || !bytes.Equal(got, pdf) {
			t.Fatalf("the evidence download answered %d %q %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"),
				resp.Header.Get("Content-Disposition"), len(got))
		}

		if refused := support.post("/office/disputes/"+id+"/win", url.Values{}); refused.status != http.StatusForbidden {
			t.Fatalf("support's decision answered %d:\n%s", refused.status, refused.body)
		}
		decision := formOf(t, risk.get("/office/disputes/"+id).body, "dispute-decision")
		decision.Set("resolution", "the bank accepted the receipt")
		if won := risk.post("/office/disputes/"+id+"/win", decision); won.status != http.StatusSeeOther {
			t.Fatalf("the risk member's decision answered %d:\n%s", won.status, won.body)
		}
		d, err := env.Service.OperatorDispute(context.Background(), id)
		if err != nil || d.Status != payd.DisputeWon || d.Resolution != "the bank accepted the receipt" {
			t.Fatalf("the dispute after the decision: %+v, %v", d, err)
		}
	})
}

// TestSupportResendsAnEvent: the payment's page offers support a resend
// of each of its events; the resend comes back to the event with a notice
// and is in the operator's audit log under the member's session; finance
// is offered none, and its hand-posted resend is refused by the API.
func TestSupportResendsAnEvent(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		env := paydtest.Start(t, be, nil)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		pay := paidPayment(t, c, "700.00")
		support := newMember(t, env, "support@operator.test", payd.StaffSupport)
		finance := newMember(t, env, "finance@operator.test", payd.StaffFinance)

		page := support.get("/office/payments?id=" + pay)
		evID := regexp.MustCompile(`<tr id="event-(evt_[0-9A-Za-z]+)">`).FindStringSubmatch(page.body)
		if evID == nil {
			t.Fatalf("no event row on the payment's page:\n%s", page.body)
		}
		path := "/office/payments/" + pay + "/events/" + evID[1] + "/resend"
		if !strings.Contains(page.body, `action="`+path+`"`) {
			t.Fatalf("support is offered no resend of %s:\n%s", evID[1], page.body)
		}
		done := support.post(path, url.Values{})
		if done.status != http.StatusSeeOther || done.location != "/office/payments?id="+pay+"&event="+evID[1]+"&notice=done" {
			t.Fatalf("the resend answered %d %q:\n%s", done.status, done.location, done.body)
		}
		if back := support.get(done.location); !strings.Contains(back.body, `<p class="notice" role="status">Done.</p>`) {
			t.Fatalf("the page after the resend has no notice:\n%s", back.body)
		}
		entries := env.AdminDo("GET", "/admin/v1/audit?action=events.resend", nil).Expect(t, 200).JSON(t)["items"].([]any)
		if len(entries) != 1 || entries[0].(map[string]any)["staff_id"] != support.id || entries[0].(map[string]any)["via"] != payd.StaffViaSession {
			t.Fatalf("audit of the resend = %v, want one by the support member's session", entries)
		}

		if strings.Contains(finance.get("/office/payments?id="+pay).body, "/resend") {
			t.Fatal("finance is offered a resend")
		}
		if refused := finance.post(path, url.Values{}); refused.status != http.StatusForbidden {
			t.Fatalf("finance's resend answered %d:\n%s", refused.status, refused.body)
		}
		if n := len(env.AdminDo("GET", "/admin/v1/audit?action=events.resend", nil).Expect(t, 200).JSON(t)["items"].([]any)); n != 1 {
			t.Fatalf("%d resends audited after finance's refused one, want 1", n)
		}
	})
}

// TestDisputesBelowStageM2 says on the page that disputes are not served.
func TestDisputesBelowStageM2(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	support := newMember(t, env, "support@operator.test", payd.StaffSupport)
	if a := support.get("/office/disputes"); a.status != http.StatusOK || !strings.Contains(a.body, `id="disputes-off"`) {
		t.Fatalf("the disputes queue below M2 answered %d:\n%s", a.status, a.body)
	}
	shop := env.NewShop(payd.RegionRU, "")
	pay := paidPayment(t, env.As(shop, false), "10.00")
	if a := support.get("/office/payments?id=" + pay); a.status != http.StatusOK || strings.Contains(a.body, `id="open-dispute"`) {
		t.Fatalf("the payment below M2 (%d) offers to open a dispute:\n%s", a.status, a.body)
	}
}

// routes reads the live routing table as the API has it.
func routes(t *testing.T, env *paydtest.Env) []string {
	t.Helper()
	var list struct{ Items []payd.ProviderRoute }
	env.AdminDo("GET", "/admin/v1/provider-routes", nil).Expect(t, 200).Decode(t, &list)
	out := []string{}
	for _, r := range list.Items {
		out = append(out, fmt.Sprintf("%s %s %s %v", r.Region, r.Method, r.Currency, r.Providers))
	}
	return out
}

// confirmOnHome has member confirm the one pending proposal on the
// approvals page.
func confirmOnHome(t *testing.T, member *member) {
	t.Helper()
	home := member.get("/office/")
	m := regexp.MustCompile(`id="proposal-(prp_[0-9A-Za-z]+)"`).FindStringSubmatch(home.body)
	if m == nil {
		t.Fatalf("no proposal on the home page:\n%s", home.body)
	}
	if a := member.post("/office/proposals/"+m[1]+"/confirm", url.Values{}); a.status != http.StatusSeeOther {
		t.Fatalf("the confirmation answered %d:\n%s", a.status, a.body)
	}
}

// TestRouteChangeTakesTwoAdmins: a route set or removed on the routes
// page is proposed, and the table changes only when a second admin
// confirms on the approvals page.
func TestRouteChangeTakesTwoAdmins(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		env := paydtest.Start(t, be, &paydtest.Options{LiveProviders: []payd.Provider{
			paydtest.NewLiveProvider("acme_bank"), paydtest.NewLiveProvider("beta_bank")}})
		first := newMember(t, env, "first@operator.test", payd.StaffAdmin)
		second := newMember(t, env, "second@operator.test", payd.StaffAdmin)

		page := first.get("/office/routes")
		if page.status != http.StatusOK || !strings.Contains(page.body, `id="no-routes"`) || !strings.Contains(page.body, "acme_bank") {
			t.Fatalf("the routes page answered %d:\n%s", page.status, page.body)
		}
		form := formOf(t, page.body, "route-form")
		form.Set("region", "ru")
		form.Set("method", "bank_card")
		form.Set("currency", "RUB")
		form.Set("providers", "beta_bank, acme_bank")
		proposed := first.post("/office/routes", form)
		if proposed.status != http.StatusSeeOther || !strings.Contains(proposed.location, "notice=proposed") {
			t.Fatalf("setting a route answered %d %q:\n%s", proposed.status, proposed.location, proposed.body)
		}
		if got := routes(t, env); len(got) != 0 {
			t.Fatalf("the table after a proposal: %v; want it unchanged", got)
		}
		if notice := first.get(proposed.location); !strings.Contains(notice.body, "a second staff member") {
			t.Fatalf("the page after the proposal says no proposal:\n%s", notice.body)
		}
		confirmOnHome(t, second)
		if got := routes(t, env); len(got) != 1 || got[0] != "ru bank_card RUB [beta_bank acme_bank]" {
			t.Fatalf("the table after the confirmation: %v", got)
		}
		page = first.get("/office/routes")
		if !strings.Contains(page.body, `id="route-ru-bank_card-RUB"`) {
			t.Fatalf("the route is not on the page:\n%s", page.body)
		}

		removal := url.Values{"region": {"ru"}, "method": {"bank_card"}, "currency": {"RUB"}}
		if a := second.post("/office/routes/delete", removal); a.status != http.StatusSeeOther || !strings.Contains(a.location, "notice=proposed") {
			t.Fatalf("removing the route answered %d %q:\n%s", a.status, a.location, a.body)
		}
		if got := routes(t, env); len(got) != 1 {
			t.Fatalf("the table after a removal's proposal: %v; want the route kept", got)
		}
		confirmOnHome(t, first)
		if got := routes(t, env); len(got) != 0 {
			t.Fatalf("the table after the removal's confirmation: %v", got)
		}
	})
}

// TestLedgerAndRegisterCSV: the ledger page shows the check passed, and
// each register of the queue links its CSV report.
func TestLedgerAndRegisterCSV(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		env := paydtest.Start(t, be, nil)
		finance := newMember(t, env, "finance@operator.test", payd.StaffFinance)
		paidPayment(t, env.As(env.NewShop(payd.RegionRU, ""), false), "100.00")
		if a := finance.get("/office/ledger"); a.status != http.StatusOK || !strings.Contains(a.body, `id="ledger-ok"`) {
			t.Fatalf("the ledger page answered %d:\n%s", a.status, a.body)
		}

		id := draftRegister(t, env)
		queue := finance.get("/office/settlements")
		m := regexp.MustCompile(`(?s)<tr id="register-` + id + `">.*?<a class="csv" href="([^"]+)"`).FindStringSubmatch(queue.body)
		if m == nil {
			t.Fatalf("no CSV link of %s on the register queue:\n%s", id, queue.body)
		}
		resp, err := http.Get(html.UnescapeString(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("the CSV link answered %d %q:\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	})
}
