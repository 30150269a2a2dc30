package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentileAndMedian(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	if p := percentile(d, 0.50); p != 50*time.Millisecond {
		t.Errorf("p50 = %v", p)
	}
	if p := percentile(d, 0.99); p != 99*time.Millisecond {
		t.Errorf("p99 = %v", p)
	}
	if p := percentile(nil, 0.99); p != 0 {
		t.Errorf("p99 of nothing = %v", p)
	}
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median = %v", m)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median = %v", m)
	}
}

// A phase stops at whichever bound comes first, and counts errors apart
// from successes.
func TestRunPhaseBounds(t *testing.T) {
	ctx := context.Background()
	s := runPhase(ctx, "x", 4, time.Minute, 100, func(int) op {
		return func(context.Context, int64) error { return nil }
	})
	if s.Ops != 100 || s.Errors != 0 {
		t.Fatalf("count bound: %+v", s)
	}
	start := time.Now()
	s = runPhase(ctx, "x", 2, 100*time.Millisecond, 1<<40, func(int) op {
		return func(_ context.Context, n int64) error {
			time.Sleep(time.Millisecond)
			if n%2 == 0 {
				return errors.New("even")
			}
			return nil
		}
	})
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("time bound not kept: %v", el)
	}
	if s.Ops == 0 || s.Errors == 0 || len(s.ErrorSamples) != 1 || s.PerSecond <= 0 || s.P99Ms < s.P50Ms {
		t.Fatalf("time bound: %+v", s)
	}
}

func TestProcParsers(t *testing.T) {
	hwm, rss, ok := parseStatusMemory("Name:\tpayd\nVmPeak:\t  900000 kB\nVmHWM:\t   51200 kB\nVmRSS:\t   40960 kB\n")
	if !ok || hwm != 50 || rss != 40 {
		t.Fatalf("status: %v %v %v", hwm, rss, ok)
	}
	// A command name with spaces and parentheses must not shift fields.
	stat := "1234 (pay d) x) S 1 1 1 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 8 0 100 0 0"
	if ticks, ok := parseProcStat(stat); !ok || ticks != 300 {
		t.Fatalf("proc stat: %v %v", ticks, ok)
	}
	busy, steal, total, ok := parseMachineStat("cpu  100 10 50 800 20 5 5 10 7 0\ncpu0 1 2 3\n")
	if !ok || busy != 170 || steal != 10 || total != 1000 {
		t.Fatalf("machine stat: %v %v %v %v", busy, steal, total, ok)
	}
	if m := cpuModel("processor\t: 0\nmodel name\t: Some CPU @ 2.0GHz\n"); m != "Some CPU @ 2.0GHz" {
		t.Fatalf("cpu model %q", m)
	}
	mounts := "/dev/vda / ext4 rw 0 0\ntmpfs /tmp tmpfs rw 0 0\n"
	if fs := fsTypeFrom(mounts, "/tmp/paydbench-1"); fs != "tmpfs on /tmp" {
		t.Fatalf("fs %q", fs)
	}
	if fs := fsTypeFrom(mounts, "/tmpx/a"); fs != "ext4 on /" {
		t.Fatalf("fs %q", fs)
	}
}

