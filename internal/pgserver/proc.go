//go:build linux

package pgserver

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// FreePort asks the kernel for a free loopback port.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Child is a process the caller started and must stop. The kernel sends it
// the death signal given to StartChild if the caller dies first, so
// nothing outlives a run.
type Child struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

// StartChild starts cmd with its output appended to the file log, as the
// user cred when not nil.
func StartChild(name string, cmd *exec.Cmd, log string, deathSig syscall.Signal, cred *syscall.Credential) (*Child, error) {
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if cred != nil {
		os.Chown(log, int(cred.Uid), int(cred.Gid))
	}
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: deathSig, Credential: cred}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &Child{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		f.Close()
		close(c.done)
	}()
	return c, nil
}

// Pid is the process id.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Stop signals the process and waits for it, killing it after grace.
func (c *Child) Stop(sig syscall.Signal, grace time.Duration) {
	if c == nil {
		return
	}
	c.cmd.Process.Signal(sig)
	select {
	case <-c.done:
	case <-time.After(grace):
		c.cmd.Process.Kill()
		<-c.done
	}
}

// Exited reports whether the process has ended.
func (c *Child) Exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// Done is closed when the process has ended.
func (c *Child) Done() <-chan struct{} { return c.done }

// WaitTCP waits until something accepts connections on port.
func WaitTCP(port int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("nothing listens on 127.0.0.1:%d after %v", port, timeout)
}

// killTree sends SIGKILL to pid and to every process descended from it,
// children first seen, so that none is left to carry on: a machine that
// dies takes all of them at once.
func killTree(pid int) {
	for _, p := range append(descendants(pid), pid) {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// descendants lists the processes below pid, read from /proc.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name in parentheses may hold spaces; the fields
		// after its closing parenthesis are state, then the parent.
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		parent[p] = pp
	}
	var out []int
	var walk func(int)
	walk = func(of int) {
		for p, pp := range parent {
			if pp == of {
				out = append(out, p)
				walk(p)
			}
		}
	}
	walk(pid)
	return out
}
