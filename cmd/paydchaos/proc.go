//go:build linux

package main

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"
)

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// child is a process this program started and must stop. The kernel kills
// it too if this program dies first (Pdeathsig), so nothing outlives a run.
type child struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

func startChild(name string, cmd *exec.Cmd, log string, sig syscall.Signal, cred *syscall.Credential) (*child, error) {
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: sig, Credential: cred}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		f.Close()
		close(c.done)
	}()
	return c, nil
}

// stop signals the process and waits for it, killing it after grace.
func (c *child) stop(sig syscall.Signal, grace time.Duration) {
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

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// waitTCP waits until something accepts connections on port.
func waitTCP(port int, timeout time.Duration) error {
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

// postgres is a throwaway PostgreSQL cluster of this run: its own data
// directory, its own loopback port, never the machine's server.
type postgres struct {
	bin, dir, log string
	port          int
	cred          *syscall.Credential
	proc          *child
}

// pgBinDir finds the newest installed PostgreSQL's binaries.
func pgBinDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		a, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		b, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return a > b
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("no PostgreSQL binaries (initdb) under /usr/lib/postgresql/*/bin or on PATH")
}

// newPostgres runs initdb in dir. PostgreSQL refuses to run as root, so as
// root the cluster belongs to the postgres user.
func newPostgres(dir string) (*postgres, error) {
	bin, err := pgBinDir()
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	pg := &postgres{bin: bin, dir: filepath.Join(dir, "pg"), log: filepath.Join(dir, "postgres.log"), port: port}
	if err := os.MkdirAll(pg.dir, 0o700); err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs a postgres user for the cluster: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		pg.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		// The run's directory must be passable, the cluster's its own.
		os.Chmod(dir, 0o755)
		if err := os.Chown(pg.dir, uid, gid); err != nil {
			return nil, err
		}
		f, err := os.Create(pg.log)
		if err != nil {
			return nil, err
		}
		f.Close()
		os.Chown(pg.log, uid, gid)
	}
	cmd := exec.Command(filepath.Join(bin, "initdb"), "-D", pg.dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: pg.cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	return pg, nil
}

func (pg *postgres) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", pg.port)
}

// start runs the postmaster in the foreground of this program (no pg_ctl
// daemon), so that it is this program's child and dies with it.
func (pg *postgres) start() error {
	cmd := exec.Command(filepath.Join(pg.bin, "postgres"), "-D", pg.dir, "-p", strconv.Itoa(pg.port),
		"-k", pg.dir, "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=250",
		"-c", "fsync=off", "-c", "full_page_writes=off", "-c", "shared_buffers=32MB")
	p, err := startChild("postgres", cmd, pg.log, syscall.SIGQUIT, pg.cred)
	if err != nil {
		return err
	}
	pg.proc = p
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if p.exited() {
			return fmt.Errorf("postgres exited at start; see %s", pg.log)
		}
		db, err := sql.Open("pgx", pg.url())
		if err == nil {
			err = db.PingContext(ctx)
			db.Close()
			if err == nil {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("postgres did not answer within 30s; see %s", pg.log)
}

// stop shuts the cluster down: fast (SIGINT: sessions are terminated, a
// checkpoint is written) or immediate (SIGQUIT: as a crash, recovery at
// the next start).
func (pg *postgres) stop(immediate bool) {
	sig := syscall.SIGINT
	if immediate {
		sig = syscall.SIGQUIT
	}
	pg.proc.stop(sig, 30*time.Second)
}

// redisServer is this run's own redis-server, keeping nothing on disk.
type redisServer struct {
	port     int
	log, dir string
	proc     *child
}

func (r *redisServer) url() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

func (r *redisServer) start() error {
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", r.dir)
	p, err := startChild("redis", cmd, r.log, syscall.SIGKILL, nil)
	if err != nil {
		return err
	}
	r.proc = p
	return waitTCP(r.port, 10*time.Second)
}

func (r *redisServer) kill() { r.proc.stop(syscall.SIGKILL, 5*time.Second) }