func TestTargets(t *testing.T) {
	dbs := []DatabaseResult{
		{Database: "postgres", ServerPeakRSSMiB: 60, Export: &ExportRun{Rows: 100000, Bytes: 17 << 20, RSSBeforeMiB: 70, RSSPeakMiB: 90}, Phases: []Summary{
			{Phase: "create", Clients: 16, PerSecond: 700, P99Ms: 30},
			{Phase: "create", Clients: 64, PerSecond: 800, P99Ms: 90},
			{Phase: "floor", Clients: 16, PerSecond: 1000, P99Ms: 10},
			{Phase: "floor", Clients: 64, PerSecond: 1000, P99Ms: 40},
			{Phase: "list", Clients: 16, PerSecond: 400, P99Ms: 40},
			{Phase: "dashboard", Clients: 16, PerSecond: 180, P99Ms: 80},
		}},
		{Database: "sqlite", Skipped: "off"},
	}
	runs := []Stats{
		{Phase: "create", Clients: 16, PerSecond: 600, P99Ms: 20}, {Phase: "floor", Clients: 16, PerSecond: 1000, P99Ms: 10},
		{Phase: "create", Clients: 16, PerSecond: 800, P99Ms: 40}, {Phase: "floor", Clients: 16, PerSecond: 1000, P99Ms: 10},
	}
	dbs[0].Ratios = ratios(dbs[0].Phases, runs)
	if r := dbs[0].Ratios[0]; r.Clients != 16 || r.ThroughputMin != 0.6 || r.ThroughputMax != 0.8 || r.P99Min != 2 || r.P99Max != 4 {
		t.Fatalf("per-run ratios: %+v", r)
	}
	got := map[string]Target{}
	for _, tg := range evaluateTargets(dbs) {
		got[tg.Name] = tg
	}
	check := func(name string, assessed, met bool) {
		t.Helper()
		tg, ok := got[name]
		if !ok || tg.Assessed != assessed || tg.Met != met {
			t.Errorf("%s: %+v", name, tg)
		}
	}
	check("postgres, 16 clients: payments/s vs the floor", true, true) // 70%
	check("postgres, 64 clients: p99 vs the floor's p99", true, false) // 2.25×
	check("sqlite, 16 clients: payments/s vs the floor", false, false)
	check("postgres: server peak RSS under load", true, true)
	check("postgres: dashboard payments pages/s vs the API's list pages/s", true, false) // 45%
	check("sqlite: dashboard payments pages/s vs the API's list pages/s", false, false)
	check("sqlite: server peak RSS under load", false, false)
	check("postgres: server RSS growth during the CSV export", true, false) // 20 MiB
	check("sqlite: server RSS growth during the CSV export", false, false)
	dbs[0].Export.RSSPeakMiB = 74
	for _, tg := range evaluateTargets(dbs) {
		got[tg.Name] = tg
	}
	check("postgres: server RSS growth during the CSV export", true, true) // 4 MiB

	// Balance and refunds at the largest seeded shop against the smallest.
	check("sqlite, 16 clients: balance/s at the largest seeded shop vs the smallest", false, false)
	scaled := []DatabaseResult{
		{Database: "sqlite", SeededPayments: 10_000, Phases: []Summary{{Phase: "balance", Clients: 16, PerSecond: 1000}, {Phase: "refund", Clients: 16, PerSecond: 400}}},
		{Database: "sqlite", SeededPayments: 1_000_000, Phases: []Summary{{Phase: "balance", Clients: 16, PerSecond: 950}, {Phase: "refund", Clients: 16, PerSecond: 300}}},
	}
	for _, tg := range evaluateTargets(scaled) {
		got[tg.Name] = tg
	}
	check("sqlite, 16 clients: balance/s at the largest seeded shop vs the smallest", true, true) // 95%
	check("sqlite, 16 clients: refund/s at the largest seeded shop vs the smallest", true, false) // 75%
	check("postgres, 16 clients: refund/s at the largest seeded shop vs the smallest", false, false)
}

func TestFlagsRefuseRemoteDatabase(t *testing.T) {
	var out strings.Builder
	if _, err := parseFlags([]string{"--database-url", "postgres://u@db.example.com/x"}, &out); err == nil {
		t.Fatal("a remote database URL was accepted")
	}
	c, err := parseFlags([]string{"--clients", "2,8", "--databases", "sqlite"}, &out)
	if err != nil || len(c.clients) != 2 || c.floorDuration != c.duration {
		t.Fatalf("%+v %v", c, err)
	}
	if len(c.phases) != len(allPhases) {
		t.Fatalf("default phases %q", c.phases)
	}
	if c, err := parseFlags([]string{"--phases", "create, floor"}, &out); err != nil || len(c.phases) != 2 {
		t.Fatalf("--phases create,floor: %+v %v", c, err)
	}
	if c, err := parseFlags([]string{"--seed-payments", "10000,1000000"}, &out); err != nil || len(c.seedPayments) != 2 {
		t.Fatalf("--seed-payments 10000,1000000: %+v %v", c, err)
	}
	if _, err := parseFlags([]string{"--seed-payments", "-1"}, &out); err == nil {
		t.Fatal("a negative seed was accepted")
	}
	if _, err := parseFlags([]string{"--phases", "create,nope"}, &out); err == nil {
		t.Fatal("an unknown phase was accepted")
	}
	if shellQuote("a b") != "'a b'" || shellQuote("--x=1") != "--x=1" || shellQuote("it's") != `'it'\''s'` {
		t.Fatal("shell quoting")
	}
}

