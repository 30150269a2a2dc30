package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// maxExposure is the bound on `systemd-analyze security`'s exposure score
// for payd.service that docs/deployment.md records (1.2 "OK" when
// written, on a scale from 0, the best, to 10). A change that loosens the
// sandbox past it fails here; one that tightens it may lower the bound.
const maxExposure = 1.5

// shutdownGrace is how long payd serve waits for requests and jobs in
// flight once the drain delay is over (cmd/payd/serve.go, shutdownCtx).
const shutdownGrace = 30 * time.Second

// systemdAnalyze returns the path of systemd-analyze. Without it the
// checks skip, except where PAYD_DEPLOY_REQUIRED=1 (CI) makes them
// mandatory.
func systemdAnalyze(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("PAYD_DEPLOY_REQUIRED") == "1" {
			t.Fatalf("systemd-analyze is required here (PAYD_DEPLOY_REQUIRED=1): %v", err)
		}
		t.Skip("systemd-analyze is not installed (apt-get install systemd)")
	}
	return path
}

// unitCopy writes payd.service into a directory of its own with ExecStart
// pointing at an executable that exists (verify checks it): this test's
// own binary stands in for payd.
func unitCopy(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	unit := strings.ReplaceAll(SystemdUnit(), "/usr/local/bin/payd", self)
	path := filepath.Join(t.TempDir(), "payd.service")
	if err := os.WriteFile(path, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSystemdUnitVerifies: systemd-analyze verify finds nothing to say
// about payd.service.
func TestSystemdUnitVerifies(t *testing.T) {
	t.Parallel()
	sa := systemdAnalyze(t)
	out, err := exec.Command(sa, "verify", unitCopy(t)).CombinedOutput()
	// Other units of the host may draw remarks; payd's own may not.
	if err != nil || bytes.Contains(out, []byte("payd")) {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

var exposureLine = regexp.MustCompile(`Overall exposure level for payd\.service: ([0-9.]+) (\S+)`)

// TestSystemdUnitExposure: the sandbox's exposure score stays within the
// bound docs/deployment.md records.
func TestSystemdUnitExposure(t *testing.T) {
	t.Parallel()
	sa := systemdAnalyze(t)
	out, err := exec.Command(sa, "security", "--offline=true", unitCopy(t)).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	m := exposureLine.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no overall exposure level in:\n%s", out)
	}
	score, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	if score > maxExposure {
		t.Fatalf("exposure %.1f %s is above the recorded bound %.1f; the sandbox was loosened:\n%s", score, m[2], maxExposure, out)
	}
	t.Logf("exposure %.1f %s (bound %.1f)", score, m[2], maxExposure)
}

// TestSystemdStopTimeout: systemd waits longer for the stop than payd's
// drain delay (the example environment's) and shutdown grace together,
// and signals what payd drains on.
func TestSystemdStopTimeout(t *testing.T) {
	t.Parallel()
	stop := UnitValues(SystemdUnit(), "TimeoutStopSec")
	if len(stop) != 1 {
		t.Fatalf("TimeoutStopSec = %q, want one", stop)
	}
	timeout, err := time.ParseDuration(stop[0])
	if err != nil {
		t.Fatalf("TimeoutStopSec %q: %v", stop[0], err)
	}
	drain, err := time.ParseDuration(Environment(SystemdEnvironment())["PAYD_DRAIN_DELAY"])
	if err != nil {
		t.Fatalf("payd.env's PAYD_DRAIN_DELAY: %v", err)
	}
	if timeout <= drain+shutdownGrace {
		t.Errorf("TimeoutStopSec %v is not above the drain delay %v and the shutdown grace %v", timeout, drain, shutdownGrace)
	}
	if k := UnitValues(SystemdUnit(), "KillSignal"); len(k) != 1 || k[0] != "SIGTERM" {
		t.Errorf("KillSignal = %q, want SIGTERM: payd drains on it", k)
	}
	if ty := UnitValues(SystemdUnit(), "Type"); len(ty) != 1 || ty[0] != "notify" {
		t.Errorf("Type = %q, want notify", ty)
	}
}
