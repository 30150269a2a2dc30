// Package seal encrypts the secrets payd must read back in clear — webhook
// signing secrets, TOTP secrets, the answers it replays for idempotency
// keys, its own signing keys — under a key-encryption key (KEK) that lives
// outside the database, so that a dump of the database opens nothing.
//
// A sealed value is text:
//
//	sealed:<key id>:<base64url(nonce || AES-256-GCM ciphertext)>
//
// The key id says which KEK sealed it, so a Keyring may know several: the
// first seals, every one opens. That is how a KEK is rotated without
// stopping the service (docs/security.md, "What is stored how"). The
// additional data of each seal is the value's context — its table, column
// and row — so a sealed value copied into another row or column does not
// open there.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Prefix starts every sealed value. Nothing payd seals starts with it in
// clear (a webhook secret starts with whsec_, a TOTP secret is base32, an
// answer is JSON), so a value is sealed exactly when it has it.
const Prefix = "sealed:"

// KeySize is the size of a KEK: AES-256.
const KeySize = 32

// ErrOpen is returned when a value does not open: a key this Keyring does
// not know, another context, or bytes that were changed.
var ErrOpen = errors.New("seal: the value does not open with the keys given")

// Keyring holds the KEKs: the first seals, all open.
type Keyring struct {
	primary string
	aeads   map[string]cipher.AEAD
	ids     []string
}

// Key is one KEK and its id.
type Key struct {
	ID     string
	Secret []byte
}

// New returns a Keyring of keys; keys[0] seals. Ids are 1..32 letters,
// digits, '-' or '_', each used once; secrets are KeySize bytes.
func New(keys ...Key) (*Keyring, error) {
	if len(keys) == 0 {
		return nil, errors.New("seal: no key")
	}
	k := &Keyring{primary: keys[0].ID, aeads: map[string]cipher.AEAD{}}
	for _, key := range keys {
		if !validID(key.ID) {
			return nil, fmt.Errorf("seal: key id %q: want 1 to 32 letters, digits, - or _", key.ID)
		}
		if _, dup := k.aeads[key.ID]; dup {
			return nil, fmt.Errorf("seal: key id %q given twice", key.ID)
		}
		if len(key.Secret) != KeySize {
			return nil, fmt.Errorf("seal: key %q has %d bytes; want %d", key.ID, len(key.Secret), KeySize)
		}
		block, err := aes.NewCipher(key.Secret)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		k.aeads[key.ID] = aead
		k.ids = append(k.ids, key.ID)
	}
	return k, nil
}

func validID(id string) bool {
	if id == "" || len(id) > 32 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Parse reads KEKs written as "<id>:<base64 of 32 bytes>", one per line
// or separated by commas or white space; lines starting with # are
// comments. The first key seals. This is the form of the key file
// (--secrets-key-file) and of PAYD_SECRETS_KEY.
func Parse(text string) (*Keyring, error) {
	var keys []Key
	for _, line := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "#") {
			continue
		}
		for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' }) {
			id, b64, ok := strings.Cut(f, ":")
			if !ok {
				return nil, errors.New("seal: a key is written <id>:<base64 of 32 bytes>")
			}
			secret, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				if secret, err = base64.RawStdEncoding.DecodeString(b64); err != nil {
					return nil, fmt.Errorf("seal: key %q: not base64", id)
				}
			}
			keys = append(keys, Key{ID: id, Secret: secret})
		}
	}
	return New(keys...)
}

// Generate returns a new random KEK named id, written as Parse reads it.
func Generate(id string) (string, error) {
	if !validID(id) {
		return "", fmt.Errorf("seal: key id %q: want 1 to 32 letters, digits, - or _", id)
	}
	b := make([]byte, KeySize)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return id + ":" + base64.StdEncoding.EncodeToString(b), nil
}

// Primary is the id of the key that seals.
func (k *Keyring) Primary() string { return k.primary }

// IDs are the ids of every key, the sealing one first.
func (k *Keyring) IDs() []string { return append([]string(nil), k.ids...) }

// additional is what a seal authenticates besides the plaintext: its key
// id and its context.
func additional(id, context string) []byte { return []byte("payd-seal\x00" + id + "\x00" + context) }

// Seal encrypts plain under the first key, bound to context.
func (k *Keyring) Seal(plain []byte, context string) string {
	aead := k.aeads[k.primary]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic("seal: crypto/rand failed: " + err.Error())
	}
	out := aead.Seal(nonce, nonce, plain, additional(k.primary, context))
	return Prefix + k.primary + ":" + base64.RawURLEncoding.EncodeToString(out)
}

// Open decrypts a value Seal made under any key of k for the same
// context. It returns ErrOpen for anything else, a value in clear
// included.
func (k *Keyring) Open(sealed, context string) ([]byte, error) {
	id, ok := KeyID(sealed)
	if !ok {
		return nil, ErrOpen
	}
	aead := k.aeads[id]
	if aead == nil {
		return nil, fmt.Errorf("%w: it was sealed under key %q, which is not configured", ErrOpen, id)
	}
	raw, err := base64.RawURLEncoding.DecodeString(sealed[len(Prefix)+len(id)+1:])
	if err != nil || len(raw) < aead.NonceSize()+aead.Overhead() {
		return nil, ErrOpen
	}
	plain, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], additional(id, context))
	if err != nil {
		return nil, ErrOpen
	}
	return plain, nil
}

// KeyID is the id of the key that sealed v, and false when v is not a
// sealed value.
func KeyID(v string) (string, bool) {
	rest, ok := strings.CutPrefix(v, Prefix)
	if !ok {
		return "", false
	}
	id, _, ok := strings.Cut(rest, ":")
	if !ok || !validID(id) {
		return "", false
	}
	return id, true
}

// Reseal opens v and seals it again under the first key; a value already
// under it is returned as is, with false.
func (k *Keyring) Reseal(v, context string) (string, bool, error) {
	if id, ok := KeyID(v); ok && id == k.primary {
		return v, false, nil
	}
	plain, err := k.Open(v, context)
	if err != nil {
		return "", false, err
	}
	return k.Seal(plain, context), true, nil
}
