package api

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

type (
	requestIDKey struct{}
	loggerKey    struct{}
)

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// ListenUserAgent is the product `payd listen` names in its User-Agent
// ("payd-listen/<version>"). It polls GET /v1/events every second while it
// runs; those polls are logged at debug, so that the request log at the
// default level keeps the developer's own calls readable.
const ListenUserAgent = "payd-listen"

// requestLevel is the level of a request's log line: debug for a
// successful poll of the event list by `payd listen`, info for the rest.
func requestLevel(r *http.Request, route string, status int) slog.Level {
	if route == "GET /v1/events" && status == http.StatusOK && strings.HasPrefix(r.UserAgent(), ListenUserAgent+"/") {
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

// maxHeaderBytes bounds the request's headers; larger requests are refused
// with the contract's error rather than the server's bare 431.
const maxHeaderBytes = 32 << 10

// statusRecorder remembers the status for logs and metrics.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// frame gives every request an id (the X-Request-Id header and the
// request_id of errors), a logger carrying it, panic recovery, metrics and
// one access log line. Nothing here logs headers or bodies: they carry
// secrets and one-time tokens.
func frame(base *slog.Logger, m *Metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := "req_" + ulid.MustNew(ulid.Timestamp(start), rand.Reader).String()
		log := base.With("request_id", id)
		ctx := context.WithValue(context.WithValue(r.Context(), requestIDKey{}, id), loggerKey{}, log)
		r = r.WithContext(ctx)
		w.Header().Set("X-Request-Id", id)
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.Error("panic", "panic", v)
				if rec.status == 0 {
					writeError(rec, r, errPanic)
				}
			}
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			m.observe(route, rec.status, time.Since(start))
			log.Log(r.Context(), requestLevel(r, route, rec.status), "request", "method", r.Method, "route", route,
				"status", rec.status, "duration_ms", time.Since(start).Milliseconds())
		}()
		if headerSize(r) > maxHeaderBytes {
			writeError(rec, r, invalidf("", "request headers exceed %d bytes", maxHeaderBytes))
			return
		}
		next.ServeHTTP(rec, r)
	})
}

func headerSize(r *http.Request) int {
	n := len(r.RequestURI)
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}
