package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// RedisOptions tune a Redis limiter; zero values take the defaults.
type RedisOptions struct {
	// Prefix is put before every key, so that several deployments (or
	// tests) can share one Redis without counting each other's requests.
	// Default "payd:".
	Prefix string
	// Timeout bounds every Redis call, connecting included: a Redis that
	// does not answer costs a request at most this much. Default 200ms.
	Timeout time.Duration
	// ProbeInterval is how often, during an outage, one request tries
	// Redis again; the others are answered by the stand-in at once.
	// Default 1s.
	ProbeInterval time.Duration
	// OnDown is called once when an outage begins, with the error that
	// began it; OnUp once when Redis answers again, with how long it was
	// gone. Both may be nil.
	OnDown func(err error)
	OnUp   func(outage time.Duration)
}

// Redis is the Limiter shared by every instance that uses the same Redis:
// a shop gets its limit once, whichever instance its requests reach. Each
// key is a GCRA cell (github.com/go-redis/redis_rate), the same bucket as
// Local: perMinute tokens refilled evenly over a minute with a burst of
// perMinute, decided in one atomic script.
//
// Redis counts on its own clock (TIME), so instances whose clocks drift
// still agree; the now argument only feeds the stand-in. In particular the
// test clock (`serve --test-clock`) does not refill a bucket in Redis.
//
// When Redis cannot be reached the calls return an error wrapping
// ErrUnavailable with the answer of an in-process Local (see Limiter). An
// outage begins at the first failed call and ends at the first call that
// succeeds; meanwhile only one call per ProbeInterval tries Redis, so a
// dead Redis slows no request by more than Timeout, and most by nothing.
type Redis struct {
	rdb   *redis.Client
	gcra  *redis_rate.Limiter
	opts  RedisOptions
	local *Local

	mu        sync.Mutex
	down      bool
	downSince time.Time
	probeAt   time.Time

	fallbacks atomic.Uint64
}

// NewRedis returns a limiter on the Redis at url (redis://[user:pass@]host:port/db
// or rediss:// for TLS). It does not connect: the first call does, and an
// unreachable Redis is an outage like any other, not a startup failure.
func NewRedis(url string, opts RedisOptions) (*Redis, error) {
	ro, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	if opts.Prefix == "" {
		opts.Prefix = "payd:"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 200 * time.Millisecond
	}
	if opts.ProbeInterval <= 0 {
		opts.ProbeInterval = time.Second
	}
	ro.DialTimeout, ro.ReadTimeout, ro.WriteTimeout, ro.PoolTimeout = opts.Timeout, opts.Timeout, opts.Timeout, opts.Timeout
	ro.ContextTimeoutEnabled = true
	// A retry would double the wait on a dead Redis; the next request
	// is the retry.
	ro.MaxRetries = -1
	rdb := redis.NewClient(ro)
	return &Redis{rdb: rdb, gcra: redis_rate.NewLimiter(rdb), opts: opts, local: NewLocal()}, nil
}

// Close closes the connections to Redis.
func (r *Redis) Close() error { return r.rdb.Close() }

// Ping checks that Redis answers, within the limiter's timeout. It counts
// like any call: a failure begins an outage (OnDown), a success during one
// ends it.
func (r *Redis) Ping(ctx context.Context) error {
	return r.call(ctx, func(ctx context.Context) error { return r.rdb.Ping(ctx).Err() })
}

// Fallbacks counts the decisions the stand-in made because Redis could
// not be reached.
func (r *Redis) Fallbacks() uint64 { return r.fallbacks.Load() }

// Allow implements Limiter.
func (r *Redis) Allow(ctx context.Context, key string, perMinute int, now time.Time) (bool, time.Duration, error) {
	var res *redis_rate.Result
	err := r.call(ctx, func(ctx context.Context) (err error) {
		res, err = r.gcra.Allow(ctx, r.opts.Prefix+key, redis_rate.PerMinute(perMinute))
		return err
	})
	if err != nil {
		ok, wait := r.local.allow(key, perMinute, now)
		return ok, wait, err
	}
	if res.Allowed == 0 {
		return false, max(res.RetryAfter, time.Millisecond), nil
	}
	return true, 0, nil
}

// giveBack returns one token to a GCRA cell kept as redis_rate keeps it:
// the theoretical arrival time in seconds since 2017-01-01 (Redis's own
// clock). Moving it back one emission interval is one token more; a cell
// at or before now is a full bucket and is deleted, as redis_rate leaves
// no key for one. Calling AllowN with a negative cost would not do: it
// writes the cell only while it stays ahead of now, so the last token
// would never come back.
var giveBack = redis.NewScript(`
-- TIME before a write: replicate the effects, not the script (needed
-- before Redis 5, as redis_rate's own script does).
redis.replicate_commands()
local tat = tonumber(redis.call("GET", KEYS[1]))
if not tat then
  return 0
end
local now = redis.call("TIME")
now = (now[1] - 1483228800) + (now[2] / 1000000)
tat = tat - tonumber(ARGV[1])
if tat <= now then
  redis.call("DEL", KEYS[1])
  return 1
end
redis.call("SET", KEYS[1], tat, "EX", math.ceil(tat - now))
return 1
`)

// Return implements Limiter. The cell is the one redis_rate keeps for key
// ("rate:" before the prefixed key).
func (r *Redis) Return(ctx context.Context, key string, perMinute int, now time.Time) error {
	err := r.call(ctx, func(ctx context.Context) error {
		return giveBack.Run(ctx, r.rdb, []string{"rate:" + r.opts.Prefix + key}, emission(perMinute).Seconds()).Err()
	})
	if err != nil {
		// The stand-in took the token while Redis was away (or will be
		// asked next): it gets it back.
		_ = r.local.Return(ctx, key, perMinute, now)
	}
	return err
}

// call runs one Redis operation within the timeout, keeping track of
// outages. It fails at once, without calling Redis, during an outage
// between probes.
func (r *Redis) call(ctx context.Context, op func(context.Context) error) error {
	r.mu.Lock()
	if r.down {
		if time.Now().Before(r.probeAt) {
			r.mu.Unlock()
			r.fallbacks.Add(1)
			return fmt.Errorf("%w: redis down since %s", ErrUnavailable, r.downSince.Format(time.RFC3339))
		}
		// This call is the probe; the others keep the stand-in until
		// it reports.
		r.probeAt = time.Now().Add(r.opts.ProbeInterval)
	}
	r.mu.Unlock()

	cctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	err := op(cctx)
	cancel()
	if err != nil && ctx.Err() != nil {
		// The caller gave up (its client went away): that says nothing
		// about Redis.
		return ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		if r.down {
			r.down = false
			if r.opts.OnUp != nil {
				r.opts.OnUp(time.Since(r.downSince))
			}
		}
		return nil
	}
	r.fallbacks.Add(1)
	if !r.down {
		r.down, r.downSince = true, time.Now()
		r.probeAt = r.downSince.Add(r.opts.ProbeInterval)
		if r.opts.OnDown != nil {
			r.opts.OnDown(err)
		}
	}
	return errors.Join(ErrUnavailable, err)
}
