//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// hangLimit is the longest an answer may take: a request that waits longer
// counts as a hang, which the run forbids.
const hangLimit = 15 * time.Second

// shop is a merchant's shop with its test key.
type shop struct {
	id, key string
	// merchant and mkey are the shop's merchant and its merchant key (the
	// cluster run: where its rows live).
	merchant string
	mkey     int32
}

// payment is what the clients were told about one payment: only
// acknowledged operations are recorded.
type payment struct {
	shop    *shop
	id      string
	orderID string
	// want is the status the acknowledged operations lead to ("" when the
	// outcome was not asked for).
	want    string
	refunds []string
}

// ledgerBook collects what every client saw.
type ledgerBook struct {
	mu       sync.Mutex
	status   map[int]int
	reasons  map[string]int // 503 answers by description
	problems []string
	payments []*payment
	// first holds the first final answer per Idempotency-Key.
	first             map[string][]byte
	replays           int
	hangs, unanswered int
	maxLatency        time.Duration
	abandoned         []string
	ops               map[string]int
	// refusedByRoute counts the 503 answers by route.
	refusedByRoute map[string]int
	// writes has every answer to a write (POST) in order of arrival, to
	// measure the windows in which none was acknowledged.
	writes []writeMark
	// lost and doubled count the acknowledged objects the checks found
	// missing or stored more than once.
	lost, doubled int
	// attempts has every attempt of every request, and done every
	// acknowledged operation, with their shops: the cluster run tells
	// the merchants a fault touched from the others (cluster.go).
	attempts []attempt
	done     []doneOp
	payouts  []*payout
	// internal has the request_id of every answer of 500 or above
	// other than 503: the report prints what the instances logged for
	// them, since a run's logs are gone when CI's machine is.
	internal []string
}

// attempt is one request sent: its shop, when it was sent and answered,
// and the status (0: no answer).
type attempt struct {
	shop           *shop
	write          bool
	sent, answered time.Time
	status         int
	// limiter marks a 503 of the rate limiter (its Redis unreachable),
	// not of the database.
	limiter bool
	route   string
}

// doneOp is an acknowledged operation: its shop, when it was first sent
// and when it was acknowledged.
type doneOp struct {
	shop         *shop
	op           string
	first, acked time.Time
}

// payout is an acknowledged payout.
type payout struct {
	shop    *shop
	id, key string
}

// writeMark is one attempt of a write: when it was sent and answered, and
// whether it was acknowledged (2xx) or refused (503, a cut connection).
type writeMark struct {
	sent, answered time.Time
	ok             bool
}

func newBook() *ledgerBook {
	return &ledgerBook{status: map[int]int{}, reasons: map[string]int{}, first: map[string][]byte{}, ops: map[string]int{},
		refusedByRoute: map[string]int{}}
}

func (b *ledgerBook) problem(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.problems) < 200 {
		b.problems = append(b.problems, fmt.Sprintf(format, args...))
	}
}

// client is one merchant's integration: it retries failed and unanswered
// requests with the same Idempotency-Key, as the contract tells it to.
type client struct {
	n    int
	base string
	shop *shop
	http *http.Client
	book *ledgerBook
	rnd  *rand.Rand
	stop <-chan struct{}
	// drainBy is when a client stops retrying (UnixNano; 0 until the load
	// is over).
	drainBy *atomic.Int64
	// payouts adds payouts to the mix (the cluster run, at stage M5).
	payouts bool
}

