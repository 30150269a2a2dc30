package payd

import (
	"crypto/rand"
	"regexp"
	"strings"
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
	// Records of the service's own: ledger entries, webhook deliveries and
	// their attempts, provider reports it could not apply, the sandbox
	// banks' attempts and notifications.
	PrefixEntry          = "ent_"
	PrefixDelivery       = "dlv_"
	PrefixAttempt        = "att_"
	PrefixDiscrepancy    = "dsc_"
	PrefixSandboxAttempt = "sbx_"
	PrefixNotification   = "ntf_"
)

// IDGen makes identifiers: prefix + 26 characters of a ULID, whose Crockford
// alphabet is within [0-9A-Z] and whose first ten characters are the time,
// so identifiers sort as their creation does.
//
// An identifier of an object that belongs to a merchant also carries the
// merchant's key (MerchantKey): the store of a cluster finds the shard of
// any such object from its identifier alone (docs/operations.md, "Past
// one PostgreSQL").
type IDGen struct {
	mu      sync.Mutex
	entropy *ulid.MonotonicEntropy
	unkeyed bool
}

// NewIDGen returns a generator with cryptographic entropy.
func NewIDGen() *IDGen {
	return &IDGen{entropy: ulid.Monotonic(rand.Reader, 0)}
}

// NewUnkeyedIDGen returns a generator that makes every identifier as payd
// did before merchant keys (migration 0032): what a database from then
// holds. Tests of moving such a database onto a cluster build one with it.
func NewUnkeyedIDGen() *IDGen {
	g := NewIDGen()
	g.unkeyed = true
	return g
}

// New returns a fresh identifier stamped with t. Merchants' identifiers
// are made here: their random key is the one their objects copy.
func (g *IDGen) New(prefix string, t time.Time) string {
	return prefix + g.ulid(t).String()
}

// NewFor returns a fresh identifier stamped with t for an object of the
// merchant merchantID: it carries the merchant's key, and its first
// character is marked (KeyCarried) so that identifiers made before keys
// existed are told apart. Without a merchant (an operator's own record)
// it is New.
func (g *IDGen) NewFor(prefix string, t time.Time, merchantID string) string {
	if merchantID == "" || g.unkeyed {
		return g.New(prefix, t)
	}
	id := g.ulid(t)
	k := KeyOf(merchantID)
	// The key takes the top 20 of the 80 random bits (bytes 6, 7 and
	// the high half of 8): the monotonic increments of one millisecond
	// stay in the low 60, so identifiers still sort as they are made.
	id[6], id[7] = byte(k>>12), byte(k>>4)
	id[8] = byte(k<<4) | id[8]&0x0f
	body := []byte(id.String())
	body[0] = crockford[strings.IndexByte(crockford, body[0])|keyMark]
	return prefix + string(body)
}

func (g *IDGen) ulid(t time.Time) ulid.ULID {
	g.mu.Lock()
	defer g.mu.Unlock()
	id, err := ulid.New(ulid.Timestamp(t), g.entropy)
	if err != nil {
		// The monotonic source overflows only after 2^80 ids in one
		// millisecond; start a new sequence rather than fail a request.
		g.entropy = ulid.Monotonic(rand.Reader, 0)
		id = ulid.MustNew(ulid.Timestamp(t), g.entropy)
	}
	return id
}

// crockford is the ULID alphabet. A ULID's first character holds only the
// time's top three bits (0-7): keyMark sets the next bit, which ULIDs
// leave zero, on identifiers that carry their merchant's key.
const (
	crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	keyMark   = 8
)

// MerchantKey is a merchant's routing key: 20 bits that every identifier of
// the merchant's objects carries in its characters 11 to 14 (of the 26).
// A merchant's own identifier carries it where every ULID has randomness,
// so keys are spread evenly and never assigned.
type MerchantKey int32

// KeyOf reads the merchant key an identifier carries: for a merchant's id,
// its own; for an object's id made by NewFor, its merchant's. Anything
// shorter than an identifier reads as key 0.
func KeyOf(id string) MerchantKey {
	if len(id) < 26 {
		return 0
	}
	var k MerchantKey
	for _, c := range []byte(id[len(id)-16 : len(id)-12]) {
		v := strings.IndexByte(crockford, c)
		if v < 0 {
			return 0
		}
		k = k<<5 | MerchantKey(v)
	}
	return k
}

// KeyCarried reports whether id was made by NewFor: identifiers made
// before merchant keys existed carry random bits where the key would be.
func KeyCarried(id string) bool {
	if len(id) < 26 {
		return false
	}
	v := strings.IndexByte(crockford, id[len(id)-26])
	return v >= 0 && v&keyMark != 0
}

var idPattern = regexp.MustCompile(`^[a-z]+_[0-9A-Z]{26}$`)

// ValidID reports whether s is prefix + 26 characters [0-9A-Z].
func ValidID(prefix, s string) bool {
	return len(s) == len(prefix)+26 && s[:len(prefix)] == prefix && idPattern.MatchString(s)
}
