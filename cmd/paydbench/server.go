package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// buildPayd builds ./cmd/payd once into dir. The module cache already holds
// everything this program was built from, so the build is kept off the
// network (GOPROXY=off) and on the installed toolchain.
func buildPayd(ctx context.Context, goBin, dir string) (string, error) {
	out := filepath.Join(dir, "payd")
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "build", "-o", out, "github.com/paydhq/payd/cmd/payd")
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOTOOLCHAIN=local")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build payd: %v\n%s", err, b)
	}
	return out, nil
}

// devInfo is the part of <data-dir>/dev.json the benchmark needs.
type devInfo struct {
	AdminToken string `json:"admin_token"`
	Shops      []struct {
		Region    string `json:"region"`
		ShopID    string `json:"shop_id"`
		SecretKey string `json:"secret_key"`
	} `json:"shops"`
	Dashboard dashboardUser `json:"dashboard"`
}

// server is a `payd serve --dev` child process.
type server struct {
	cmd      *exec.Cmd
	done     chan struct{}
	api      string // http://127.0.0.1:port
	admin    string
	logPath  string
	dataDir  string
	exitErr  error
	stopped  bool
	stopWait time.Duration
}

// pid is the server's process id.
func (s *server) pid() int { return s.cmd.Process.Pid }

// freePort asks the kernel for a free loopback port. Another process may
// take it before payd listens; startServer then fails with payd's own
// message rather than measuring something else.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// startServer runs payd on the given database and waits until it is ready.
// databaseURL is empty for SQLite in dataDir.
func startServer(ctx context.Context, bin, dataDir, databaseURL, logPath string, timeout time.Duration) (*server, error) {
	apiPort, err := freePort()
	if err != nil {
		return nil, err
	}
	adminPort, err := freePort()
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own descriptor
	args := []string{"serve", "--dev",
		"--data-dir", dataDir,
		"--addr", fmt.Sprintf("127.0.0.1:%d", apiPort),
		"--admin-addr", fmt.Sprintf("127.0.0.1:%d", adminPort),
		"--database-url=" + databaseURL,
		// Every request of the load comes from 127.0.0.1, and each takes
		// a token of the address's failed-authentication budget before
		// its key is checked, given back when the key is right: 64
		// clients at once overdraw the default 60 and get 429 with right
		// keys.
		"--auth-failures-per-minute=" + strconv.Itoa(authFailuresPerMinute),
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = serverEnv(os.Environ())
	setParentDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start payd: %w", err)
	}
	s := &server{cmd: cmd, done: make(chan struct{}), logPath: logPath, dataDir: dataDir, stopWait: 15 * time.Second,
		api:   fmt.Sprintf("http://127.0.0.1:%d", apiPort),
		admin: fmt.Sprintf("http://127.0.0.1:%d", adminPort)}
	go func() {
		s.exitErr = cmd.Wait()
		close(s.done)
	}()
	if err := s.waitReady(ctx, timeout); err != nil {
		s.stop()
		return nil, fmt.Errorf("%w\n%s", err, tail(logPath, 20))
	}
	return s, nil
}

// serverEnv drops PAYD_* variables: payd reads each flag's default from
// its PAYD_ twin, and an ambient PAYD_DATABASE_URL would quietly put the
// SQLite run on PostgreSQL.
func serverEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PAYD_") {
			out = append(out, kv)
		}
	}
	return out
}

func (s *server) waitReady(ctx context.Context, timeout time.Duration) error {
	client := loopbackClient(1, 2*time.Second)
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("payd exited before it was ready: %v", s.exitErr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.api+"/readyz", nil)
		resp, err := client.Do(req)
		if err != nil {
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil
		}
	}
	return fmt.Errorf("payd not ready after %v", timeout)
}

// stop ends the server: SIGTERM for a graceful shutdown, SIGKILL when it
// takes longer than stopWait. It is safe to call more than once.
func (s *server) stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return
	case <-time.After(s.stopWait):
	}
	s.cmd.Process.Kill()
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
	}
}

// readDev reads dev.json, which payd writes before it starts serving.
func readDev(dataDir string) (*devInfo, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, "dev.json"))
	if err != nil {
		return nil, err
	}
	var d devInfo
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("dev.json: %w", err)
	}
	if d.AdminToken == "" || len(d.Shops) == 0 {
		return nil, errors.New("dev.json has no admin token or no shop")
	}
	return &d, nil
}

// rateLimitPerMinute is what the benchmark sets for the shop's request and
// payment-creation rates. The defaults (600 and 120 a minute) would stop
// the run within a second. 1,000,000 is the largest value the operator API
// accepts (ShopSettings.Validate); at up to 16,666 a second it is far above
// anything one machine reaches here.
const rateLimitPerMinute = 1_000_000

// authFailuresPerMinute is the failed-authentication budget of the
// benchmark's one address: far above any number of clients it runs.
const authFailuresPerMinute = 1_000_000

// raiseLimits lifts the shop's rate limits through the operator API.
func raiseLimits(ctx context.Context, adminURL, token, shopID string) error {
	body, _ := json.Marshal(map[string]int{
		"requests_per_minute": rateLimitPerMinute,
		"payments_per_minute": rateLimitPerMinute,
	})
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPatch, adminURL+"/admin/v1/shops/"+shopID, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	client := loopbackClient(1, 30*time.Second)
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("raise rate limits: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("raise rate limits: %s: %s", resp.Status, b)
	}
	return nil
}

// tail returns the last n lines of a file, for error messages.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "payd log (" + path + "):\n" + strings.Join(lines, "\n")
}
