package main

import (
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paydhq/payd/webhook"
)

// Receiver behaviours, chosen by the first element of the request path.
const (
	kindOK   = "ok"   // answers 200 at once
	kindSlow = "slow" // answers 200 after the slow delay
	kindFail = "fail" // answers 500 at once
)

// receiver is the merchants' side: one HTTPS server on 127.0.0.1 whose
// paths decide how each endpoint behaves (/ok/N, /slow/N, /fail/N). It
// notes every request's arrival in the current scenario's collector before
// answering, so a slow answer does not blur when the attempt started.
type receiver struct {
	srv       *httptest.Server
	slowDelay time.Duration
	cur       atomic.Pointer[collector]
	// conns counts accepted connections, each one a TLS handshake the
	// sender had to make.
	conns atomic.Int64
	quit  chan struct{}
}

func newReceiver(slowDelay time.Duration) *receiver {
	rc := &receiver{slowDelay: slowDelay, quit: make(chan struct{})}
	rc.srv = httptest.NewUnstartedServer(http.HandlerFunc(rc.serveHTTP))
	// A sender that drops an idle connection makes the server log a
	// handshake or read error; that is expected churn, not news.
	rc.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	rc.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			rc.conns.Add(1)
		}
	}
	// httptest listens on 127.0.0.1 and serves HTTP/1.1 over TLS, as most
	// merchants' receivers do: one request per connection at a time.
	rc.srv.StartTLS()
	return rc
}

// URL is the receiver's base, https://127.0.0.1:port.
func (rc *receiver) URL() string { return rc.srv.URL }

// RootCAs trusts the receiver's certificate only.
func (rc *receiver) RootCAs() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(rc.srv.Certificate())
	return pool
}

// Close stops waiting slow answers and the server.
func (rc *receiver) Close() {
	close(rc.quit)
	rc.srv.Close()
}

// parsePath splits "/kind/N" into its behaviour and endpoint number.
func parsePath(p string) (kind string, n int, ok bool) {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) != 2 {
		return "", 0, false
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n < 0 {
		return "", 0, false
	}
	switch parts[0] {
	case kindOK, kindSlow, kindFail:
		return parts[0], n, true
	}
	return "", 0, false
}

func (rc *receiver) serveHTTP(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	kind, _, ok := parsePath(r.URL.Path)
	if !ok || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	// The body is read as a real receiver would, but not parsed: the
	// event's created_at is known to the collector by its id, which keeps
	// JSON decoding of 10,000 bodies off the CPU the service runs on.
	io.Copy(io.Discard, r.Body)
	if c := rc.cur.Load(); c != nil {
		c.arrive(r.Header.Get(webhook.EventIDHeader), r.URL.Path, kind, at)
	}
	switch kind {
	case kindSlow:
		t := time.NewTimer(rc.slowDelay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-rc.quit:
			return
		}
		w.WriteHeader(http.StatusOK)
	case kindFail:
		w.WriteHeader(http.StatusInternalServerError)
	default:
		w.WriteHeader(http.StatusOK)
	}
}

// sample is one first attempt of one event at one endpoint.
type sample struct {
	kind string
	at   time.Time
	// sinceCreated is arrival minus the event's created_at; sinceCommit
	// arrival minus the commit of the transaction that recorded it.
	sinceCreated, sinceCommit time.Duration
}

// collector gathers one scenario's arrivals.
type collector struct {
	mu      sync.Mutex
	created map[string]eventTimes
	seen    map[string]struct{}
	samples []sample
	// retries are later attempts of a delivery already seen (failing
	// endpoints after a minute); strays are requests for events this
	// scenario did not record.
	retries, strays int
	want            int
	done            chan struct{}
}

type eventTimes struct{ created, committed time.Time }

func newCollector(want int) *collector {
	return &collector{
		created: make(map[string]eventTimes, want),
		seen:    make(map[string]struct{}, want),
		samples: make([]sample, 0, want),
		want:    want,
		done:    make(chan struct{}),
	}
}

// record notes events whose transaction is about to commit. It runs
// before the commit, so no delivery can arrive before its event is known;
// the commit time is filled in by committed.
func (c *collector) record(ids []string, created []time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, id := range ids {
		c.created[id] = eventTimes{created: created[i]}
	}
}

// committed sets the commit time of events recorded by record. An
// arrival that beats this call (the commit returned, a worker already ran)
// measures its commit latency from the next best thing: its own arrival,
// which is counted as zero.
func (c *collector) committed(ids []string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		e := c.created[id]
		e.committed = at
		c.created[id] = e
	}
}

func (c *collector) arrive(eventID, path, kind string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ev, ok := c.created[eventID]
	if !ok {
		c.strays++
		return
	}
	key := eventID + " " + path
	if _, dup := c.seen[key]; dup {
		c.retries++
		return
	}
	c.seen[key] = struct{}{}
	s := sample{kind: kind, at: at, sinceCreated: at.Sub(ev.created)}
	if !ev.committed.IsZero() && at.After(ev.committed) {
		s.sinceCommit = at.Sub(ev.committed)
	}
	c.samples = append(c.samples, s)
	if len(c.samples) == c.want {
		close(c.done)
	}
}

// snapshot copies what has arrived so far.
func (c *collector) snapshot() (samples []sample, retries, strays int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sample(nil), c.samples...), c.retries, c.strays
}
