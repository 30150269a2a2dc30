package payd

import (
	"crypto/rand"
	"regexp"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// Identifier prefixes of the contract (Conventions: Identifiers), plus the
// internal objects of the operator API.
const (
	PrefixShop            = "sh_"
	PrefixPayment         = "pay_"
	PrefixRefund          = "rf_"
	PrefixPaymentLink     = "pl_"
	PrefixDispute         = "dsp_"
	PrefixEvidence        = "evd_"
	PrefixEvent           = "evt_"
	PrefixWebhookEndpoint = "whe_"
	PrefixPayout          = "po_"
	PrefixSettlement      = "set_"
	PrefixMerchant        = "mer_"
	PrefixKey             = "key_"
	// The dashboard's users, their sessions and the audit log's entries.
	PrefixUser    = "usr_"
	PrefixSession = "ses_"
	PrefixAudit   = "aud_"
)

// IDGen makes identifiers: prefix + 26 characters of a ULID, whose Crockford
// alphabet is within [0-9A-Z] and whose first ten characters are the time,
// so identifiers sort as their creation does.
type IDGen struct {
	mu      sync.Mutex
	entropy *ulid.MonotonicEntropy
}

// NewIDGen returns a generator with cryptographic entropy.
func NewIDGen() *IDGen {
	return &IDGen{entropy: ulid.Monotonic(rand.Reader, 0)}
}

// New returns a fresh identifier stamped with t.
func (g *IDGen) New(prefix string, t time.Time) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	id, err := ulid.New(ulid.Timestamp(t), g.entropy)
	if err != nil {
		// The monotonic source overflows only after 2^80 ids in one
		// millisecond; start a new sequence rather than fail a request.
		g.entropy = ulid.Monotonic(rand.Reader, 0)
		id = ulid.MustNew(ulid.Timestamp(t), g.entropy)
	}
	return prefix + id.String()
}

var idPattern = regexp.MustCompile(`^[a-z]+_[0-9A-Z]{26}$`)

// ValidID reports whether s is prefix + 26 characters [0-9A-Z].
func ValidID(prefix, s string) bool {
	return len(s) == len(prefix)+26 && s[:len(prefix)] == prefix && idPattern.MatchString(s)
}
