package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paydhq/payd/internal/seal"
	"github.com/paydhq/payd/internal/serve"
)

// testSecretsKey is a fresh key-encryption key written as PAYD_SECRETS_KEY
// takes it.
func testSecretsKey(t *testing.T) string {
	t.Helper()
	k, err := seal.Generate("test")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Outside --dev, serve refuses to start without its key, and says how to
// give one; with --dev it makes one in its data directory, readable by
// its owner alone, and keeps it across starts.
func TestServeSecretsKey(t *testing.T) {
	t.Parallel()
	noEnv := func(string) string { return "" }
	err := run(context.Background(), []string{"serve", "--data-dir", t.TempDir(), "--addr", freeAddr(t)}, noEnv, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "--secrets-key-file") || !strings.Contains(err.Error(), "PAYD_SECRETS_KEY") {
		t.Fatalf("serve without a key: %v", err)
	}

	// A key file others may read, a malformed key, and two keys at once
	// are refused before anything starts.
	dir := t.TempDir()
	loose := filepath.Join(dir, "loose.key")
	if err := os.WriteFile(loose, []byte(testSecretsKey(t)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		args []string
		env  map[string]string
		want string
	}{
		"LooseFile": {args: []string{"--secrets-key-file", loose}, want: "chmod 600"},
		"BadEnv":    {env: map[string]string{"PAYD_SECRETS_KEY": "k1:short"}, want: "PAYD_SECRETS_KEY"},
		"Both":      {args: []string{"--secrets-key-file", loose}, env: map[string]string{"PAYD_SECRETS_KEY": testSecretsKey(t)}, want: "not both"},
	} {
		args := append([]string{"serve", "--data-dir", t.TempDir(), "--addr", freeAddr(t)}, c.args...)
		err := run(context.Background(), args, func(k string) string { return c.env[k] }, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, c.want)
		}
	}

	// --dev makes its key once and keeps it.
	devDir := t.TempDir()
	addr := freeAddr(t)
	srv := startServe(t, "--dev", "--data-dir", devDir, "--addr", addr, "--admin-addr", freeAddr(t))
	waitHealthy(t, http.DefaultClient, "http://"+addr, srv)
	path := filepath.Join(devDir, serve.SecretsKeyFileName)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("--dev made no key file: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	first, _ := os.ReadFile(path)
	again, err := serve.DevSecretsKeys(devDir)
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := seal.Parse(string(first)); k == nil || k.Primary() != again.Primary() {
		t.Fatalf("the key file changed: %q", first)
	}
}
