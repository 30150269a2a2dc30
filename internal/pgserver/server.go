//go:build linux

package pgserver

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// BinDir finds the newest installed PostgreSQL's binaries.
func BinDir() (string, error) {
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

// owner is the user the servers run as: the postgres user when this
// process is root (PostgreSQL refuses root), else nil (this process's
// user). The parent directory is made passable for it.
func owner(parent string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root needs a postgres user for the servers: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	os.Chmod(parent, 0o755)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// mkdirOwned makes dir (mode 0700) belonging to cred.
func mkdirOwned(dir string, cred *syscall.Credential) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if cred != nil {
		return os.Chown(dir, int(cred.Uid), int(cred.Gid))
	}
	return nil
}

// Server is a throwaway PostgreSQL server: its own data directory, its own
// loopback port.
type Server struct {
	Bin, Dir, Log string
	Port          int
	// Settings are given to every Start, a restart's included.
	Settings []string
	cred     *syscall.Credential
	proc     *Child
}

// New runs initdb for a server named name under parent (trust
// authentication, loopback only, user postgres).
func New(parent, name string) (*Server, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	s, err := newServer(bin, parent, name)
	if err != nil {
		return nil, err
	}
	if err := s.run("initdb", "-D", s.Dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"); err != nil {
		return nil, err
	}
	return s, nil
}

func newServer(bin, parent, name string) (*Server, error) {
	cred, err := owner(parent)
	if err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	s := &Server{Bin: bin, Dir: filepath.Join(parent, name), Log: filepath.Join(parent, name+".log"), Port: port, cred: cred}
	return s, mkdirOwned(s.Dir, cred)
}

// run runs one of PostgreSQL's programs as the server's user.
func (s *Server) run(prog string, args ...string) error {
	cmd := exec.Command(filepath.Join(s.Bin, prog), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", prog, err, out)
	}
	return nil
}

// URL is the connection string for database db.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// Start runs the postmaster in the foreground of this process (no pg_ctl
// daemon), so that it is this process's child and dies with it, and waits
// until it answers. Settings trade durability for speed (fsync off): a
// throwaway server's files do not outlive a crash of the machine.
func (s *Server) Start(settings ...string) error {
	args := []string{"-D", s.Dir, "-p", strconv.Itoa(s.Port), "-k", s.Dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "max_connections=250",
		"-c", "fsync=off", "-c", "full_page_writes=off", "-c", "shared_buffers=32MB"}
	for _, kv := range append(slices.Clip(s.Settings), settings...) {
		args = append(args, "-c", kv)
	}
	p, err := StartChild("postgres", exec.Command(filepath.Join(s.Bin, "postgres"), args...), s.Log, syscall.SIGQUIT, s.cred)
	if err != nil {
		return err
	}
	s.proc = p
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if p.Exited() {
			return fmt.Errorf("postgres exited at start; see %s", s.Log)
		}
		db, err := sql.Open("pgx", s.URL("postgres"))
		if err == nil {
			err = db.PingContext(ctx)
			db.Close()
			if err == nil {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("postgres did not answer within 30s; see %s", s.Log)
}

// Pid is the postmaster's process id while the server runs, else 0. Every
// process of the server (backends, background workers) descends from it.
func (s *Server) Pid() int {
	if !s.Running() {
		return 0
	}
	return s.proc.Pid()
}

// Running reports whether the server was started and has not stopped.
func (s *Server) Running() bool { return s.proc != nil && !s.proc.Exited() }

// Stop shuts the server down: fast (SIGINT: sessions are terminated, a
// checkpoint is written) or immediate (SIGQUIT: as a crash, recovery at
// the next start).
func (s *Server) Stop(immediate bool) {
	if s.proc == nil {
		return
	}
	sig := syscall.SIGINT
	if immediate {
		sig = syscall.SIGQUIT
	}
	s.proc.Stop(sig, 30*time.Second)
}

// Kill ends the server as the loss of its machine would: SIGKILL to the
// postmaster and every process below it at once, with no shutdown and
// no checkpoint; Start recovers it from its WAL.
func (s *Server) Kill() {
	if !s.Running() {
		return
	}
	killTree(s.proc.Pid())
	<-s.proc.Done()
}

// Standby makes a streaming standby of s named name under parent
// (pg_basebackup with its replication settings written); start it with
// Start. s must be running.
func (s *Server) Standby(parent, name string) (*Server, error) {
	st, err := newServer(s.Bin, parent, name)
	if err != nil {
		return nil, err
	}
	err = st.run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port), "-U", "postgres",
		"-D", st.Dir, "-R", "-X", "stream", "--no-sync")
	return st, err
}

// Promote ends the standby's recovery and waits until it accepts writes.
func (s *Server) Promote() error {
	return s.run("pg_ctl", "promote", "-w", "-t", "30", "-D", s.Dir)
}

// Exec runs statements on database db of s.
func (s *Server) Exec(ctx context.Context, db string, stmts ...string) error {
	conn, err := sql.Open("pgx", s.URL(db))
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}
