//go:build !unix

package serve

import (
	"errors"
	"os"
)

var errLocked = errors.New("locked")

// flock is not implemented off Unix: payd is served on Linux, and there the
// lock holds (flock_unix.go).
func flock(*os.File) error { return nil }
