package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// axeScript is the axe-core accessibility engine, installed from npm into
// e2e/node_modules by `npm ci --prefix e2e` (.ci/run does it).
var axeScript = sync.OnceValues(func() ([]byte, error) {
	return os.ReadFile(filepath.Join("node_modules", "axe-core", "axe.min.js"))
})

func axeSource(t *testing.T) string {
	t.Helper()
	src, err := axeScript()
	if err == nil {
		return string(src)
	}
	const install = "install it with `npm ci --prefix e2e`"
	if os.Getenv("PAYD_E2E_REQUIRED") == "1" {
		t.Fatalf("PAYD_E2E_REQUIRED=1 but axe-core is not installed (%v); %s", err, install)
	}
	t.Skipf("axe-core is not installed; %s", install)
	return ""
}

type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// failing reports whether a violation fails a page: every impact but
// minor. Moderate ones count too (content outside any landmark, a
// heading level skipped), as they cost a screen reader's user their way
// around the page.
func failing(v axeViolation) bool {
	return v.Impact == "critical" || v.Impact == "serious" || v.Impact == "moderate"
}

// checkAccessible runs axe-core on the page the tab shows and fails the
// test for each critical, serious or moderate violation, naming the rule
// and the elements. The engine is evaluated through the DevTools protocol, which
// the page's Content-Security-Policy does not govern: the page itself
// keeps its policy.
func (tb *tab) checkAccessible(t *testing.T, page string) {
	t.Helper()
	for _, v := range tb.axeViolations(t, page) {
		if failing(v) {
			t.Errorf("%s: accessibility: %s (%s): %s at %s", page, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, ", "))
		}
	}
}

// axeViolations runs axe-core on the tab's page.
func (tb *tab) axeViolations(t *testing.T, page string) []axeViolation {
	t.Helper()
	src := axeSource(t)
	get(tb, "load axe-core on "+page, chromedp.Evaluate[bool](src+";\ntrue"))
	found := get(tb, "run axe-core on "+page, chromedp.Evaluate[[]axeViolation](`axe.run(document, {resultTypes: ["violations"]}).then(r =>
		r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help, nodes: v.nodes.map(n => n.target.join(" "))})))`,
		chromedp.EvalAwaitPromise))
	return found
}

// The check can fail: a page with an unlabelled field, an image without
// a text and content outside any landmark gives violations the check
// counts.
func TestAxeFindsViolations(t *testing.T) {
	site := newShopSite(t)
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><html><title>x</title><body><form><input type="text"></form><img src="data:,"></body></html>`))
	}))
	t.Cleanup(bad.Close)
	tb := startBrowser(t, site.Server)
	tb.do("open a bad page", chromedp.Navigate(bad.URL), chromedp.WaitReady(chromedp.CSS("body")))
	ids := map[string]bool{}
	for _, v := range tb.axeViolations(t, "bad page") {
		if failing(v) {
			ids[v.ID] = true
		}
	}
	for _, want := range []string{"label", "image-alt", "region"} {
		if !ids[want] {
			t.Errorf("axe-core did not report %s; it reported %v", want, ids)
		}
	}
}
