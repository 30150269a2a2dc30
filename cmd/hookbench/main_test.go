package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestParsePath(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind string
		n    int
		ok   bool
	}{
		{"/ok/0", kindOK, 0, true},
		{"/slow/12", kindSlow, 12, true},
		{"/fail/3/", kindFail, 3, true},
		{"/ok", "", 0, false},
		{"/other/1", "", 0, false},
		{"/ok/x", "", 0, false},
		{"/ok/-1", "", 0, false},
	} {
		kind, n, ok := parsePath(c.in)
		if kind != c.kind || n != c.n || ok != c.ok {
			t.Errorf("parsePath(%q) = %q, %d, %v", c.in, kind, n, ok)
		}
	}
}

func TestPercentileAndMedian(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	if p := percentile(d, 50); p != 50*time.Millisecond {
		t.Errorf("p50 = %v", p)
	}
	if p := percentile(d, 99); p != 99*time.Millisecond {
		t.Errorf("p99 = %v", p)
	}
	if p := percentile(d[:1], 99); p != time.Millisecond {
		t.Errorf("p99 of one = %v", p)
	}
	if p := percentile(nil, 50); p != 0 {
		t.Errorf("p50 of none = %v", p)
	}
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median = %v", m)
	}
	if m := median([]int{4, 1, 3, 2}); m != 2 {
		t.Errorf("median of even = %v", m)
	}
}

func TestScenarioKinds(t *testing.T) {
	sc := scenario{OK: 80, Slow: 10, Fail: 10}
	kinds := sc.kinds()
	count := map[string]int{}
	for i, k := range kinds {
		count[k]++
		// Spread out: no two slow or failing endpoints side by side.
		if i > 0 && k != kindOK && kinds[i-1] == k {
			t.Errorf("%s endpoints bunched at %d", k, i)
		}
	}
	if count[kindOK] != 80 || count[kindSlow] != 10 || count[kindFail] != 10 {
		t.Fatalf("kinds = %v", count)
	}
	if got := (scenario{OK: 1, Events: 10_000}).scaledEvents(0.1); got != 1000 {
		t.Errorf("scaled events = %d", got)
	}
	if got := (scenario{OK: 100, Events: 100}).scaledEvents(0.001); got != 1 {
		t.Errorf("scaled events floor = %d", got)
	}
}

func TestPacer(t *testing.T) {
	burst := &pacer{start: time.Now(), total: 250, perTx: 100}
	var sizes []int
	for {
		n, wait, done := burst.claim()
		if done {
			break
		}
		if wait != 0 {
			t.Fatalf("a burst waits %v", wait)
		}
		sizes = append(sizes, n)
	}
	if len(sizes) != 3 || sizes[2] != 50 {
		t.Fatalf("burst batches = %v", sizes)
	}
	// Paced at 10 events per second, the second event is not due at once.
	paced := &pacer{start: time.Now(), total: 5, perTx: 100, perSec: 10}
	if n, _, _ := paced.claim(); n != 1 {
		t.Fatalf("first paced batch = %d", n)
	}
	if n, wait, done := paced.claim(); n != 0 || done || wait <= 0 || wait > 100*time.Millisecond {
		t.Fatalf("second paced claim = %d, %v, %v", n, wait, done)
	}
}

func TestParseFlags(t *testing.T) {
	c, err := parseFlags([]string{"--scale", "0.1", "--scenarios", "1-endpoint,100-mixed", "--loads", "burst,500", "--databases", "sqlite"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.scenarios) != 2 || c.scenarios[1].Name != "100-mixed" || len(c.loads) != 2 || c.loads[1].Rate != 500 || c.urlGiven {
		t.Fatalf("config = %+v", c)
	}
	for _, bad := range [][]string{{"--loads", "fast"}, {"--scenarios", "none"}, {"--databases", "mysql"}, {"--scale", "0"}} {
		if _, err := parseFlags(bad, &bytes.Buffer{}); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestLoopbackOnly(t *testing.T) {
	for _, ok := range []string{defaultDatabaseURL, "postgresql://u@localhost/db", "postgres://[::1]:5432/x"} {
		if err := loopbackOnly(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"postgres://db.example.com/x", "postgres://10.0.0.1/x", "mysql://127.0.0.1/x"} {
		if err := loopbackOnly(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestCPUModel(t *testing.T) {
	if m := cpuModel("processor\t: 0\nmodel name\t: Some CPU @ 2.0GHz\n"); m != "Some CPU @ 2.0GHz" {
		t.Fatalf("cpu model %q", m)
	}
}

// TestRunOnceSQLite runs a small mixed scenario end to end on SQLite: the
// service, the HTTPS receiver and the counting must agree on every
// delivery's first attempt.
func TestRunOnceSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service")
	}
	rc := newReceiver(50 * time.Millisecond)
	defer rc.Close()
	var logs bytes.Buffer
	cfg := runConfig{scale: 1, batch: 4, maxPerTx: 1000, timeout: 60 * time.Second, poll: 20 * time.Millisecond,
		logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelError}))}
	sc := scenario{Name: "small", OK: 2, Slow: 1, Fail: 1, Events: 6}
	res, err := runOnce(context.Background(), cfg, rc, backend{Name: "sqlite"}, sc, load{Name: "burst"})
	if err != nil {
		t.Fatal(err)
	}
	if res.TimedOut || res.Got != 24 || res.Healthy != 12 || res.SlowN != 6 || res.FailN != 6 || res.Strays != 0 {
		t.Fatalf("result = %+v", res)
	}
	if res.HealthyP50 <= 0 || res.HealthyP99 < res.HealthyP50 || res.HealthyRate <= 0 || res.StaleSummaries != 0 {
		t.Fatalf("figures = %+v", res)
	}
	var out bytes.Buffer
	report(&out, &config{run: cfg, runs: 1, slowDelay: 50 * time.Millisecond}, describeMachine(), []result{res})
	if !strings.Contains(out.String(), "small") {
		t.Fatalf("report:\n%s", out.String())
	}
	// The job queue may log the cancellation of its own maintenance work
	// while it stops; anything else is a failure.
	for line := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
		if line != "" && !strings.Contains(line, "context canceled") {
			t.Errorf("logged: %s", line)
		}
	}
}
