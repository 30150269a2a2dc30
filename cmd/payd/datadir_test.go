package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd/internal/paydtest"
)

var built struct {
	once sync.Once
	bin  string
	err  error
	out  []byte
}

// TestMain removes the binary buildPayd made.
func TestMain(m *testing.M) {
	// The services the tests start share emptied schemas.
	code := paydtest.Main(m)
	if built.bin != "" {
		os.RemoveAll(filepath.Dir(built.bin))
	}
	os.Exit(code)
}

// buildPayd builds the binary once for the tests that run it as a process.
func buildPayd(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "payd-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(dir, "payd")
		built.out, built.err = exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("build: %v\n%s", built.err, built.out)
	}
	return built.bin
}

// TestSecondServeRefusesDataDir runs two real `payd serve` processes on
// one data directory: the second refuses to start, naming the first, and
// once the first is killed (SIGKILL: no chance to clean up) the directory
// can be served again.
func TestSecondServeRefusesDataDir(t *testing.T) {
	if testing.Short() {
		t.Skip("starts payd processes")
	}
	t.Parallel()
	bin := buildPayd(t)
	dir := filepath.Join(t.TempDir(), "data")
	first := &crashServer{bin: bin, dir: dir, addr: freeAddr(t), admin: freeAddr(t)}
	first.start(t)
	defer first.kill()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "serve", "--dev", "--data-dir", dir,
		"--addr", freeAddr(t), "--admin-addr", freeAddr(t)).CombinedOutput()
	if err == nil || ctx.Err() != nil {
		t.Fatalf("the second payd on the same data directory did not refuse to start (err %v):\n%s", err, out)
	}
	want := "in use by process " + strconv.Itoa(first.cmd.Process.Pid)
	if !strings.Contains(string(out), want) || !strings.Contains(string(out), "PostgreSQL") {
		t.Fatalf("refusal does not say %q and how to run several instances:\n%s", want, out)
	}

	first.kill()
	second := &crashServer{bin: bin, dir: dir, addr: freeAddr(t), admin: freeAddr(t)}
	second.start(t)
	second.kill()
}
