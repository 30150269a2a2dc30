package dashboard_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// postFile sends a form with a file as a browser sends it: the form's
// fields in page order, then the file.
func (v *visitor) postFile(path string, form url.Values, field, name, contentType string, data []byte) page {
	v.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, val := range form[k] {
			_ = mw.WriteField(k, val)
		}
	}
	h := make(map[string][]string)
	h["Content-Disposition"] = []string{`form-data; name="` + field + `"; filename="` + name + `"`}
	h["Content-Type"] = []string{contentType}
	w, err := mw.CreatePart(h)
	if err != nil {
		v.t.Fatal(err)
	}
	_, _ = w.Write(data)
	_ = mw.Close()
	req, _ := http.NewRequest("POST", v.env.API.URL+path, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return v.do(req)
}

// startM5 is a service of stage M5 (disputes, links, payouts) with a shop.
func startM5(t *testing.T, b paydtest.Backend) (*paydtest.Env, *paydtest.Shop, *paydtest.Client) {
	t.Helper()
	env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM5})
	shop := env.NewShop(payd.RegionRU, "")
	return env, shop, env.As(shop, false)
}

// signedIn is a visitor signed in as a new user of the shop's merchant
// with role.
func signedIn(t *testing.T, env *paydtest.Env, shop *paydtest.Shop, role payd.Role) *visitor {
	t.Helper()
	v := newVisitor(t, env)
	v.signIn(newUser(t, env, shop.MerchantID, role))
	return v
}

// byHand is a form a user posts without the page that would show it: the
// session's CSRF token (from the sign-out form every page has) and a key.
func byHand(t *testing.T, v *visitor) url.Values {
	t.Helper()
	f := formOf(t, v.get("/dashboard/test/").body, "signout-form")
	f.Set("idempotency_key", "dash_byhand"+idemKey())
	return f
}

func items(t *testing.T, c *paydtest.Client, path string) []any {
	t.Helper()
	return c.Get(path).Expect(t, 200).JSON(t)["items"].([]any)
}

// waitFor polls fn for up to 30 seconds: jobs on a busy machine.
func waitFor(t *testing.T, what string, fn func() bool) {
	t.Helper()
	paydtest.EventuallyWithin(t, 30*time.Second, what, fn)
}

// audited returns the merchant's audit entries of action.
func audited(t *testing.T, env *paydtest.Env, merchantID string, action payd.AuditAction) []*payd.AuditEntry {
	t.Helper()
	page, err := env.Service.ListAudit(context.Background(), merchantID, payd.AuditListParams{ListParams: payd.ListParams{Limit: payd.MaxPageSize}})
	if err != nil {
		t.Fatal(err)
	}
	var out []*payd.AuditEntry
	for _, e := range page.Items {
		if e.Action == action {
			out = append(out, e)
		}
	}
	return out
}

// section is the part of a page from the element with id to the end of
// its table or form, for checks of one part.
func section(body, id string) string {
	i := strings.Index(body, `id="`+id+`"`)
	if i < 0 {
		return ""
	}
	return body[i:]
}
