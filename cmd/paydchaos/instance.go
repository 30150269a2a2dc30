//go:build linux

package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/paydhq/payd/internal/pgserver"
)

// instance is one `payd serve` process; it keeps its ports across restarts,
// as a host behind the load balancer would.
type instance struct {
	n               int
	bin, dir        string
	port, adminPort int
	args            []string
	mu              sync.Mutex
	proc            *pgserver.Child
	starts, kills   int
}

func (in *instance) addr() string     { return "127.0.0.1:" + strconv.Itoa(in.port) }
func (in *instance) adminURL() string { return "http://127.0.0.1:" + strconv.Itoa(in.adminPort) }
func (in *instance) log() string      { return filepath.Join(in.dir, fmt.Sprintf("payd-%d.log", in.n)) }
func (in *instance) readyURL() string { return "http://" + in.addr() + "/readyz" }
func (in *instance) String() string   { return fmt.Sprintf("payd-%d", in.n) }

// start starts the process and waits until it is ready.
func (in *instance) start() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	args := append([]string{"serve", "--addr", in.addr(), "--admin-addr", "127.0.0.1:" + strconv.Itoa(in.adminPort),
		"--data-dir", filepath.Join(in.dir, fmt.Sprintf("data-%d", in.n)), "--log-format", "json"}, in.args...)
	p, err := pgserver.StartChild(in.String(), exec.Command(in.bin, args...), in.log(), syscall.SIGKILL, nil)
	if err != nil {
		return err
	}
	in.proc = p
	in.starts++
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if p.Exited() {
			return fmt.Errorf("%s exited at start; see %s", in, in.log())
		}
		if resp, err := client.Get(in.readyURL()); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s not ready within 60s; see %s", in, in.log())
}

// kill ends the process with SIGKILL: no draining, no cleanup, as a crash.
func (in *instance) kill() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.proc.Stop(syscall.SIGKILL, 5*time.Second)
	in.kills++
}

// shutdown stops the process gracefully (SIGTERM) at the end of the run.
func (in *instance) shutdown() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.proc != nil && !in.proc.Exited() {
		in.proc.Stop(syscall.SIGTERM, 20*time.Second)
	}
}

func (in *instance) alive() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.proc != nil && !in.proc.Exited()
}

// printLogged prints what the instances logged for the given request ids
// (the answers of 500), so that a failed run says why even when its
// folder is gone with the machine it ran on.
func (cl *cluster) printLogged(requestIDs []string) {
	for _, id := range requestIDs {
		if id == "" {
			continue
		}
		shown := 0
		for _, in := range cl.instances {
			f, err := os.Open(in.log())
			if err != nil {
				continue
			}
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() && shown < 8 {
				if line := sc.Text(); strings.Contains(line, id) {
					if len(line) > 2000 {
						line = line[:2000] + "…"
					}
					fmt.Printf("  %s logged for %s: %s\n", in, id, line)
					shown++
				}
			}
			f.Close()
		}
		if shown == 0 {
			fmt.Printf("  no instance logged %s\n", id)
		}
	}
}
