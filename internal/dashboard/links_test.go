package dashboard_test

import (
	"encoding/base64"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

var qrImage = regexp.MustCompile(`<img class="qr" id="link-qr" src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"`)

// A link created on the page is the API's link, and its address opens;
// the form sent twice makes one link. The page shows the address with a
// copy button and a QR code. A refused range is shown next to its field,
// a viewer's post by hand is refused, and deactivation ends the link.
func TestPaymentLinkFromThePage(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM5(t, b)
		support := signedIn(t, env, shop, payd.RoleSupport)
		page := support.get("/dashboard/test/links")
		if page.status != 200 || !strings.Contains(page.body, `id="no-links"`) {
			t.Fatalf("links page = %d\n%s", page.status, page.body)
		}
		form := formOf(t, page.body, "link-form")
		form.Set("description", "Tea, 250 g")
		form.Set("amount_kind", "fixed")
		form.Set("currency", "RUB")
		form.Set("amount", "1500.50")
		var location string
		for range 2 {
			p := support.post("/dashboard/test/links", form)
			if p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/dashboard/test/links/") {
				t.Fatalf("link post = %d to %q\n%s", p.status, p.location, p.body)
			}
			if location != "" && p.location != location {
				t.Fatalf("the second submit went to %q, the first to %q", p.location, location)
			}
			location = p.location
		}
		links := items(t, c, "/v1/payment-links")
		if len(links) != 1 {
			t.Fatalf("%d links after a double submit, want 1", len(links))
		}
		l := links[0].(map[string]any)
		id := l["id"].(string)
		if amt := l["amount"].(map[string]any); amt["value"] != "1500.50" || l["description"] != "Tea, 250 g" || l["reusable"] != false {
			t.Fatalf("link = %v", l)
		}
		// The creation is in the audit log once, as the user's, with the
		// address it came from.
		if es := audited(t, env, shop.MerchantID, "create payment link"); len(es) != 1 || es[0].ObjectID != id ||
			es[0].UserEmail == "" || es[0].Addr == "" || es[0].Mode != payd.ModeTest {
			t.Fatalf("audit of the link's creation = %+v", es)
		}
		p := support.get("/dashboard/test/links/" + id)
		if p.status != 200 || !strings.Contains(p.body, `id="link-url" href="`+l["url"].(string)+`"`) ||
			!strings.Contains(p.body, `data-copy="#link-url"`) {
			t.Fatalf("link page = %d\n%s", p.status, p.body)
		}
		m := qrImage.FindStringSubmatch(html.UnescapeString(p.body))
		if m == nil {
			t.Fatalf("no QR image on the link page\n%s", p.body)
		}
		if svg, err := base64.StdEncoding.DecodeString(m[1]); err != nil || !strings.HasPrefix(string(svg), "<svg") || !strings.Contains(string(svg), `<path fill="#000" d="M`) {
			t.Fatalf("QR image is not an SVG of modules: %v %.80s", err, svg)
		}
		resp, err := http.Get(l["url"].(string))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("the link's address answered %d", resp.StatusCode)
		}

		// An open amount whose minimum is above its maximum: the rule's
		// words next to the field, and no link.
		form = formOf(t, support.get("/dashboard/test/links").body, "link-form")
		form.Set("description", "Donation")
		form.Set("amount_kind", "open")
		form.Set("currency", "RUB")
		form.Set("min_amount", "500")
		form.Set("max_amount", "100")
		p = support.post("/dashboard/test/links", form)
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="link-max-error"`) || !strings.Contains(p.body, `value="Donation"`) {
			t.Fatalf("min above max = %d\n%s", p.status, p.body)
		}
		form.Set("max_amount", "")
		form.Set("return_url", "ftp://shop.example/thanks")
		p = support.post("/dashboard/test/links", formWithKey(t, p.body, "link-form", form))
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="link-return-error"`) {
			t.Fatalf("ftp return address = %d\n%s", p.status, p.body)
		}
		day := env.Service.Clock().Now().UTC().AddDate(0, 0, 10)
		form.Set("return_url", "https://shop.example/thanks")
		form.Set("reusable", "1")
		form.Set("two_stage", "1")
		form.Set("expires_on", day.Format("2006-01-02"))
		p = support.post("/dashboard/test/links", formWithKey(t, p.body, "link-form", form))
		if p.status != http.StatusSeeOther {
			t.Fatalf("open reusable link = %d\n%s", p.status, p.body)
		}
		openID, _, _ := strings.Cut(strings.TrimPrefix(p.location, "/dashboard/test/links/"), "?")
		open := c.Get("/v1/payment-links/"+openID).Expect(t, 200).JSON(t)
		wantExpiry := day.Truncate(24*time.Hour).AddDate(0, 0, 1).Format(time.RFC3339)
		if open["amount"] != nil || open["min_amount"].(map[string]any)["value"] != "500.00" || open["reusable"] != true ||
			open["capture"] != false || open["return_url"] != "https://shop.example/thanks" || open["expires_at"] != wantExpiry {
			t.Fatalf("open link = %v, want expiry %s", open, wantExpiry)
		}
		if n := len(items(t, c, "/v1/payment-links")); n != 2 {
			t.Fatalf("%d links, want 2", n)
		}

		viewer := signedIn(t, env, shop, payd.RoleViewer)
		if vp := viewer.get("/dashboard/test/links"); strings.Contains(vp.body, `id="link-form"`) {
			t.Fatal("a viewer is shown the link form")
		}
		f := byHand(t, viewer)
		f.Set("description", "forged")
		f.Set("currency", "RUB")
		f.Set("amount", "10")
		if p := viewer.post("/dashboard/test/links", f); p.status != http.StatusForbidden {
			t.Fatalf("viewer's link by hand = %d", p.status)
		}
		if p := viewer.post("/dashboard/test/links/"+id+"/deactivate", byHand(t, viewer)); p.status != http.StatusForbidden {
			t.Fatalf("viewer's deactivation by hand = %d", p.status)
		}
		if n := len(items(t, c, "/v1/payment-links")); n != 2 {
			t.Fatalf("%d links after the viewer's posts, want 2", n)
		}

		df := formOf(t, support.get("/dashboard/test/links/"+id).body, "deactivate-form")
		if p := support.post("/dashboard/test/links/"+id+"/deactivate", df); p.status != http.StatusSeeOther {
			t.Fatalf("deactivate = %d\n%s", p.status, p.body)
		}
		if st := c.Get("/v1/payment-links/"+id).Expect(t, 200).JSON(t)["status"]; st != "deactivated" {
			t.Fatalf("link status after deactivation = %v", st)
		}
		if es := audited(t, env, shop.MerchantID, "deactivate payment link"); len(es) != 1 || es[0].ObjectID != id || es[0].Addr == "" {
			t.Errorf("audit entries of the deactivation = %s, want one naming %s", entries(es), id)
		}
		if p := support.get("/dashboard/test/links/" + id); strings.Contains(p.body, `id="deactivate-form"`) {
			t.Fatal("a deactivated link still offers deactivation")
		}
	})
}

// formWithKey is vals with the idempotency key of the form id on the page
// (a refused form is shown again with a new key).
func formWithKey(t *testing.T, body, id string, vals map[string][]string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for k, v := range vals {
		out[k] = v
	}
	out["idempotency_key"] = []string{formOf(t, body, id).Get("idempotency_key")}
	return out
}