// call sends one request until it has a final answer: 2xx, or a 4xx that
// is not worth retrying. It returns 0 when it gave up at the drain
// deadline.
func (c *client) call(method, path, key string, body any) (int, []byte) {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	for try := 0; ; try++ {
		if by := c.drainBy.Load(); by != 0 && time.Now().UnixNano() > by {
			c.book.mu.Lock()
			c.book.abandoned = append(c.book.abandoned, method+" "+path+" "+key)
			c.book.mu.Unlock()
			return 0, nil
		}
		req, _ := http.NewRequest(method, c.base+path, bytes.NewReader(raw))
		req.SetBasicAuth(c.shop.id, c.shop.key)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		start := time.Now()
		resp, err := c.http.Do(req)
		took := time.Since(start)
		c.book.mu.Lock()
		c.book.maxLatency = max(c.book.maxLatency, took)
		at := attempt{shop: c.shop, write: method == http.MethodPost, sent: start, answered: start.Add(took), route: route(method, path)}
		if err == nil {
			at.status = resp.StatusCode
		}
		idx := len(c.book.attempts)
		c.book.attempts = append(c.book.attempts, at)
		c.book.mu.Unlock()
		mark := func(ok bool) {
			if method == http.MethodPost {
				c.book.mu.Lock()
				c.book.writes = append(c.book.writes, writeMark{sent: start, answered: time.Now(), ok: ok})
				c.book.mu.Unlock()
			}
		}
		if err != nil {
			mark(false)
			c.book.mu.Lock()
			if took >= hangLimit {
				c.book.hangs++
				c.book.problems = append(c.book.problems, fmt.Sprintf("%s %s: no answer in %v", method, path, took.Round(time.Millisecond)))
			} else {
				c.book.unanswered++
			}
			c.book.mu.Unlock()
			time.Sleep(100 * time.Millisecond)
			continue
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		c.book.mu.Lock()
		c.book.status[resp.StatusCode]++
		c.book.mu.Unlock()
		var e struct {
			Type, Code, Description string
			RequestID               string `json:"request_id"`
		}
		json.Unmarshal(out, &e)
		switch st := resp.StatusCode; {
		case st == http.StatusBadGateway:
			mark(false)
			// The balancer lost the connection: the request may or may
			// not have run; the same key makes the retry safe.
			time.Sleep(100 * time.Millisecond)
			continue
		case st >= 500:
			mark(false)
			if strings.HasPrefix(e.Description, "rate limits cannot be checked") {
				c.book.mu.Lock()
				c.book.attempts[idx].limiter = true
				c.book.mu.Unlock()
			}
			if st != http.StatusServiceUnavailable {
				c.book.problem("%s %s answered %d: %s", method, path, st, out)
				c.book.mu.Lock()
				c.book.internal = append(c.book.internal, e.RequestID)
				c.book.mu.Unlock()
			} else if e.Type != "error" || e.Code != "provider_unavailable" || e.RequestID == "" || resp.Header.Get("Retry-After") == "" {
				c.book.problem("%s %s answered 503 without the Error object and Retry-After: %s", method, path, out)
			} else {
				c.book.mu.Lock()
				c.book.reasons[reason(e.Description)]++
				c.book.refusedByRoute[route(method, path)]++
				c.book.mu.Unlock()
			}
			time.Sleep(retryAfter(resp, 2*time.Second))
			continue
		case st == http.StatusTooManyRequests:
			time.Sleep(retryAfter(resp, 5*time.Second))
			continue
		case st == http.StatusConflict && e.Code == "idempotency_in_progress":
			time.Sleep(500 * time.Millisecond)
			continue
		}
		if resp.StatusCode < 300 {
			mark(true)
		}
		if key != "" && resp.StatusCode < 300 {
			c.book.mu.Lock()
			if first, ok := c.book.first[key]; ok {
				c.book.replays++
				if !bytes.Equal(first, out) || resp.Header.Get("Idempotent-Replayed") != "true" {
					c.book.problems = append(c.book.problems, fmt.Sprintf("replay of %s gave another answer:\n first %s\n then  %s", key, first, out))
				}
			} else {
				c.book.first[key] = out
			}
			c.book.mu.Unlock()
		}
		return resp.StatusCode, out
	}
}

// route names a request's route with its ids left out.
func route(method, path string) string {
	seg := strings.Split(path, "/")
	for i := 1; i < len(seg); i++ {
		if seg[i-1] == "payments" || seg[i-1] == "refunds" {
			seg[i] = "{id}"
		}
	}
	return method + " " + strings.Join(seg, "/")
}

func reason(desc string) string {
	if i := strings.IndexByte(desc, ';'); i > 0 {
		return desc[:i]
	}
	return desc
}

func retryAfter(resp *http.Response, most time.Duration) time.Duration {
	s, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || s < 1 {
		return 200 * time.Millisecond
	}
	return min(time.Duration(s)*time.Second, most)
}

// post is call for an operation whose answer the client acts on; it
// sometimes sends the same request again to check the replay.
func (c *client) post(op, path, key string, body any) (int, map[string]any) {
	first := time.Now()
	st, raw := c.call(http.MethodPost, path, key, body)
	var out map[string]any
	json.Unmarshal(raw, &out)
	if st >= 200 && st < 300 {
		c.book.mu.Lock()
		c.book.ops[op]++
		c.book.done = append(c.book.done, doneOp{shop: c.shop, op: op, first: first, acked: time.Now()})
		c.book.mu.Unlock()
		if c.rnd.IntN(4) == 0 {
			c.call(http.MethodPost, path, key, body)
		}
	} else if st != 0 {
		c.book.problem("%s %s: final answer %d %s", op, path, st, raw)
	}
	return st, out
}

func (c *client) status(id string) string {
	st, raw := c.call(http.MethodGet, "/v1/payments/"+id, "", nil)
	if st != 200 {
		return ""
	}
	var p struct{ Status string }
	json.Unmarshal(raw, &p)
	return p.Status
}

// waitStatus polls until the payment has want, for at most d.
func (c *client) waitStatus(id, want string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if c.status(id) == want {
			return true
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false
}

func (c *client) stopped() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
	}
}

