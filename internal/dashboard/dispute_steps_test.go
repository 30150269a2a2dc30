package dashboard_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// stepStates reads the states of a dispute page's steps, in order.
func stepStates(body string) []string {
	var out []string
	for _, part := range strings.Split(body, `data-state="`)[1:] {
		out = append(out, part[:strings.IndexByte(part, '"')])
	}
	return out
}

// A dispute's page tells where it is at each step: before any evidence
// the merchant's step is under way and the deadline counts down; once a
// file is attached the page says it is not sent yet (the API's status
// is unchanged) and payd's step is under way; the attached file comes
// back as a download, never inline; once submitted the countdown stops;
// once decided every step is done. The reason code is explained.
func TestDisputePageFollowsItsSteps(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM5(t, b)
		pay := paidPayment(t, c, "1000.00", "order-steps", false)
		id := c.Post("/v1/test/payments/"+pay+"/disputes", idemKey(), map[string]any{
			"amount": map[string]any{"value": "300.00", "currency": "RUB"}, "reason_code": "13.1"}).Expect(t, 201).JSON(t)["id"].(string)
		support := signedIn(t, env, shop, payd.RoleSupport)
		viewer := signedIn(t, env, shop, payd.RoleViewer)

		page := support.get("/dashboard/test/disputes/" + id)
		if got := strings.Join(stepStates(page.body), " "); got != "done current next next" {
			t.Fatalf("steps before evidence: %s\n%s", got, page.body)
		}
		if !strings.Contains(page.body, "The cardholder says the goods or services were not received.") || !strings.Contains(page.body, "(Visa)") {
			t.Fatalf("reason 13.1 is not explained:\n%s", page.body)
		}
		if !strings.Contains(page.body, " left</p>") {
			t.Fatalf("no countdown before submission:\n%s", page.body)
		}

		file := bytes.Repeat([]byte("<html><script>alert(1)</script>"), 100)
		file = append([]byte("%PDF-1.7\n"), file...)
		form := formOf(t, page.body, "evidence-form")
		if p := support.postFile("/dashboard/test/disputes/"+id+"/evidence", form, "file", "receipt <1>.pdf", "application/pdf", file); p.status != http.StatusSeeOther {
			t.Fatalf("evidence post = %d\n%s", p.status, p.body)
		}
		page = support.get("/dashboard/test/disputes/" + id)
		if got := strings.Join(stepStates(page.body), " "); got != "done done current next" {
			t.Fatalf("steps after attaching: %s", got)
		}
		if !strings.Contains(page.body, `id="dispute-status">Evidence attached, not sent yet<`) ||
			!strings.Contains(page.body, `id="api-status">opened<`) {
			t.Fatalf("the page does not say the evidence waits:\n%s", page.body)
		}
		const noDeadline = `data-label="Evidence due">—</td>`
		if list := support.get("/dashboard/test/disputes"); !strings.Contains(list.body, "Evidence attached, not sent yet") || strings.Contains(list.body, noDeadline) {
			t.Fatalf("the list does not say the evidence waits, with its deadline:\n%s", list.body)
		}
		fileID := c.Get("/v1/disputes/"+id).Expect(t, 200).JSON(t)["evidence"].([]any)[0].(map[string]any)["file_id"].(string)
		link := "/dashboard/test/disputes/" + id + "/evidence/" + fileID
		if !strings.Contains(page.body, `href="`+link+`"`) {
			t.Fatalf("no download link %s:\n%s", link, page.body)
		}
		// Every role that reads disputes downloads it, as an attachment of
		// its type.
		for _, v := range []*visitor{support, viewer} {
			got := v.get(link)
			h := got.header
			if got.status != 200 || got.body != string(file) || h.Get("Content-Type") != "application/pdf" ||
				!strings.HasPrefix(h.Get("Content-Disposition"), "attachment;") || !strings.Contains(h.Get("Content-Disposition"), "receipt <1>.pdf") ||
				h.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(h.Get("Content-Security-Policy"), "sandbox") {
				t.Fatalf("download = %d, %d bytes, headers %v", got.status, len(got.body), h)
			}
		}
		// Another shop's user, and a file id that is not attached, find
		// nothing.
		other := env.NewShop(payd.RegionRU, "")
		if got := signedIn(t, env, other, payd.RoleAdmin).get(link); got.status != http.StatusNotFound {
			t.Fatalf("another merchant's download = %d", got.status)
		}
		if got := support.get("/dashboard/test/disputes/" + id + "/evidence/" + payd.NewIDGen().New(payd.PrefixEvidence, env.Clock.Now())); got.status != http.StatusNotFound {
			t.Fatalf("an unknown file = %d", got.status)
		}

		env.AdminDo("POST", "/admin/v1/disputes/"+id+"/submit", map[string]any{}).Expect(t, 200)
		page = support.get("/dashboard/test/disputes/" + id)
		if got := strings.Join(stepStates(page.body), " "); got != "done done done current" {
			t.Fatalf("steps after submission: %s", got)
		}
		if strings.Contains(page.body, " left</p>") || !strings.Contains(page.body, "the deadline no longer runs") {
			t.Fatalf("the countdown runs on after submission:\n%s", page.body)
		}
		if list := support.get("/dashboard/test/disputes"); !strings.Contains(list.body, noDeadline) {
			t.Fatalf("the list still shows an evidence deadline after submission:\n%s", list.body)
		}

		env.AdminDo("POST", "/admin/v1/disputes/"+id+"/win", map[string]any{}).Expect(t, 200)
		page = support.get("/dashboard/test/disputes/" + id)
		if got := strings.Join(stepStates(page.body), " "); got != "done done done done" {
			t.Fatalf("steps after the decision: %s", got)
		}
	})
}

// An unknown reason code is shown as it came, with the fallback that
// says payd does not know it, and the steps are told, in the page's
// language.
func TestDisputeUnknownReasonCode(t *testing.T) {
	t.Parallel()
	env, shop, c := startM5(t, paydtest.Backends(t)[0])
	pay := paidPayment(t, c, "1000.00", "order-reason", false)
	id := c.Post("/v1/test/payments/"+pay+"/disputes", idemKey(), map[string]any{
		"amount": map[string]any{"value": "100.00", "currency": "RUB"}, "reason_code": "99.9"}).Expect(t, 201).JSON(t)["id"].(string)
	v := signedIn(t, env, shop, payd.RoleViewer)
	for lang, want := range map[string][]string{
		"en": {"payd does not know this code", "You attach evidence"},
		"ru": {"payd не знает этот код", "Вы прикладываете доказательства"},
		"kk": {"payd бұл кодты білмейді", "Сіз дәлелдерді тіркейсіз"},
	} {
		page := v.get("/dashboard/test/disputes/" + id + "?lang=" + lang)
		for _, w := range append(want, "99.9") {
			if !strings.Contains(page.body, w) {
				t.Errorf("%s: the page lacks %q:\n%s", lang, w, page.body)
			}
		}
		if lang != "en" && strings.Contains(page.body, "You attach evidence") {
			t.Errorf("%s: the steps are in English", lang)
		}
	}
}