// The client can reach 127.0.0.1 only.
func TestLoopbackClientRefusesOtherHosts(t *testing.T) {
	c := loopbackClient(1, time.Second)
	_, err := c.Get("http://localhost:1/")
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1 only") {
		t.Fatalf("err = %v", err)
	}
}

// The workers against a stand-in for the API: create remembers ids, get
// reads them, list follows next_cursor to the end and starts over, balance
// reads the balance.
func TestWorkersAgainstFakeAPI(t *testing.T) {
	var mu sync.Mutex
	var ids []string
	keys := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "sh_1" || p != "sk" {
			w.WriteHeader(401)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Method == "POST" && r.URL.Path == "/v1/payments":
			var in struct {
				OrderID string `json:"order_id"`
			}
			json.NewDecoder(r.Body).Decode(&in)
			k := r.Header.Get("Idempotency-Key")
			if k == "" || keys[k] || in.OrderID != k {
				w.WriteHeader(409)
				return
			}
			keys[k] = true
			id := fmt.Sprintf("pay_%d", len(ids))
			ids = append(ids, id)
			w.WriteHeader(201)
			fmt.Fprintf(w, `{"id":%q}`, id)
		case r.URL.Path == "/v1/payments":
			if r.URL.Query().Get("cursor") == "" {
				fmt.Fprint(w, `{"items":[],"next_cursor":"c/1"}`)
			} else {
				fmt.Fprint(w, `{"items":[],"next_cursor":null}`)
			}
		case strings.HasPrefix(r.URL.Path, "/v1/payments/pay_"):
			fmt.Fprint(w, `{}`)
		case r.URL.Path == "/v1/balance":
			fmt.Fprint(w, `{"items":[{"currency":"RUB","available":{"value":"1.00","currency":"RUB"}}]}`)
		default:
			w.WriteHeader(404)
		}
	}))
	defer srv.Close()
	a := &api{client: loopbackClient(4, 5*time.Second), base: srv.URL, shopID: "sh_1", secret: "sk", run: "t"}
	ctx := context.Background()
	for _, ph := range []struct {
		name string
		w    func(int) op
	}{{"create", a.createWorker}, {"get", a.getWorker}, {"list", a.listWorker}, {"balance", a.balanceWorker}} {
		s := runPhase(ctx, ph.name, 4, time.Minute, 40, ph.w)
		if s.Ops != 40 || s.Errors != 0 {
			t.Fatalf("%s: %+v", ph.name, s)
		}
	}
	if len(a.ids) != 40 {
		t.Fatalf("%d ids remembered", len(a.ids))
	}
}

// The floor writes its four rows per transaction into payd's own tables.
func TestFloorSQLite(t *testing.T) {
	ctx := context.Background()
	f, err := openFloor(ctx, "", t.TempDir(), "t")
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	s := runPhase(ctx, "floor", 4, 10*time.Second, 20, f.worker)
	if s.Ops != 20 || s.Errors != 0 {
		t.Fatalf("%+v", s)
	}
	// A second phase must not collide with the first's keys.
	if s := runPhase(ctx, "floor", 2, 10*time.Second, 5, f.worker); s.Ops != 5 || s.Errors != 0 {
		t.Fatalf("second phase: %+v", s)
	}
	for _, table := range []string{"idempotency_keys", "payments", "events", "river_job"} {
		var n int
		if err := f.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table).Scan(&n); err != nil || n != 25 {
			t.Errorf("%s: %d rows, %v", table, n, err)
		}
	}
	if v := f.version(ctx); !strings.HasPrefix(v, "SQLite 3.") {
		t.Errorf("version %q", v)
	}
}