// run makes payments until told to stop: create, simulate the payer,
// then capture or cancel a held one, and refund part of a paid one.
func (c *client) run() {
	for i := 0; !c.stopped(); i++ {
		order := fmt.Sprintf("chaos-%d-%d", c.n, i)
		capture := c.rnd.IntN(2) == 0
		st, p := c.post("create", "/v1/payments", "pay-"+order, map[string]any{
			"amount": map[string]any{"value": "100.00", "currency": "RUB"}, "order_id": order, "capture": capture,
			"confirmation": map[string]any{"type": "qr"},
		})
		if st < 200 || st > 299 {
			continue
		}
		rec := &payment{shop: c.shop, id: p["id"].(string), orderID: order}
		c.book.mu.Lock()
		c.book.payments = append(c.book.payments, rec)
		c.book.mu.Unlock()
		// succeed charges at once; authorize leaves a hold to capture or
		// cancel (docs/sandbox.md).
		outcome := "succeed"
		if !capture {
			outcome = "authorize"
		}
		if st, _ := c.post("simulate", "/v1/test/payments/"+rec.id+"/simulate", "sim-"+order, map[string]any{"outcome": outcome}); st != 202 {
			continue
		}
		want := "succeeded"
		if !capture {
			want = "waiting_for_capture"
		}
		c.setWant(rec, want)
		if !c.waitStatus(rec.id, want, 15*time.Second) {
			continue // a job of a killed instance: checked at the end
		}
		if !capture {
			if c.rnd.IntN(2) == 0 {
				if st, _ := c.post("capture", "/v1/payments/"+rec.id+"/capture", "cap-"+order, map[string]any{}); st == 200 {
					c.setWant(rec, "succeeded")
				}
			} else {
				if st, _ := c.post("cancel", "/v1/payments/"+rec.id+"/cancel", "can-"+order, map[string]any{}); st == 200 {
					c.setWant(rec, "canceled")
				}
				continue
			}
		}
		if rec.want == "succeeded" && c.rnd.IntN(3) > 0 {
			st, r := c.post("refund", "/v1/refunds", "ref-"+order, map[string]any{
				"payment_id": rec.id, "amount": map[string]any{"value": "10.00", "currency": "RUB"},
			})
			if st >= 200 && st < 300 {
				c.book.mu.Lock()
				rec.refunds = append(rec.refunds, r["id"].(string))
				c.book.mu.Unlock()
			}
		}
		if c.payouts && c.rnd.IntN(4) == 0 {
			c.payout(order)
		}
	}
}

// payout sends 1.00 RUB to the sandbox's test card from the balance the
// run funded at the start (fund).
func (c *client) payout(order string) {
	key := "po-" + order
	st, p := c.post("payout", "/v1/payouts", key, map[string]any{
		"amount":      map[string]any{"value": "1.00", "currency": "RUB"},
		"destination": map[string]any{"type": "card", "card_token": "tok_sandbox_4242"},
	})
	if st >= 200 && st < 300 {
		c.book.mu.Lock()
		c.book.payouts = append(c.book.payouts, &payout{shop: c.shop, id: p["id"].(string), key: key})
		c.book.mu.Unlock()
	}
}

func (c *client) setWant(p *payment, want string) {
	c.book.mu.Lock()
	p.want = want
	c.book.mu.Unlock()
}
