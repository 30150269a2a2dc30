package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"gopkg.in/yaml.v3"
)

// alertRules is where the alerting rules and their promtool tests are,
// from this package's directory.
const alertRules = "../../deploy/prometheus"

// ruleFile is the part of a Prometheus rule file the checks read.
type ruleFile struct {
	Groups []struct {
		Name  string
		Rules []struct {
			Alert, Expr string
			Labels      map[string]string
			Annotations map[string]string
		}
	}
}

// promSeries are the series Prometheus makes itself, beside the ones it
// scrapes: a rule may name them though payd does not export them.
var promSeries = []string{"up"}

// redisOnly are the series payd exports only with --redis-url.
var redisOnly = []string{"payd_ratelimit_redis_up", "payd_ratelimit_redis_outages_total", "payd_ratelimit_redis_fallbacks_total"}

// TestAlertRules: every series an alerting rule names is one a running
// payd exports on its operator listener's /metrics (a histogram's _bucket,
// _sum and _count included), so that no alert waits on a series that
// never comes; every alert has a severity, a summary, a description and a
// runbook section in docs/alerts.md; and promtool accepts the rules and
// passes their tests (required where PAYD_PROMTOOL_REQUIRED=1, as in CI).
func TestAlertRules(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(alertRules, "payd-alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var rules ruleFile
	if err := yaml.Unmarshal(raw, &rules); err != nil {
		t.Fatal(err)
	}
	named := map[string][]string{} // series → the alerts naming it
	alerts := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts++
			for _, name := range seriesNamed(t, r.Alert, r.Expr) {
				named[name] = append(named[name], r.Alert)
			}
		}
	}
	if alerts == 0 {
		t.Fatal("no alerting rule read")
	}

	t.Run("Exported", func(t *testing.T) {
		t.Parallel()
		exported, redis := scrapePayd(t)
		for name, by := range named {
			if exported[name] || slices.Contains(promSeries, name) {
				continue
			}
			if !redis && slices.Contains(redisOnly, name) {
				t.Logf("%s is exported only with Redis (PAYD_TEST_REDIS_URL is not set): not checked", name)
				continue
			}
			t.Errorf("%v name %s, which payd does not export", by, name)
		}
	})

	t.Run("Annotated", func(t *testing.T) {
		t.Parallel()
		doc, err := os.ReadFile("../../docs/alerts.md")
		if err != nil {
			t.Fatal(err)
		}
		anchors := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?m)^#+ +(.+)$`).FindAllStringSubmatch(string(doc), -1) {
			anchors[anchor(m[1])] = true
		}
		for _, g := range rules.Groups {
			for _, r := range g.Rules {
				if r.Alert == "" {
					continue
				}
				if s := r.Labels["severity"]; s != "critical" && s != "warning" {
					t.Errorf("%s: severity %q, want critical or warning", r.Alert, s)
				}
				if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
					t.Errorf("%s: no summary or description", r.Alert)
				}
				url := r.Annotations["runbook_url"]
				_, frag, ok := strings.Cut(url, "docs/alerts.md#")
				if !ok || !anchors[frag] {
					t.Errorf("%s: runbook_url %q is not a section of docs/alerts.md", r.Alert, url)
				}
			}
		}
	})

	t.Run("Promtool", func(t *testing.T) {
		t.Parallel()
		promtool, err := exec.LookPath("promtool")
		if err != nil {
			if os.Getenv("PAYD_PROMTOOL_REQUIRED") == "1" {
				t.Fatal("promtool is required (PAYD_PROMTOOL_REQUIRED=1) but not installed: apt-get install prometheus")
			}
			t.Skip("promtool is not installed (Debian: apt-get install prometheus)")
		}
		for _, args := range [][]string{{"check", "rules", "payd-alerts.yml"}, {"test", "rules", "payd-alerts.test.yml"}} {
			cmd := exec.Command(promtool, args...)
			cmd.Dir = alertRules
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	})
}

// seriesNamed are the metric names an expression selects.
func seriesNamed(t *testing.T, alert, expr string) []string {
	t.Helper()
	e, err := parser.ParseExpr(expr)
	if err != nil {
		t.Fatalf("%s: %v", alert, err)
	}
	var names []string
	for _, sel := range parser.ExtractSelectors(e) {
		found := false
		for _, m := range sel {
			if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
				names, found = append(names, m.Value), true
			}
		}
		if !found {
			t.Errorf("%s: a selector without a metric name (%v): which series it reads cannot be checked", alert, sel)
		}
	}
	return names
}

// anchor is the fragment a heading gets on GitHub: lower case, spaces as
// hyphens, punctuation dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// scrapePayd runs payd as operators do (TLS, an operator token, Redis
// when the tests have one), answers one request, and returns the names of
// the series its /metrics exports, and whether it ran with Redis. It also
// checks that the certificate's expiry is the served certificate's.
func scrapePayd(t *testing.T) (map[string]bool, bool) {
	dir := t.TempDir()
	certFile, keyFile := writeSelfSigned(t, dir)
	addr, adminAddr := freeAddr(t), freeAddr(t)
	args := []string{"--data-dir", dir, "--addr", addr, "--admin-addr", adminAddr, "--admin-token", "adm_" + strings.Repeat("m", 24),
		"--tls-cert", certFile, "--tls-key", keyFile}
	redisURL := os.Getenv("PAYD_TEST_REDIS_URL")
	if redisURL != "" {
		args = append(args, "--redis-url", redisURL)
	}
	srv := startServe(t, args...)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	waitHealthy(t, client, "https://"+addr, srv)
	resp, err := client.Get("https://" + adminAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	tp := expfmt.NewTextParser(model.UTF8Validation)
	families, err := tp.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	exported := map[string]bool{}
	for name, f := range families {
		exported[name] = true
		switch f.GetType() {
		case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
			exported[name+"_bucket"], exported[name+"_sum"], exported[name+"_count"] = true, true, true
		case dto.MetricType_SUMMARY:
			exported[name+"_sum"], exported[name+"_count"] = true, true
		}
	}
	pemBytes, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(pemBytes)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if f := families["payd_tls_certificate_expiry_timestamp_seconds"]; f == nil || len(f.GetMetric()) != 1 ||
		f.GetMetric()[0].GetGauge().GetValue() != float64(cert.NotAfter.Unix()) {
		t.Errorf("payd_tls_certificate_expiry_timestamp_seconds = %v, want the certificate's NotAfter %d", f, cert.NotAfter.Unix())
	}
	return exported, redisURL != ""
}
