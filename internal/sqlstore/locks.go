package sqlstore

import (
	"hash/fnv"
	"strconv"

	"github.com/paydhq/payd"
)

// The keys of the advisory locks PostgreSQL takes for the store (SQLite's
// single writer needs none): an idempotency key's claim, a shop's sandbox
// fence and a contour's payout freeze. They share one 64-bit key space.

// advisoryKey is the 64-bit key of an advisory lock: the FNV-1a hash of
// its kind and parts joined by NUL, so that keys of different kinds do
// not meet.
func advisoryKey(kind string, parts ...string) int64 {
	h := fnv.New64a()
	h.Write([]byte(kind))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return int64(h.Sum64())
}

// lockKey is the 64-bit key of the idempotency try-lock of a shop's key.
func lockKey(shopID string, mode payd.Mode, key string) int64 {
	return advisoryKey("idem", shopID, string(mode), key)
}

// fenceKey is the 64-bit key of a shop's sandbox fence.
func fenceKey(shopID string) int64 {
	return advisoryKey("sandbox", shopID)
}

// freezeKey is the 64-bit key of a contour's freeze lock.
func freezeKey(merchantID string, test bool) int64 {
	return advisoryKey("freeze", merchantID, strconv.FormatBool(test))
}
