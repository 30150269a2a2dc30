package paydtest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// RedisServer is a throwaway redis-server of one test, on a loopback port of
// its own, so that the test can stop and start it without disturbing the
// machine's Redis. It keeps nothing on disk.
type RedisServer struct {
	t    testing.TB
	Port int
	cmd  *exec.Cmd
}

// StartRedis starts a redis-server for t and stops it at the end. Without
// the binary the test is skipped, unless PAYD_TEST_REDIS_URL is set (CI),
// where it fails.
func StartRedis(t testing.TB) *RedisServer {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("PAYD_TEST_REDIS_URL") != "" {
			t.Fatal("redis-server is required (PAYD_TEST_REDIS_URL is set) but not installed")
		}
		t.Skip("redis-server is not installed: skipping the Redis outage test")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &RedisServer{t: t, Port: port}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// URL is the server's redis:// URL.
func (s *RedisServer) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", s.Port) }

// Start starts the server (again) on its port and waits until it answers.
func (s *RedisServer) Start() {
	s.t.Helper()
	s.cmd = exec.Command("redis-server", "--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.t.TempDir())
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if redisPing(s.Port) == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("redis-server on port %d did not answer within 10s", s.Port)
}

// Stop kills the server (SIGKILL, as a crash would) and waits for it.
func (s *RedisServer) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// redisPing speaks just enough RESP to see a PONG.
func redisPing(port int) error {
	d := net.Dialer{Timeout: 200 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	c, err := d.DialContext(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("redis answered %q", line)
	}
	return nil
}