// The same on PostgreSQL, when the suite is given one (as `make test` is
// with PAYD_TEST_DATABASE_URL); its schema is dropped afterwards.
func TestFloorPostgres(t *testing.T) {
	base := os.Getenv("PAYD_TEST_DATABASE_URL")
	if base == "" {
		t.Skip("PAYD_TEST_DATABASE_URL is not set")
	}
	ctx := context.Background()
	run := randomHex(6)
	drop, urls, err := pgSchemas(ctx, base, "paydbench_test_"+run)
	if err != nil {
		t.Fatal(err)
	}
	defer drop()
	f, err := openFloor(ctx, urls[0], "", run)
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	if s := runPhase(ctx, "floor", 4, 10*time.Second, 20, f.worker); s.Ops != 20 || s.Errors != 0 {
		t.Fatalf("%+v", s)
	}
	var n int
	if err := f.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM river_job WHERE state = 'scheduled'").Scan(&n); err != nil || n != 20 {
		t.Fatalf("river_job: %d rows, %v", n, err)
	}
}

// CPU time splits into the server, the database backends (one of them
// new during the phase), this program and the rest.
func TestCPUBetween(t *testing.T) {
	a := cpuSnap{machineOK: true, serverOK: true, busy: 1000, total: 2000, server: 100, self: 50,
		database: map[int]uint64{7: 10}}
	b := cpuSnap{machineOK: true, serverOK: true, busy: 1100, steal: 10, total: 2200, server: 140, self: 60,
		database: map[int]uint64{7: 30, 8: 5}}
	u := cpuBetween(a, b, 10)
	// ticks are 10 ms: server 40 ticks, database 20+5, self 10, other 100-75.
	if u.ServerMsPerOp != 40 || u.DatabaseMsPerOp != 25 || u.BenchMsPerOp != 10 || u.OtherMsPerOp != 25 ||
		u.MachineBusyPct != 50 || u.StealPct != 5 {
		t.Fatalf("%+v", u)
	}
}

func TestParseBusyJobs(t *testing.T) {
	metrics := `# HELP payd_jobs Jobs in the durable queue by state.
# TYPE payd_jobs gauge
payd_jobs{state="available"} 12
payd_jobs{state="completed"} 4000
payd_jobs{state="running"} 3
payd_jobs{state="scheduled"} 1000
`
	if n, err := parseBusyJobs(strings.NewReader(metrics)); err != nil || n != 15 {
		t.Fatalf("busy = %d, %v; want 15", n, err)
	}
	if _, err := parseBusyJobs(strings.NewReader("go_goroutines 8\n")); err == nil {
		t.Fatal("metrics without payd_jobs were read as idle")
	}
}

