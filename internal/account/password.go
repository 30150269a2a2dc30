package account

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/paydhq/payd"
)

// Password rules (NIST SP 800-63B, 3.1.1.2): a length floor and ceiling
// and no composition rules.
const (
	PasswordMinChars = 12
	PasswordMaxBytes = 256
)

// Argon2Params are the parameters of an argon2id hash. They are stored in
// each hash (PHC string form), so a hash made with older parameters still
// verifies after they change; it is rehashed at the next sign-in.
type Argon2Params struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
	SaltLen   int
	KeyLen    uint32
}

// DefaultArgon2 returns OWASP's recommended argon2id configuration
// (Password Storage Cheat Sheet): 19 MiB of memory, 2 passes, 1 lane.
func DefaultArgon2() Argon2Params {
	return Argon2Params{MemoryKiB: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}
}

// checkPassword applies the password rules.
func checkPassword(password, email string) error {
	switch {
	case utf8.RuneCountInString(password) < PasswordMinChars:
		return payd.Invalid("password", "must have at least %d characters", PasswordMinChars)
	case len(password) > PasswordMaxBytes:
		return payd.Invalid("password", "must have at most %d bytes", PasswordMaxBytes)
	case strings.EqualFold(strings.TrimSpace(password), email):
		return payd.Invalid("password", "must not be the email address")
	}
	return nil
}

// hashPassword returns the argon2id hash of password in PHC string form:
// $argon2id$v=19$m=...,t=...,p=...$salt$hash (unpadded standard base64).
func (s *Service) hashPassword(password string, p Argon2Params) string {
	salt := make([]byte, p.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return phcString(p, salt, s.kdf([]byte(password), salt, p))
}

func phcString(p Argon2Params, salt, key []byte) string {
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.MemoryKiB, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// DefaultPasswordChecks is how many argon2id runs go at once by default:
// one per CPU (a run keeps one busy, so more would add no speed, only
// memory held and CPU taken from the payment API), and no more than
// 256 MiB of their memory together (19 MiB each with DefaultArgon2: 13).
// The bound is what keeps a flood of sign-ins from growing the process
// (docs/security.md).
func DefaultPasswordChecks(p Argon2Params) int {
	byMemory := max(1, int(256*1024/max(p.MemoryKiB, 1)))
	return max(1, min(runtime.GOMAXPROCS(0), byMemory))
}

// ErrPasswordChecksBusy answers a sign-in that finds every password check
// taken: it is refused at once, before its password is read, rather than
// queued with its memory held.
var ErrPasswordChecksBusy = &payd.Error{Code: payd.CodeTooManyRequests, RetryAfter: time.Second,
	Message: "too many sign-ins at once; retry in a second"}

// beginPasswordCheck takes a slot for one argon2id run, or answers
// ErrPasswordChecksBusy when none is free; the returned func frees it.
func (s *Service) beginPasswordCheck() (func(), error) {
	select {
	case s.kdfSlots <- struct{}{}:
		return func() { <-s.kdfSlots }, nil
	default:
		return nil, ErrPasswordChecksBusy
	}
}

// KDFRuns counts the argon2id runs of the process since it started.
func (s *Service) KDFRuns() int64 { return s.kdfRuns.Load() }

// kdf runs argon2id; every hash and every verification, the dummy one of
// an unknown email included, goes through it.
func (s *Service) kdf(password, salt []byte, p Argon2Params) []byte {
	s.kdfRuns.Add(1)
	return argon2.IDKey(password, salt, p.Time, p.MemoryKiB, p.Threads, p.KeyLen)
}

// parsePHC reads an argon2id PHC string.
func parsePHC(phc string) (p Argon2Params, salt, key []byte, err error) {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return p, nil, nil, fmt.Errorf("not an argon2id hash")
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return p, nil, nil, fmt.Errorf("argon2id version %q", parts[2])
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil {
		return p, nil, nil, fmt.Errorf("argon2id parameters %q: %w", parts[3], err)
	}
	b64 := base64.RawStdEncoding
	if salt, err = b64.DecodeString(parts[4]); err != nil {
		return p, nil, nil, fmt.Errorf("argon2id salt: %w", err)
	}
	if key, err = b64.DecodeString(parts[5]); err != nil {
		return p, nil, nil, fmt.Errorf("argon2id hash: %w", err)
	}
	if p.MemoryKiB == 0 || p.Time == 0 || p.Threads == 0 || len(key) == 0 {
		return p, nil, nil, fmt.Errorf("argon2id parameters %q", parts[3])
	}
	p.SaltLen, p.KeyLen = len(salt), uint32(len(key))
	return p, salt, key, nil
}

// verifyPassword reports whether password matches the PHC hash, and
// whether the hash was made with other parameters than the current ones
// (so it should be rehashed).
func (s *Service) verifyPassword(password, phc string) (ok, stale bool, err error) {
	p, salt, key, err := parsePHC(phc)
	if err != nil {
		return false, false, err
	}
	got := s.kdf([]byte(password), salt, p)
	return subtle.ConstantTimeCompare(got, key) == 1, p != s.argon2, nil
}

// dummyHash is a hash that sign-in verifies against when there is no hash
// to verify (an unknown email, a user without a password), so that those
// answers take the time of a real verification. It has the current
// parameters and random salt and key, which no password matches; making
// it costs no KDF run, so the first such sign-in is no slower than the
// next.
type dummyHash struct {
	once sync.Once
	phc  string
}

func (s *Service) verifyDummy(password string) {
	s.dummy.once.Do(func() {
		p := s.argon2
		salt, key := make([]byte, p.SaltLen), make([]byte, p.KeyLen)
		if _, err := rand.Read(salt); err != nil {
			panic("crypto/rand failed: " + err.Error())
		}
		if _, err := rand.Read(key); err != nil {
			panic("crypto/rand failed: " + err.Error())
		}
		s.dummy.phc = phcString(p, salt, key)
	})
	_, _, _ = s.verifyPassword(password, s.dummy.phc)
}
