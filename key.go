package payd

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"slices"
	"strings"
	"time"
)

// Mode is a key's contour: test (sandbox) or live.
type Mode string

// The two modes; a test key sees only `test: true` objects and a live key
// only live ones.
const (
	ModeTest Mode = "test"
	ModeLive Mode = "live"
)

// ModeAll returns both modes.
func ModeAll() []Mode { return []Mode{ModeTest, ModeLive} }

// ModeOf is the mode of an object marked test or not.
func ModeOf(test bool) Mode {
	if test {
		return ModeTest
	}
	return ModeLive
}

// Valid reports whether m is test or live.
func (m Mode) Valid() bool { return slices.Contains(ModeAll(), m) }

// KeyOverlap is how long a key keeps working after a newer key of the same
// shop and mode is issued (Authentication, rule 3).
const KeyOverlap = 24 * time.Hour

// APIKey is a shop's secret key. Only the SHA-256 of the secret is stored:
// secrets carry 190 bits of randomness, so a fast hash is enough and keeps
// authentication cheap; the plain secret exists only in the issuing answer.
type APIKey struct {
	ID     string `json:"id"`
	ShopID string `json:"shop_id"`
	Mode   Mode   `json:"mode"`
	// Hint is the secret's prefix and last four characters, for operators to
	// tell keys apart.
	Hint      string     `json:"hint"`
	Hash      []byte     `json:"-"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	// LastUsedAt is when the key last authenticated a request, to within
	// KeyUseEvery; nil when it never did.
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
}

// Usable reports whether the key authenticates at now.
func (k *APIKey) Usable(now time.Time) bool {
	return k.RevokedAt == nil && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// KeyState is where a key is in its life, as the dashboard shows it.
type KeyState string

// Key states: working, working until its overlap ends, expired, revoked.
const (
	KeyActive   KeyState = "active"
	KeyExpiring KeyState = "expiring"
	KeyExpired  KeyState = "expired"
	KeyRevoked  KeyState = "revoked"
)

// KeyStateAll returns every key state, in the order of a key's life.
func KeyStateAll() []KeyState { return []KeyState{KeyActive, KeyExpiring, KeyExpired, KeyRevoked} }

// StateAt returns the key's state at now.
func (k *APIKey) StateAt(now time.Time) KeyState {
	switch {
	case k.RevokedAt != nil:
		return KeyRevoked
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		return KeyExpired
	case k.ExpiresAt != nil:
		return KeyExpiring
	}
	return KeyActive
}

// KeyPrefix is the secret's prefix that names its mode and region
// (Authentication, rule 2): test_ru_, test_kz_, live_ru_, live_kz_.
func KeyPrefix(m Mode, r Region) string { return string(m) + "_" + string(r) + "_" }

// ParseKeyPrefix reads mode and region from a secret.
func ParseKeyPrefix(secret string) (Mode, Region, bool) {
	for _, m := range []Mode{ModeTest, ModeLive} {
		for _, r := range []Region{RegionRU, RegionKZ} {
			if strings.HasPrefix(secret, KeyPrefix(m, r)) {
				return m, r, true
			}
		}
	}
	return "", "", false
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewSecret returns a fresh secret for mode and region: the prefix and 32
// base62 characters from crypto/rand.
func NewSecret(m Mode, r Region) string {
	buf := make([]byte, 32)
	out := make([]byte, 32)
	// Rejection sampling keeps every character equally likely.
	for i := 0; i < len(out); {
		if _, err := rand.Read(buf); err != nil {
			panic("crypto/rand failed: " + err.Error())
		}
		for _, b := range buf {
			if b < 248 && i < len(out) { // 248 = 4*62
				out[i] = base62[b%62]
				i++
			}
		}
	}
	return KeyPrefix(m, r) + string(out)
}

// HashSecret is the stored form of a secret.
func HashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// SecretMatches compares a presented secret with a stored hash in constant
// time.
func SecretMatches(secret string, hash []byte) bool {
	return subtle.ConstantTimeCompare(HashSecret(secret), hash) == 1
}

// SecretHint shows the prefix and the last four characters of a secret.
func SecretHint(secret string) string {
	if len(secret) < 12 {
		return "…"
	}
	return secret[:8] + "…" + secret[len(secret)-4:]
}

// Principal is who a merchant request acts as: a shop in one mode.
type Principal struct {
	Shop  *Shop
	Mode  Mode
	KeyID string
	// KeyState is where the key that authenticated is in its life:
	// KeyExpiring for an older key in its rotation's overlap, which stops
	// working at its ExpiresAt (counted, so that an operator hears of
	// merchants who have not switched yet); empty for a dashboard user.
	KeyState KeyState
	// Actor is the dashboard user acting, nil for a request with an API
	// key; a change made with an Actor is written to the audit log.
	Actor *Actor
}

// Test reports whether the principal acts in the sandbox.
func (p *Principal) Test() bool { return p.Mode == ModeTest }
