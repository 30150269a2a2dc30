package serve

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paydhq/payd/internal/ratelimit"
)

// newLimiter returns the rate limiter: in the process, or in Redis with
// cfg.RedisURL. An outage of Redis is logged once when it begins and once
// when it ends, and shows in the metrics: payd_ratelimit_redis_up (0 during
// an outage), payd_ratelimit_redis_outages_total and
// payd_ratelimit_redis_fallbacks_total (decisions the in-process stand-in
// made meanwhile).
func newLimiter(cfg Config, log *slog.Logger, reg *prometheus.Registry) (ratelimit.Limiter, error) {
	if cfg.RedisURL == "" {
		return ratelimit.NewLocal(), nil
	}
	up := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "payd_ratelimit_redis_up", Help: "1 while the rate limit store (Redis) answers, 0 during an outage.",
	})
	outages := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "payd_ratelimit_redis_outages_total", Help: "Outages of the rate limit store (Redis) seen by this instance.",
	})
	up.Set(1)
	r, err := ratelimit.NewRedis(cfg.RedisURL, ratelimit.RedisOptions{
		Prefix: cfg.RedisPrefix,
		OnDown: func(err error) {
			up.Set(0)
			outages.Inc()
			log.Error("rate limit store unreachable: money operations answer 503 until it is back; other requests are limited per instance",
				"err", err.Error())
		},
		OnUp: func(outage time.Duration) {
			up.Set(1)
			log.Info("rate limit store reachable again", "outage_s", outage.Round(time.Millisecond).Seconds())
		},
	})
	if err != nil {
		return nil, err
	}
	fallbacks := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "payd_ratelimit_redis_fallbacks_total",
		Help: "Rate limit decisions made in the process because the rate limit store (Redis) was unreachable.",
	}, func() float64 { return float64(r.Fallbacks()) })
	reg.MustRegister(up, outages, fallbacks)
	// An unreachable Redis does not stop the start: it is an outage like
	// any other, reported now rather than at the first request.
	r.Ping(context.Background())
	return r, nil
}
