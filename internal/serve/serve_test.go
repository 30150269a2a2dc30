package serve_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/serve"
)

// TestLiveProviderNames checks that New refuses live adapters whose names
// would make a route ambiguous, before anything is served.
func TestLiveProviderNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		providers []payd.Provider
	}{
		{"SandboxName", []payd.Provider{paydtest.NewLiveProvider("sandbox")}},
		{"SandboxBackupName", []payd.Provider{paydtest.NewLiveProvider("sandbox_backup")}},
		{"Twice", []payd.Provider{paydtest.NewLiveProvider("acme_bank"), paydtest.NewLiveProvider("acme_bank")}},
		{"Empty", []payd.Provider{paydtest.NewLiveProvider("")}},
		{"Nil", []payd.Provider{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in, err := serve.New(context.Background(), serve.Config{DataDir: t.TempDir(), LiveProviders: tt.providers})
			if err == nil {
				in.Close(context.Background())
				t.Fatal("New accepted the live providers")
			}
			if !strings.Contains(err.Error(), "live providers") {
				t.Errorf("error %q does not name the live providers", err)
			}
		})
	}
}

// TestRefusesNewerSchema: a database migrated by a newer build (here, one
// with a migration this build does not know) is not served.
func TestRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	in, err := serve.New(ctx, serve.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Store.DB().ExecContext(ctx, `INSERT INTO payd_migrations (version, name, applied_at) VALUES (9999, '9999_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	in.Close(ctx)
	in, err = serve.New(ctx, serve.Config{DataDir: dir})
	if err == nil {
		in.Close(ctx)
		t.Fatal("New served a database with an unknown migration")
	}
	if !strings.Contains(err.Error(), "9999") {
		t.Errorf("error %q does not name the unknown migration", err)
	}
}

// TestRefusesUnbuiltStage: a stage after the build's is refused, so its
// routes never turn into silent 404s.
func TestRefusesUnbuiltStage(t *testing.T) {
	t.Parallel()
	// The top of the roadmap is built; a stage past it can only come from
	// a configuration mistake, and must still be refused.
	beyond := payd.BuiltStage + 1
	in, err := serve.New(context.Background(), serve.Config{DataDir: t.TempDir(), Stage: beyond})
	if err == nil {
		in.Close(context.Background())
		t.Fatalf("New accepted stage %s", beyond)
	}
	if !strings.Contains(err.Error(), beyond.String()) {
		t.Errorf("error %q does not name the stage", err)
	}
}

// TestDataDirServedOnce: a second service on the same SQLite data directory
// is refused while the first runs, and accepted once it is closed.
func TestDataDirServedOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	first, err := serve.New(ctx, serve.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if second, err := serve.New(ctx, serve.Config{DataDir: dir}); err == nil {
		second.Close(ctx)
		first.Close(ctx)
		t.Fatal("a second service opened the same data directory")
	} else if !strings.Contains(err.Error(), "is in use by process") {
		t.Errorf("refusal %q does not say the directory is in use", err)
	}
	if err := first.Close(ctx); err != nil {
		t.Fatal(err)
	}
	again, err := serve.New(ctx, serve.Config{DataDir: dir})
	if err != nil {
		t.Fatalf("the data directory stayed locked after Close: %v", err)
	}
	again.Close(ctx)
}

// TestRedisUnreachableAtStart: a Redis that does not answer does not stop
// the start; the outage shows in the metrics at once.
func TestRedisUnreachableAtStart(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there any more
	ctx := context.Background()
	in, err := serve.New(ctx, serve.Config{DataDir: t.TempDir(), RedisURL: "redis://" + addr + "/0"})
	if err != nil {
		t.Fatalf("start with Redis unreachable: %v", err)
	}
	defer in.Close(ctx)
	families, err := in.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if g := m.GetGauge(); g != nil {
				got[f.GetName()] = g.GetValue()
			}
			if c := m.GetCounter(); c != nil {
				got[f.GetName()] = c.GetValue()
			}
		}
	}
	if got["payd_ratelimit_redis_up"] != 0 || got["payd_ratelimit_redis_outages_total"] != 1 {
		t.Fatalf("metrics after a start without Redis: up=%v outages=%v, want 0 and 1",
			got["payd_ratelimit_redis_up"], got["payd_ratelimit_redis_outages_total"])
	}
}
