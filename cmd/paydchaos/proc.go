//go:build linux

package main

import (
	"fmt"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/paydhq/payd/internal/pgserver"
)

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) { return pgserver.FreePort() }

// redisServer is this run's own redis-server, keeping nothing on disk.
type redisServer struct {
	port     int
	log, dir string
	proc     *pgserver.Child
}

func (r *redisServer) url() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

func (r *redisServer) start() error {
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", r.dir)
	p, err := pgserver.StartChild("redis", cmd, r.log, syscall.SIGKILL, nil)
	if err != nil {
		return err
	}
	r.proc = p
	return pgserver.WaitTCP(r.port, 10*time.Second)
}

func (r *redisServer) kill() { r.proc.Stop(syscall.SIGKILL, 5*time.Second) }
