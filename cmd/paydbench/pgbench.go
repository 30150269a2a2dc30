package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// pgbenchFloor is the floor's transaction run by pgbench, PostgreSQL's
// own load generator in C: the database's limit for the same four INSERTs
// without a Go driver, database/sql or anything of this program between.
// It writes into the floor's scratch schema and reports as a phase of
// its own, "pgbench".
type pgbenchFloor struct {
	bin, baseURL, schema, dir, script string
	// listScript is runList's page read.
	listScript string
	// selectReady: pgbench's own tables, for runSelect and runList, are
	// made.
	selectReady bool
}

// freeConnections is how many more client connections the server takes:
// pgbench with more clients than that would fail to start, while payd's
// pool and the Go floor's hold theirs open.
func freeConnections(ctx context.Context, db *sql.DB) (int, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT current_setting('max_connections')::int - count(*)
		FROM pg_stat_activity WHERE backend_type = 'client backend'`).Scan(&n)
	return n, err
}

// findPgbench returns the pgbench of the machine's PostgreSQL packages,
// or "" when there is none.
func findPgbench() string {
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
	if len(found) == 0 {
		return ""
	}
	slices.Sort(found)
	return found[len(found)-1]
}

// newPgbenchFloor writes the script: the floor's rows with the floor's
// documents, keys made unique by a random number per transaction (one in
// 9×10^18: a collision would fail one transaction, counted as an error).
func newPgbenchFloor(f *floor, bin, baseURL, schema, dir string) (*pgbenchFloor, error) {
	// Literals are escape strings with every colon written \x3a: pgbench
	// takes ":name" anywhere in a line for a variable, a time's minutes
	// included, while PostgreSQL reads the escape when it parses the
	// statement, once, so the stored bytes are the documents'.
	lit := func(s string) string {
		return "E'" + strings.NewReplacer(`\`, `\\`, "'", `\'`, ":", `\x3a`).Replace(s) + "'"
	}
	const now = `(extract(epoch from now()) * 1000000)::bigint`
	const day = `86400000000`
	script := strings.Join([]string{
		`\set r random(1, 9000000000000000000)`,
		`BEGIN;`,
		`INSERT INTO idempotency_keys (shop_id, mode, idem_key, request_hash, status, body, created_at, expires_at) VALUES (` +
			lit(f.shopID) + `, 'test', 'pgbench-' || :r, '\x` + hex.EncodeToString(f.reqHash) + `'::bytea, 201, ` +
			`convert_to(` + lit(string(f.idemBody)) + `, 'UTF8'), ` + now + `, ` + now + ` + ` + day + `);`,
		`INSERT INTO payments (id, shop_id, test, status, order_id, amount, currency, created_at, checkout_token_hash, provider, provider_payment_id, doc, expires_at, view) VALUES (` +
			`'pay_' || lpad(:r::text, 26, '0'), ` + lit(f.shopID) + `, true, 'pending', 'pgbench-' || :r, 10000, 'RUB', ` + now +
			`, decode(md5(:r::text) || md5(:r::text || 'x'), 'hex'), '', '', ` + lit(string(f.payDoc)) + `, ` + now + ` + ` + day + `, ` + lit(string(f.respBody)) + `);`,
		`INSERT INTO events (id, shop_id, merchant_id, test, type, object_id, created_at, body, delivery_status, delivery_attempts) VALUES (` +
			`'evt_' || lpad(:r::text, 26, '0'), ` + lit(f.shopID) + `, ` + lit(f.merchID) + `, true, 'payment.created', 'pay_' || lpad(:r::text, 26, '0'), ` +
			now + `, ` + lit(string(f.eventBody)) + `, 'pending', 0);`,
		`INSERT INTO river_job (args, kind, max_attempts, priority, queue, scheduled_at, state) VALUES (` +
			`('{"payment_id":"pay_' || lpad(:r::text, 26, '0') || '"}')::jsonb, 'payment_expire', 25, 1, 'default', now() + interval '1 day', 'scheduled');`,
		`END;`,
	}, "\n") + "\n"
	p := &pgbenchFloor{bin: bin, baseURL: baseURL, schema: schema, dir: dir, script: filepath.Join(dir, "floor.sql"),
		listScript: filepath.Join(dir, "list.sql")}
	const list = "\\set a random(1, 99899)\nSELECT aid, bid, abalance, filler FROM pgbench_accounts WHERE aid >= :a ORDER BY aid LIMIT 101;\n"
	if err := os.WriteFile(p.listScript, []byte(list), 0o600); err != nil {
		return nil, err
	}
	return p, os.WriteFile(p.script, []byte(script), 0o600)
}

var pgbenchTPS = regexp.MustCompile(`(?m)^tps = ([0-9.]+)`)

