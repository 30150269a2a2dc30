package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/paydhq/payd/internal/seal"
)

// SecretsKeyFileName is the key file `payd serve --dev` keeps in its data
// directory when no key is given: the key-encryption key that seals the
// secrets the database keeps (docs/security.md, "What is stored how").
const SecretsKeyFileName = "secrets.key"

// ReadSecretsKeys reads a key file: keys written "<id>:<base64 of 32
// bytes>", one a line, the first sealing (seal.Parse). A file others may
// read is refused, as ssh refuses such a private key (where file modes
// say so: not on Windows, whose modes do not).
func ReadSecretsKeys(path string) (*seal.Keyring, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s may be read by others (mode %v): chmod 600 it", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	k, err := seal.Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// DevSecretsKeys returns the key of dataDir's key file, making the file
// with a new key when there is none. It is what --dev uses, and what New
// uses when given no key (tests, embedders): the key then lies next to
// the SQLite database, which is fine for development only.
func DevSecretsKeys(dataDir string) (*seal.Keyring, error) {
	path := filepath.Join(dataDir, SecretsKeyFileName)
	k, err := ReadSecretsKeys(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	line, err := seal.Generate("dev-" + time.Now().UTC().Format("20060102"))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	// O_EXCL: of two starts at once, one writes the key and both read it.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = f.WriteString("# payd's key-encryption key (docs/security.md); the first key seals, every key opens\n" + line + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return ReadSecretsKeys(path)
}
