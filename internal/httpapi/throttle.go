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

// flight is one address's checks in flight and the requests waiting for
// one of their tokens.
type flight struct {
	held int
	// waiting each receive true with a token handed over by a check that
	// proved right, or false when no check holds a token any more and
	// they should ask the limiter again.
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
// one any more the waiting requests ask the bucket again, so they are
// refused only when the checks failed. The wait ends with the request or
// after cfg.MaxWait. Checks in flight at other instances are not seen:
// there the request is refused as before.
func (t *AuthThrottle) Begin(r *http.Request) (*Attempt, error) {
	group := t.group(r)
	var expired <-chan time.Time
	for {
		// When a shared store is unreachable the stand-in's answer
		// holds: guessing is slowed per instance meanwhile, and no
		// request is refused for want of the count.
		ok, wait, _ := t.cfg.Limiter.Allow(r.Context(), t.key("authfail", group), t.cfg.FailuresPerMinute, t.cfg.Now())
		if ok {
			t.hold(group)
			return &Attempt{t: t, r: r, group: group}, nil
		}
		turn := t.queue(group)
		if turn == nil {
			return nil, t.refuse(r, group, wait)
		}
		if expired == nil {
			timer := time.NewTimer(t.cfg.MaxWait)
			defer timer.Stop()
			expired = timer.C
		}
		select {
		case handed := <-turn:
			if handed {
				return &Attempt{t: t, r: r, group: group}, nil
			}
		case <-expired:
			t.leaveQueue(group, turn)
			return nil, t.refuse(r, group, wait)
		case <-r.Context().Done():
			t.leaveQueue(group, turn)
			return nil, t.refuse(r, group, wait)
		}
	}
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

// hold counts a token taken from the limiter by a check now in flight.
func (t *AuthThrottle) hold(group string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.flights[group]
	if f == nil {
		f = &flight{}
		t.flights[group] = f
	}
	f.held++
}

// queue returns the channel on which a request refused by the limiter
// waits for its turn, or nil when no check from its address holds a
// token: then nothing will be handed over, and the refusal stands.
func (t *AuthThrottle) queue(group string) chan bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.flights[group]
	if f == nil || f.held == 0 {
		return nil
	}
	turn := make(chan bool, 1)
	f.waiting = append(f.waiting, turn)
	return turn
}

// leaveQueue takes a request that stopped waiting out of the queue; a
// token handed to it meanwhile goes back as a right check's would.
func (t *AuthThrottle) leaveQueue(group string, turn chan bool) {
	t.mu.Lock()
	if f := t.flights[group]; f != nil {
		for i, w := range f.waiting {
			if w == turn {
				f.waiting = append(f.waiting[:i], f.waiting[i+1:]...)
				break
			}
		}
	}
	t.mu.Unlock()
	select {
	case handed := <-turn:
		if handed {
			t.end(group, true, context.Background())
		}
	default:
	}
}

// end ends a check holding a token. A right one (giveBack) hands its token
// to the longest waiting request, or returns it to the limiter when none
// waits; a failed one keeps it spent. The last check of an address to end
// tells the waiting requests to ask the limiter again.
func (t *AuthThrottle) end(group string, giveBack bool, ctx context.Context) {
	t.mu.Lock()
	f := t.flights[group]
	if giveBack && len(f.waiting) > 0 {
		turn := f.waiting[0]
		f.waiting = f.waiting[1:]
		t.mu.Unlock()
		turn <- true
		return
	}
	f.held--
	var retry []chan bool
	if f.held == 0 {
		retry = f.waiting
		delete(t.flights, group)
	}
	t.mu.Unlock()
	for _, turn := range retry {
		turn <- false
	}
	if giveBack {
		// A return lost (the shared store gone) leaves one token
		// spent until the bucket refills: it errs on the side of the
		// budget.
		_ = t.cfg.Limiter.Return(ctx, t.key("authfail", group), t.cfg.FailuresPerMinute, t.cfg.Now())
	}
}

// Release gives the token back: the credential was right, or none was
// presented, or it could not be checked; no guess was made.
func (a *Attempt) Release() {
	if a.ended {
		return
	}
	a.ended = true
	// Not cancelled with the request: a client that gave up after a
	// right credential must not leave its token spent.
	a.t.end(a.group, true, context.WithoutCancel(a.r.Context()))
}

// Failed keeps the token spent: the credential was wrong.
func (a *Attempt) Failed() {
	if a.ended {
		return
	}
	a.ended = true
	a.t.cfg.Metrics.authFailed()
	a.t.end(a.group, false, nil)
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
