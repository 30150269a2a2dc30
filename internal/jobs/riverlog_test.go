package jobs

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/sqlstore"
)

// River's routine reports — the producer's job counts every five seconds,
// a maintenance pass, the SQLite poll notice — are debug lines, not info:
// at the default level the log shows what matters. Warnings keep their
// level.
func TestRiverRoutineAtDebug(t *testing.T) {
	t.Parallel()
	var info, debug bytes.Buffer
	infoLog := riverLog(slog.New(slog.NewTextHandler(&info, nil)))
	debugLog := riverLog(slog.New(slog.NewTextHandler(&debug, &slog.HandlerOptions{Level: slog.LevelDebug})))
	for _, l := range []*slog.Logger{infoLog, debugLog} {
		l = l.With("component", "jobs")
		l.Info("producer: Producer job counts", "num_completed_jobs", 3, "queue", "default")
		l.Info("maintenance.JobScheduler: Ran successfully", "num_jobs_scheduled", 1)
		l.Info("River client started")
		l.Warn("producer: Producer job counts") // not routine at warn
	}
	if got := info.String(); strings.Contains(got, "level=INFO msg=\"producer") || strings.Contains(got, "Ran successfully") ||
		!strings.Contains(got, "River client started") || !strings.Contains(got, "level=WARN") {
		t.Fatalf("at info:\n%s", got)
	}
	if got := debug.String(); !strings.Contains(got, "level=DEBUG msg=\"producer: Producer job counts\" component=jobs num_completed_jobs=3") ||
		!strings.Contains(got, "level=DEBUG msg=\"maintenance.JobScheduler: Ran successfully\"") {
		t.Fatalf("at debug:\n%s", got)
	}

	// The queue hands River that logger: on SQLite, River's poll notice
	// at construction stays out of an info log.
	store, err := sqlstore.Open(context.Background(), "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var queueLog bytes.Buffer
	if _, err := New(store.DB(), store.Dialect(), &payd.TestClock{}, slog.New(slog.NewTextHandler(&queueLog, nil)), Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(queueLog.String(), "poll only mode") {
		t.Fatalf("River's poll notice at info:\n%s", queueLog.String())
	}
}