// The dashboard phase signs in as a browser does and walks the pages by
// their "older" links, starting over at the end.
func TestDashboardWorker(t *testing.T) {
	var pages atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/dashboard/signin" && r.Method == "GET":
			http.SetCookie(w, &http.Cookie{Name: "payd_pre", Value: "p"})
			fmt.Fprint(w, `<input type="hidden" name="csrf" value="tok&#43;1">`)
		case r.URL.Path == "/dashboard/signin":
			_ = r.ParseForm()
			if c, _ := r.Cookie("payd_pre"); c == nil || r.PostForm.Get("csrf") != "tok+1" || r.PostForm.Get("password") != "pw" {
				w.WriteHeader(403)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: "payd_session", Value: "s"})
			http.Redirect(w, r, "/dashboard/", http.StatusSeeOther)
		case r.URL.Path == "/dashboard/test/payments":
			if c, _ := r.Cookie("payd_session"); c == nil {
				w.WriteHeader(303)
				return
			}
			n := pages.Add(1)
			next := ""
			if r.URL.Query().Get("cursor") == "" {
				next = `<a href="?cursor=c2&amp;q=" rel="next">older</a>`
			} else if r.URL.Query().Get("cursor") != "c2" {
				w.WriteHeader(400)
				return
			}
			fmt.Fprintf(w, `<table id="payments"><tr><td>%d</td></tr></table>%s`, n, next)
		default:
			w.WriteHeader(404)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	d, err := signIn(ctx, srv.Client(), srv.URL, "shp_1", dashboardUser{Email: "a@b", Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	s := runPhase(ctx, "dashboard", 1, time.Minute, 5, d.pagesWorker)
	if s.Ops != 5 || s.Errors != 0 || pages.Load() != 5 {
		t.Fatalf("%+v, %d pages", s, pages.Load())
	}
	if _, err := signIn(ctx, srv.Client(), srv.URL, "shp_1", dashboardUser{Email: "a@b", Password: "wrong"}); err == nil {
		t.Fatal("a refused sign-in gave a session")
	}
}

// TestCeilingTargets: a GET, a list page and an events page are each
// taken against their own additive ceiling, 1/(1/HTTP + 1/database), the
// events page sharing the list's database floor; SQLite's ceiling is the
// HTTP floor alone; a phase without its HTTP floor is not measured.
func TestCeilingTargets(t *testing.T) {
	pg := DatabaseResult{Database: "postgres", Phases: []Summary{
		{Phase: "get", Clients: 16, PerSecond: 400, P99Ms: 6},
		{Phase: "httpfloor", Clients: 16, PerSecond: 1000, P99Ms: 2},
		{Phase: "pgbench-S", Clients: 16, PerSecond: 1000, P99Ms: 1},
		{Phase: "list", Clients: 16, PerSecond: 100, P99Ms: 30},
		{Phase: "httpfloor-list", Clients: 16, PerSecond: 300, P99Ms: 8},
		{Phase: "pgbench-list", Clients: 16, PerSecond: 600, P99Ms: 2},
		{Phase: "events", Clients: 16, PerSecond: 240, P99Ms: 10},
		{Phase: "httpfloor-events", Clients: 16, PerSecond: 600, P99Ms: 3},
	}}
	sq := DatabaseResult{Database: "sqlite", Phases: []Summary{
		{Phase: "list", Clients: 16, PerSecond: 270, P99Ms: 10},
		{Phase: "httpfloor-list", Clients: 16, PerSecond: 300, P99Ms: 5},
		{Phase: "events", Clients: 16, PerSecond: 100, P99Ms: 10},
	}}
	for _, d := range []*DatabaseResult{&pg, &sq} {
		d.Ratios = ratios(d.Phases, nil)
	}
	for _, c := range []struct {
		db         *DatabaseResult
		floor      string
		throughput float64
	}{{&pg, "ceiling", 0.8}, {&pg, "list ceiling", 0.5}, {&pg, "events ceiling", 0.8}, {&sq, "list ceiling", 0.9}} {
		var r *Ratio
		for i := range c.db.Ratios {
			if c.db.Ratios[i].Clients == 16 && c.db.Ratios[i].Floor == c.floor {
				r = &c.db.Ratios[i]
			}
		}
		if r == nil || math.Abs(r.Throughput-c.throughput) > 1e-9 {
			t.Errorf("%s %s: %+v, want throughput %.2f", c.db.Database, c.floor, r, c.throughput)
		}
	}
	got := map[string]Target{}
	for _, tg := range evaluateTargets([]DatabaseResult{pg, sq}) {
		got[tg.Name] = tg
	}
	for name, want := range map[string][2]bool{ // assessed, met
		"postgres, 16 clients: GET/s vs its additive ceiling (HTTP floor + pgbench -S)":               {true, true},
		"postgres, 16 clients: list pages/s vs their additive ceiling (HTTP floor + pgbench range)":   {true, false},
		"postgres, 16 clients: events pages/s vs their additive ceiling (HTTP floor + pgbench range)": {true, true},
		"sqlite, 16 clients: list pages/s vs their additive ceiling (HTTP floor + pgbench range)":     {true, true},
		"sqlite, 16 clients: events pages/s vs their additive ceiling (HTTP floor + pgbench range)":   {false, false},
	} {
		if tg, ok := got[name]; !ok || tg.Assessed != want[0] || tg.Met != want[1] {
			t.Errorf("%s: %+v, want assessed %v met %v", name, tg, want[0], want[1])
		}
	}
}

// TestSlowestDashPage: the dashboard pages' target is the slowest page's
// p99 at 16 clients, other client counts left out; without a page read it
// is not measured.
func TestSlowestDashPage(t *testing.T) {
	pages := func(p99s ...float64) *DatabaseResult {
		d := &DatabaseResult{Database: "postgres", Phases: []Summary{{Phase: "dashboard", Clients: 16, P99Ms: 500}}}
		for i, p := range p99s {
			d.Phases = append(d.Phases, Summary{Phase: fmt.Sprintf("%spage%d", dashPagePrefix, i), Clients: 16, P99Ms: p, PerSecond: 100})
		}
		return d
	}
	// A page at 64 clients is slower and does not count.
	at64 := pages(20)
	at64.Phases = append(at64.Phases, Summary{Phase: dashPagePrefix + "home", Clients: 64, P99Ms: 400})
	// The report prints every page's row, by the page's name.
	var out strings.Builder
	writeTable(&out, &Report{Databases: []DatabaseResult{*pages(20, 99.9)}})
	for _, want := range []string{"dash-page0", "dash-page1", "dashboard"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report has no row %q:\n%s", want, out.String())
		}
	}
	for _, c := range []struct {
		name          string
		d             *DatabaseResult
		assessed, met bool
		slowest       string
	}{
		{"none read", &DatabaseResult{Database: "postgres"}, false, false, ""},
		{"no result", nil, false, false, ""},
		{"all under", pages(20, 99.9, 40), true, true, "page1"},
		{"one over", pages(20, 100, 40), true, false, "page1"},
		{"64 clients left out", at64, true, true, "page0"},
	} {
		tg := slowestDashPage("postgres", c.d)
		if tg.Assessed != c.assessed || tg.Met != c.met || !strings.Contains(tg.Got, c.slowest) {
			t.Errorf("%s: %+v, want assessed %v met %v naming %q", c.name, tg, c.assessed, c.met, c.slowest)
		}
	}
}