// run is one pgbench phase: clients connections for d, each transaction's
// latency logged to files and read back for the percentiles. Statements
// are prepared (-M prepared), as the Go floor's and the service's are:
// parsing the documents' literals on every transaction would measure
// PostgreSQL's parser, not its writes.
// Its connections live only as long as the run, so their CPU is not
// split out as the other phases' is.
func (p *pgbenchFloor) run(ctx context.Context, clients int, d time.Duration) Stats {
	return p.runArgs(ctx, "pgbench", clients, d, "-f", p.script)
}

// runSelect is pgbench's built-in select-only transaction (-S), one
// indexed read of pgbench_accounts by its key, prepared: the database's
// limit for "read one row", the half of a GET's ceiling that is the
// database's.
func (p *pgbenchFloor) runSelect(ctx context.Context, clients int, d time.Duration) Stats {
	if err := p.initSelect(ctx); err != nil {
		return Stats{Phase: "pgbench-S", Clients: clients, ErrorSamples: []string{err.Error()}}
	}
	return p.runArgs(ctx, "pgbench-S", clients, d, "-S")
}

// runList reads a page of 101 rows of pgbench_accounts in key order from a
// random key, prepared: one index range read, the database's half of a
// list page's ceiling (payd reads 101 rows for a page of 100, the last to
// know whether a next page exists). Its rows are smaller than payments'
// (about 100 bytes against 1 KiB), so it is the faster floor.
func (p *pgbenchFloor) runList(ctx context.Context, clients int, d time.Duration) Stats {
	if err := p.initSelect(ctx); err != nil {
		return Stats{Phase: "pgbench-list", Clients: clients, ErrorSamples: []string{err.Error()}}
	}
	return p.runArgs(ctx, "pgbench-list", clients, d, "-f", p.listScript)
}

// initSelect makes pgbench's tables once, at scale 1 (10^5 rows, cached
// like a busy shop's recent payments), in the floor's schema.
func (p *pgbenchFloor) initSelect(ctx context.Context) error {
	if p.selectReady {
		return nil
	}
	cmd := exec.CommandContext(ctx, p.bin, "-i", "-q", "-s", "1", p.baseURL)
	cmd.Env = append(os.Environ(), "PGOPTIONS=-c search_path="+p.schema, "PGAPPNAME=paydbench-pgbench")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgbench -i: %v: %s", err, lastLines(string(out), 3))
	}
	p.selectReady = true
	return nil
}

func (p *pgbenchFloor) runArgs(ctx context.Context, phase string, clients int, d time.Duration, script ...string) Stats {
	s := Stats{Phase: phase, Clients: clients}
	logDir, err := os.MkdirTemp(p.dir, "pgbench-log-")
	if err != nil {
		s.ErrorSamples = []string{err.Error()}
		return s
	}
	defer os.RemoveAll(logDir)
	secs := max(1, int(d.Round(time.Second)/time.Second))
	args := append([]string{"-n", "-M", "prepared"}, script...)
	args = append(args, "-c", strconv.Itoa(clients), "-j", strconv.Itoa(min(clients, 4)),
		"-T", strconv.Itoa(secs), "-l", "--log-prefix", filepath.Join(logDir, "tx"), p.baseURL)
	cmd := exec.CommandContext(ctx, p.bin, args...)
	cmd.Env = append(os.Environ(), "PGOPTIONS=-c search_path="+p.schema, "PGAPPNAME=paydbench-pgbench")
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.ErrorSamples = []string{fmt.Sprintf("pgbench: %v: %s", err, lastLines(string(out), 3))}
		return s
	}
	m := pgbenchTPS.FindStringSubmatch(string(out))
	if m == nil {
		s.ErrorSamples = []string{"pgbench printed no tps: " + lastLines(string(out), 3)}
		return s
	}
	s.PerSecond, _ = strconv.ParseFloat(m[1], 64)
	lat, failed, err := readPgbenchLogs(logDir)
	if err != nil {
		s.ErrorSamples = []string{err.Error()}
		return s
	}
	s.Ops, s.Errors, s.Seconds = len(lat), failed, float64(secs)
	slices.Sort(lat)
	if len(lat) > 0 {
		at := func(q float64) float64 { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
		s.P50Ms, s.P99Ms, s.MaxMs = at(0.50), at(0.99), lat[len(lat)-1]
	}
	return s
}

// readPgbenchLogs reads pgbench's per-transaction logs ("client tx
// latency_us script epoch epoch_us", or "failed"/"skipped" in place of the
// latency) into latencies in milliseconds and a count of failures.
func readPgbenchLogs(dir string) (lat []float64, failed int, err error) {
	files, err := filepath.Glob(filepath.Join(dir, "tx*"))
	if err != nil {
		return nil, 0, err
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, 0, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 3 {
				continue
			}
			us, err := strconv.ParseFloat(fields[2], 64)
			if err != nil {
				failed++
				continue
			}
			lat = append(lat, us/1000)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, 0, err
		}
	}
	return lat, failed, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}
