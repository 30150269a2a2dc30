package paydtest

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// failureLog keeps the service's warnings and errors (a failed job, a
// deadlock, River's own complaints) while a test runs and prints the last
// of them only if the test fails: a wait that times out in CI then says
// what the service was doing, and a passing test prints nothing.
type failureLog struct {
	mu    sync.Mutex
	lines []string
}

// failureLogLines bounds what a failing test prints.
const failureLogLines = 200

func (l *failureLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, string(bytes.TrimRight(p, "\n")))
	if len(l.lines) > 2*failureLogLines {
		l.lines = append(l.lines[:0], l.lines[len(l.lines)-failureLogLines:]...)
	}
	return len(p), nil
}

func (l *failureLog) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines[max(0, len(l.lines)-failureLogLines):], "\n")
}

// logOnFailure returns a logger for a service under test and the cleanup
// that prints its last lines if the test failed. The cleanup is to be
// registered after the service's own, so that it runs before the service
// stops: the shutdown's complaints (a job cut off by the closing
// database) would only bury the failure's cause.
func logOnFailure(t testing.TB) (*slog.Logger, func()) {
	l := &failureLog{}
	h := slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelWarn})
	return slog.New(h), func() {
		if t.Failed() {
			if s := l.last(); s != "" {
				t.Logf("the service's last warnings and errors:\n%s", s)
			}
		}
	}
}
