package serve_test

import (
	"context"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/paydtest"
	"github.com/paydhq/payd/serve"
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
