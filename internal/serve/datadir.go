package serve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockFileName is the file in the data directory whose lock marks the one
// process serving that directory's SQLite database.
const lockFileName = "payd.lock"

// dataDirLock is the held lock of a data directory.
type dataDirLock struct{ f *os.File }

// lockDataDir takes the data directory for this process. SQLite takes one
// writer at a time, and two services on one file would each run the
// periodic jobs and the webhook sender as if alone: a second `payd serve`
// on the same directory must refuse to start, not share it. The lock is an
// OS lock on payd.lock (flock), so the kernel releases it when the process
// ends, however it ends; the file's content (the holder's PID) is only for
// the message.
func lockDataDir(dir string) (*dataDirLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	path := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data directory lock: %w", err)
	}
	if err := flock(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			holder := "another process"
			if b, err := os.ReadFile(path); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					holder = "process " + strconv.Itoa(pid)
				}
			}
			return nil, fmt.Errorf("the data directory %s is in use by %s (it holds %s): "+
				"one SQLite database is served by one payd; stop the other one, "+
				"or run several instances on PostgreSQL (--database-url)", dir, holder, path)
		}
		return nil, fmt.Errorf("data directory lock %s: %w", path, err)
	}
	// Ours now: note who holds it.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dataDirLock{f: f}, nil
}

// release gives the directory up. The file stays: removing it could let a
// third process lock a new file while a second still waits on the old one.
func (l *dataDirLock) release() error {
	if l == nil {
		return nil
	}
	return l.f.Close()
}
