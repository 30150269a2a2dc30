package deploy

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paydhq/payd/internal/pgserver"
)

// TestSandboxRun runs payd under systemd/sandbox-run: the parts of
// payd.service's sandbox a host without systemd as PID 1 can reproduce
// (docs/deployment.md, "systemd", says which). It needs root, unshare,
// setpriv and curl; PAYD_DEPLOY_REQUIRED=1 makes their absence a failure.
func TestSandboxRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts payd")
	}
	t.Parallel()
	missing := func(why string) {
		if os.Getenv("PAYD_DEPLOY_REQUIRED") == "1" {
			t.Fatalf("required here (PAYD_DEPLOY_REQUIRED=1): %s", why)
		}
		t.Skip(why)
	}
	if os.Geteuid() != 0 {
		missing("sandbox-run needs root for its mount namespace")
	}
	for _, tool := range []string{"unshare", "setpriv", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing(tool + " is not installed")
		}
	}
	bin := filepath.Join(t.TempDir(), "payd")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/paydhq/payd/cmd/payd").CombinedOutput(); err != nil {
		t.Fatalf("build payd: %v\n%s", err, out)
	}
	cmd := exec.Command("systemd/sandbox-run", bin)
	cmd.Env = append(os.Environ(), "PAYD_ADDR="+freeAddr(t), "PAYD_ADMIN_ADDR="+freeAddr(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sandbox-run: %v\n%s", err, out)
	}
	for _, want := range []string{"ready as uid", "takes the token", "read-only outside the state directory", "exited 0 on SIGTERM"} {
		if !strings.Contains(string(out), "sandbox-run: ") || !strings.Contains(string(out), want) {
			t.Errorf("sandbox-run did not report %q:\n%s", want, out)
		}
	}
}

// freeAddr is a loopback address with a port free at the moment.
func freeAddr(t *testing.T) string {
	t.Helper()
	port, err := pgserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}
