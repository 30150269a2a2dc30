package httpapi

import (
	"context"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ratelimit"
)

// DefaultAuthFailuresPerMinute is how many failed authentications one
// source address may make per minute before its further requests answer
// 429 (docs/security.md, Failed authentication).
const DefaultAuthFailuresPerMinute = 60

// Source finds the address a request comes from: the connection's peer,
// or, when the peer is a trusted proxy, the last hop of X-Forwarded-For
// (the address that proxy saw). The IP allowlist and the authentication
// throttle both use it.
type Source struct {
	// TrustProxy believes X-Forwarded-For (`--behind-tls-proxy`). With
	// TrustedProxies empty it is believed from every peer, which is right
	// only when nothing but the proxy can reach the listener.
	TrustProxy bool
	// TrustedProxies, when not empty, are the only peers whose
	// X-Forwarded-For is believed (`--trusted-proxy`); a request from
	// any other peer is judged by the peer's own address.
	TrustedProxies []netip.Prefix
}

// Addr returns the request's source address; it is invalid when a trusted
// proxy sent no usable address.
func (s Source) Addr(r *http.Request) netip.Addr {
	peer, _ := netip.ParseAddrPort(r.RemoteAddr)
	addr := peer.Addr().Unmap()
	if !s.trusts(addr) {
		return addr
	}
	xff := r.Header.Values("X-Forwarded-For")
	if len(xff) == 0 {
		return addr
	}
	last := xff[len(xff)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	a, err := netip.ParseAddr(strings.TrimSpace(last))
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

func (s Source) trusts(peer netip.Addr) bool {
	if len(s.TrustedProxies) == 0 {
		return s.TrustProxy
	}
	for _, p := range s.TrustedProxies {
		if p.Contains(peer) {
			return true
		}
	}
	return false
}

// ThrottleConfig assembles an AuthThrottle.
type ThrottleConfig struct {
	// Scope separates the counters of the listeners that share a Limiter
	// ("merchant", "operator"): each throttles failures of its own
	// credentials.
	Scope   string
	Limiter ratelimit.Limiter
	Source  Source
	// FailuresPerMinute is the allowance per address; zero means
	// DefaultAuthFailuresPerMinute.
	FailuresPerMinute int
	// Now is the clock of the counters (the service clock).
	Now     func() time.Time
	Metrics *Metrics
	// MaxWait bounds the wait for a token held by checks in flight
	// (Begin); zero means DefaultMaxAuthWait.
	MaxWait time.Duration
}

// AuthThrottle slows down the guessing of credentials. Each source address
// has a bucket of FailuresPerMinute tokens, refilled evenly over a minute.
// Every authentication takes a token before its credential is looked at
// and gives it back (Release) once the credential proves right, so only failures
// stay spent; while the bucket is empty, every request from that address
// that needs authentication answers 429 too_many_requests with
// Retry-After, before any credential is looked at. Because the token is
// taken first, requests in flight hold theirs: however many arrive at
// once, no more credentials are checked than the bucket holds. Addresses
// are counted one by one, except IPv6, counted per /64: one host usually
// holds a whole /64, and counting its addresses apart would let it guess
// without limit. Requests from other addresses, the shop's own included,
// are never affected.
//
// A bucket that is empty only because checks from the same address are
// still in flight in this process is not a reason to refuse: a shop's own
// burst of right keys while its cached keys are being read again would
// otherwise be answered 429 although nothing failed. Such a request waits
// (see Begin) and is refused only if those checks fail.
//
// The counters live in the Limiter: in-process with ratelimit.Local, and
// shared by all instances with a shared Limiter, exactly like the request
// rate.
type AuthThrottle struct {
	cfg ThrottleConfig

	mu sync.Mutex
	// flights are the addresses with checks in flight in this process.
	flights map[string]*flight
}

// flight is one address's checks in flight in this process. While it
// lasts, the tokens of its right checks stay with it rather than go back
// to the limiter: a request that finds the bucket empty takes one of them,
// or waits for one, and the limiter gets them back when the address's
// last check ends. A failed check's token stays spent either way.
type flight struct {
	// held counts the checks holding a token, and those asking the
	// limiter for one (so that a request refused by the limiter meanwhile
	// knows a token may yet come back).
	held int
	// spare are right checks' tokens that no request waited for.
	spare int
	// waiting each receive true with a token handed over by a right
	// check, or false when no check holds one any more: the checks they
	// waited for failed. There are none while spare is not 0.
	waiting []chan bool
}

// DefaultMaxAuthWait bounds how long a request waits for a token held by
// checks in flight before it is answered 429 after all.
const DefaultMaxAuthWait = 10 * time.Second

// NewAuthThrottle returns a throttle.
func NewAuthThrottle(cfg ThrottleConfig) *AuthThrottle {
	if cfg.FailuresPerMinute <= 0 {
		cfg.FailuresPerMinute = DefaultAuthFailuresPerMinute
	}
	if cfg.Limiter == nil {
		cfg.Limiter = ratelimit.NewLocal()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = DefaultMaxAuthWait
	}
	return &AuthThrottle{cfg: cfg, flights: map[string]*flight{}}
}

// Attempt is one authentication holding a token of its address's bucket
// until it is known whether the credential was right.
type Attempt struct {
	t     *AuthThrottle
	r     *http.Request
	group string
	ended bool
}

// Begin takes a token of r's source address for one authentication. When
// the bucket is empty it returns the 429 error instead, and the request
// must not look at its credential.
//
// When the bucket is empty while checks from the same address are in
// flight in this process, Begin waits: a check that proves right hands its
// token straight to the longest waiting request, and once no check holds
// one any more the requests still waiting are refused: the checks they
// waited for failed. The wait ends with the request or after cfg.MaxWait.
// Checks in flight at other instances are not seen: there the request is
// refused as before.
func (t *AuthThrottle) Begin(r *http.Request) (*Attempt, error) {
	group := t.group(r)
	a := &Attempt{t: t, r: r, group: group}
	if t.takeSpare(group) {
		return a, nil
	}
	// When a shared store is unreachable the stand-in's answer holds:
	// guessing is slowed per instance meanwhile, and no request is
	// refused for want of the count.
	ok, wait, _ := t.cfg.Limiter.Allow(r.Context(), t.key("authfail", group), t.cfg.FailuresPerMinute, t.cfg.Now())
	if ok {
		return a, nil
	}
	turn, spare := t.queue(group)
	if spare {
		return a, nil
	}
	if turn == nil {
		return nil, t.refuse(r, group, wait)
	}
	timer := time.NewTimer(t.cfg.MaxWait)
	defer timer.Stop()
	select {
	case handed := <-turn:
		if handed {
			return a, nil
		}
	case <-timer.C:
		t.leaveQueue(group, turn)
	case <-r.Context().Done():
		t.leaveQueue(group, turn)
	}
	return nil, t.refuse(r, group, wait)
}

func (t *AuthThrottle) refuse(r *http.Request, group string, wait time.Duration) error {
	t.cfg.Metrics.authThrottled()
	// Once per address and minute, so a guessing client cannot flood
	// the log either.
	if first, _, _ := t.cfg.Limiter.Allow(r.Context(), t.key("authlog", group), 1, t.cfg.Now()); first {
		Logger(r.Context()).Warn("authentication throttled", "source", group, "listener", t.cfg.Scope,
			"failures_per_minute", t.cfg.FailuresPerMinute, "retry_after_s", ratelimit.RetryAfterSeconds(wait))
	}
	return &payd.Error{Code: payd.CodeTooManyRequests, RetryAfter: wait,
		Message: "too many failed authentications from this address; retry after the Retry-After seconds"}
}

// takeSpare counts a check about to take a token: one a right check left,
// when there is one (true), else one it will ask the limiter for.
func (t *AuthThrottle) takeSpare(group string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.flights[group]
	if f == nil {
		f = &flight{}
		t.flights[group] = f
	}
	f.held++
	if f.spare > 0 {
		f.spare--
		return true
	}
	return false
}

// queue is for a request the limiter refused. It takes a token a right
// check left meanwhile (spare), or stops counting as taking and returns
// the channel on which it waits for a token, or nil when no other check
// holds one or asks for one: then none will be handed over, and the
// refusal stands.
func (t *AuthThrottle) queue(group string) (turn chan bool, spare bool) {
	t.mu.Lock()
	f := t.flights[group]
	if f.spare > 0 {
		f.spare--
		t.mu.Unlock()
		return nil, true
	}
	if back := t.release(group, f); back >= 0 {
		t.mu.Unlock()
		t.giveBack(group, back)
		return nil, false
	}
	defer t.mu.Unlock()
	turn = make(chan bool, 1)
	f.waiting = append(f.waiting, turn)
	return turn, false
}

// leaveQueue takes a request that stopped waiting out of the queue; a
// token handed to it meanwhile is a right check's again.
func (t *AuthThrottle) leaveQueue(group string, turn chan bool) {
	t.mu.Lock()
	f := t.flights[group]
	if f != nil {
		for i, w := range f.waiting {
			if w == turn {
				f.waiting = append(f.waiting[:i], f.waiting[i+1:]...)
				break
			}
		}
	}
	t.mu.Unlock()
	// The turns are sent under the lock: out of the queue, the request
	// has its token in its channel or never gets one.
	select {
	case handed := <-turn:
		if handed {
			t.end(group, true)
		}
	default:
	}
}

// end ends a check holding a token. A right one (giveBack) hands its token
// to the longest waiting request, or leaves it to the address's next
// check; a failed one keeps it spent.
func (t *AuthThrottle) end(group string, giveBack bool) {
	t.mu.Lock()
	f := t.flights[group]
	if giveBack {
		if len(f.waiting) > 0 {
			// Each channel holds the one message it will ever get,
			// so the send never blocks.
			f.waiting[0] <- true
			f.waiting = f.waiting[1:]
			t.mu.Unlock()
			return
		}
		f.spare++
	}
	back := t.release(group, f)
	t.mu.Unlock()
	t.giveBack(group, back)
}

// release counts one check of f less, under t.mu. When it was the last,
// the requests still waiting are refused and the flight ends: it returns
// how many spare tokens go back to the limiter then, or -1 while the
// flight goes on.
func (t *AuthThrottle) release(group string, f *flight) int {
	f.held--
	if f.held > 0 {
		return -1
	}
	for _, turn := range f.waiting {
		turn <- false
	}
	delete(t.flights, group)
	return f.spare
}

// giveBack returns n tokens to the limiter, not cancelled with any
// request: a right check's token must not stay spent because its client
// went. A return lost (the shared store gone) leaves one token spent
// until the bucket refills: it errs on the side of the budget.
func (t *AuthThrottle) giveBack(group string, n int) {
	for range n {
		_ = t.cfg.Limiter.Return(context.Background(), t.key("authfail", group), t.cfg.FailuresPerMinute, t.cfg.Now())
	}
}

// Release gives the token back: the credential was right, or none was
// presented, or it could not be checked; no guess was made.
func (a *Attempt) Release() {
	if a.ended {
		return
	}
	a.ended = true
	a.t.end(a.group, true)
}

// Failed keeps the token spent: the credential was wrong.
func (a *Attempt) Failed() {
	if a.ended {
		return
	}
	a.ended = true
	a.t.cfg.Metrics.authFailed()
	a.t.end(a.group, false)
}

func (t *AuthThrottle) key(kind, group string) string {
	return kind + ":" + t.cfg.Scope + ":" + group
}

// group is the counter an address belongs to: an IPv4 address itself, the
// /64 of an IPv6 address, or "unknown" when a trusted proxy sent no usable
// address.
func (t *AuthThrottle) group(r *http.Request) string {
	a := t.cfg.Source.Addr(r)
	switch {
	case !a.IsValid():
		return "unknown"
	case a.Is4():
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}