// TestDashPageWorker: each page of the dashpages phase is read with the
// session and fails on any answer but 200; the pages are the shop's test
// data's, the payment's own among them.
func TestDashPageWorker(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, _ := r.Cookie("payd_session"); c == nil || r.URL.Query().Get("shop") != "shp_1" {
			w.WriteHeader(303)
			return
		}
		if r.URL.Path == "/dashboard/test/audit" {
			w.WriteHeader(500)
			return
		}
		fmt.Fprint(w, "<p>page</p>")
	}))
	defer srv.Close()
	d := &desk{client: srv.Client(), base: srv.URL, shopID: "shp_1", cookie: "payd_session=s"}
	byName := map[string]string{}
	for _, p := range d.pages("pay_1") {
		byName[p.name] = p.path
	}
	if byName["payment"] != "/dashboard/test/payments/pay_1?shop=shp_1" || byName["home"] != "/dashboard/test/?shop=shp_1" {
		t.Fatalf("pages: %v", byName)
	}
	ctx := context.Background()
	if s := runPhase(ctx, "dash-payment", 1, time.Minute, 3, d.pageWorker(byName["payment"])); s.Ops != 3 || s.Errors != 0 {
		t.Errorf("payment page: %+v", s)
	}
	if s := runPhase(ctx, "dash-audit", 1, time.Minute, 3, d.pageWorker(byName["audit"])); s.Errors != 3 {
		t.Errorf("a page answering 500 counted as read: %+v", s)
	}
	anon := &desk{client: srv.Client(), base: srv.URL, shopID: "shp_1"}
	if s := runPhase(ctx, "dash-home", 1, time.Minute, 2, anon.pageWorker(byName["home"])); s.Errors != 2 {
		t.Errorf("a page read without the session counted as read: %+v", s)
	}
}
