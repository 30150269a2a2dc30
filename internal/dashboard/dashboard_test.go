package dashboard

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// A post the browser says it made for another site is refused with the
// dashboard's page before its body is read: by Sec-Fetch-Site where the
// browser sends it, else by Origin against Host. A client that sends
// neither is left to the CSRF token.
func TestFormRefusesOtherSites(t *testing.T) {
	t.Parallel()
	h := New(Config{Key: []byte("test key of the forms")})
	for _, tc := range []struct {
		name    string
		headers map[string]string
		refused bool
	}{
		{"same origin", map[string]string{"Sec-Fetch-Site": "same-origin"}, false},
		{"typed by the user", map[string]string{"Sec-Fetch-Site": "none"}, false},
		{"cross site", map[string]string{"Sec-Fetch-Site": "cross-site"}, true},
		{"same site, other origin", map[string]string{"Sec-Fetch-Site": "same-site"}, true},
		{"Sec-Fetch-Site over Origin", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "https://elsewhere.example"}, false},
		{"neither", nil, false},
		{"Origin of the dashboard, http", map[string]string{"Origin": "http://payd.example"}, false},
		{"Origin of the dashboard, https", map[string]string{"Origin": "https://payd.example"}, false},
		{"Origin of another site", map[string]string{"Origin": "https://elsewhere.example"}, true},
		{"Origin of another port", map[string]string{"Origin": "https://payd.example:8443"}, true},
		{"opaque Origin", map[string]string{"Origin": "null"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "http://payd.example"+SignInPath, strings.NewReader(url.Values{"email": {"a@shop.example"}}.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r.Header.Set("Accept-Language", "en")
			for k, v := range tc.headers {
				r.Header.Set(k, v)
			}
			reached := false
			w := httptest.NewRecorder()
			h.form(func(http.ResponseWriter, *http.Request) { reached = true }).ServeHTTP(w, r)
			if tc.refused {
				if reached || w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), `id="problem">This form was sent from another site.<`) {
					t.Fatalf("reached %v, answer %d, want the dashboard's 403 page\n%s", reached, w.Code, w.Body)
				}
				return
			}
			if !reached {
				t.Fatalf("refused with %d\n%s", w.Code, w.Body)
			}
		})
	}
}
