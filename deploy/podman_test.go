//go:build linux

package deploy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// podman runs buildah and podman on a container storage of the test's own:
// its root, run root, containers.conf, temporary and event files all under
// one directory, which the test removes at its end and checks is gone. It
// never touches the machine's storage nor another user's.
type podman struct {
	dir  string
	env  []string
	opts []string // global options of both commands
}

// newPodman skips the test unless PAYD_IMAGE_REQUIRED=1 (it builds an
// image and runs containers: a minute or two, as root); with it, a missing
// tool fails the test.
func newPodman(t *testing.T) *podman {
	t.Helper()
	if os.Getenv("PAYD_IMAGE_REQUIRED") != "1" {
		t.Skip("the image test runs with PAYD_IMAGE_REQUIRED=1 (make image-test; needs podman, buildah and runc, as root)")
	}
	for _, tool := range []string{"podman", "buildah", "runc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (apt-get install -y --no-install-recommends podman buildah runc): %v", tool, err)
		}
	}
	// A short path: conmon's sockets live under the run root, and a
	// socket's path may not be longer than 107 bytes.
	dir, err := os.MkdirTemp("", "paydimg")
	if err != nil {
		t.Fatal(err)
	}
	p := &podman{dir: dir}
	for _, d := range []string{"root", "runroot", "tmp", "networks"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// crun refuses this machine's hybrid cgroups and runc wants no
	// default ulimits; cgroupfs, as no systemd manages the test.
	conf := `[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
events_logger = "file"
events_logfile_path = "` + filepath.Join(dir, "events.log") + `"
tmp_dir = "` + filepath.Join(dir, "tmp") + `"

[network]
network_config_dir = "` + filepath.Join(dir, "networks") + `"
`
	confPath := filepath.Join(dir, "containers.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	p.env = append(os.Environ(), "CONTAINERS_CONF="+confPath)
	p.opts = []string{"--root", filepath.Join(dir, "root"), "--runroot", filepath.Join(dir, "runroot"), "--storage-driver", "vfs"}
	t.Cleanup(func() { p.removeAll(t) })
	return p
}

// run runs podman with args and returns its standard output, trimmed.
func (p *podman) run(ctx context.Context, args ...string) (string, error) {
	return p.command(ctx, "podman", args...)
}

func (p *podman) command(ctx context.Context, tool string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, tool, append(append([]string{}, p.opts...), args...)...)
	cmd.Env = p.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), errors.New(tool + " " + strings.Join(args, " ") + ": " + err.Error() + ": " + errb.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// logs is what the container wrote to its standard output and error.
func (p *podman) logs(name string) string {
	cmd := exec.Command("podman", append(append([]string{}, p.opts...), "logs", name)...)
	cmd.Env = p.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%s(podman logs: %v)", out, err)
	}
	return string(out)
}

// must is run that fails the test on an error.
func (p *podman) must(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := p.run(ctx, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// build builds the image as `make image` does, into the test's storage.
func (p *podman) build(t *testing.T, image string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.CommandContext(ctx, filepath.Join(filepath.Dir(file), "..", "scripts", "image"), p.opts...)
	cmd.Env = append(p.env, "IMAGE="+image)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/image: %v\n%s", err, out)
	}
}

// secret stores value as the podman secret name.
func (p *podman) secret(t *testing.T, name, value string) {
	t.Helper()
	file := filepath.Join(p.dir, name)
	if err := os.WriteFile(file, []byte(value), 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(file)
	p.must(t, "secret", "create", name, file)
}

// removeAll removes every container, volume, secret and image, then the storage
// itself, and fails the test if anything is left: a container, a mount
// under the directory, or the directory.
func (p *podman) removeAll(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, args := range [][]string{
		{"rm", "--all", "--force", "--time", "0"},
		{"volume", "rm", "--all", "--force"},
		{"secret", "rm", "--all"},
		{"rmi", "--all", "--force"},
	} {
		if _, err := p.run(ctx, args...); err != nil {
			t.Errorf("cleaning up: %v", err)
		}
	}
	if out, err := p.run(ctx, "ps", "--all", "--quiet"); err != nil || out != "" {
		t.Errorf("containers left: %q (%v)", out, err)
	}
	if out, err := p.run(ctx, "volume", "ls", "--quiet"); err != nil || out != "" {
		t.Errorf("volumes left: %q (%v)", out, err)
	}
	if mounts := p.mounts(t); len(mounts) > 0 {
		t.Errorf("still mounted under %s: %v", p.dir, mounts)
		return
	}
	if err := os.RemoveAll(p.dir); err != nil {
		t.Errorf("removing %s: %v", p.dir, err)
	}
	if _, err := os.Stat(p.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is still there: %v", p.dir, err)
	}
}

// mounts lists the mount points under the test's directory.
func (p *podman) mounts(t *testing.T) []string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		t.Errorf("reading mounts: %v", err)
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) > 4 && strings.HasPrefix(fields[4], p.dir) {
			out = append(out, fields[4])
		}
	}
	return out
}
