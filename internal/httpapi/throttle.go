package httpapi

import (
	"context"
	"net/http"
	"net/netip"
	"strings"
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
// The counters live in the Limiter: in-process with ratelimit.Local, and
// shared by all instances with a shared Limiter, exactly like the request
// rate.
type AuthThrottle struct {
	cfg ThrottleConfig
}

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
	return &AuthThrottle{cfg: cfg}
}

// Attempt is one authentication holding a token of its address's bucket
// until it is known whether the credential was right.
type Attempt struct {
	t     *AuthThrottle
	r     *http.Request
	group string
}

// Begin takes a token of r's source address for one authentication. When
// the bucket is empty it returns the 429 error instead, and the request
// must not look at its credential.
func (t *AuthThrottle) Begin(r *http.Request) (*Attempt, error) {
	group := t.group(r)
	now := t.cfg.Now()
	// When a shared store is unreachable the stand-in's answer holds:
	// guessing is slowed per instance meanwhile, and no request is
	// refused for want of the count.
	ok, wait, _ := t.cfg.Limiter.Allow(r.Context(), t.key("authfail", group), t.cfg.FailuresPerMinute, now)
	if ok {
		return &Attempt{t: t, r: r, group: group}, nil
	}
	t.cfg.Metrics.authThrottled()
	// Once per address and minute, so a guessing client cannot flood
	// the log either.
	if first, _, _ := t.cfg.Limiter.Allow(r.Context(), t.key("authlog", group), 1, now); first {
		Logger(r.Context()).Warn("authentication throttled", "source", group, "listener", t.cfg.Scope,
			"failures_per_minute", t.cfg.FailuresPerMinute, "retry_after_s", ratelimit.RetryAfterSeconds(wait))
	}
	return nil, &payd.Error{Code: payd.CodeTooManyRequests, RetryAfter: wait,
		Message: "too many failed authentications from this address; retry after the Retry-After seconds"}
}

// Release gives the token back: the credential was right, or none was
// presented, or it could not be checked; no guess was made.
func (a *Attempt) Release() {
	// Not cancelled with the request: a client that gave up after a
	// right credential must not leave its token spent. A return lost
	// otherwise (the shared store gone) leaves one token spent until
	// the bucket refills: it errs on the side of the budget.
	ctx := context.WithoutCancel(a.r.Context())
	_ = a.t.cfg.Limiter.Return(ctx, a.t.key("authfail", a.group), a.t.cfg.FailuresPerMinute, a.t.cfg.Now())
}

// Failed keeps the token spent: the credential was wrong.
func (a *Attempt) Failed() { a.t.cfg.Metrics.authFailed() }

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
