package payd

import (
	"context"
	"time"
)

// SandboxResetBatch is how many objects one transaction of a reset
// deletes when the store names no number of its own
// (Config.SandboxBatching): small enough that a batch takes milliseconds
// and holds up no other shop, large enough that 10^5 payments take a few
// hundred transactions (docs/benchmarks-history.md, "Sandbox reset in
// set-based batches").
const SandboxResetBatch = 500

// SandboxBatching is how a sandbox reset sizes its batches on a store
// (sqlstore's Store.SandboxBatching says which suits it).
type SandboxBatching struct {
	// Size is how many objects the first batch of each kind deletes;
	// zero is SandboxResetBatch.
	Size int
	// Time, when set, is how long a batch should take: each next batch
	// of the kind is scaled by Time over what the last one took, at most
	// doubled or halved at a time, within [Size/10, 10 Size]. A store
	// whose one writer every request waits for (SQLite) sets it, so that
	// a batch holds others up about as long whatever it deletes (a
	// payment with its ledger costs several times an event). Zero keeps
	// every batch at Size.
	Time time.Duration
}

func (b SandboxBatching) first() int {
	if b.Size <= 0 {
		return SandboxResetBatch
	}
	return b.Size
}

// next is the size of the batch after one of size that took took.
func (b SandboxBatching) next(size int, took time.Duration) int {
	if b.Time <= 0 {
		return size
	}
	scaled := size * 2
	if took > 0 {
		scaled = int(float64(size) * float64(b.Time) / float64(took))
	}
	scaled = min(max(scaled, size/2), size*2)
	return min(max(scaled, max(1, b.first()/10)), b.first()*10)
}

type bulkKey struct{}

// WithBulk marks the transactions run under ctx as bulk work, a sandbox
// reset's batches: a store that commits several callers' transactions as
// one (sqlstore on SQLite, whose one writer commits in groups) commits
// each of them apart, so that requests queued beside a batch commit
// without waiting for it.
func WithBulk(ctx context.Context) context.Context {
	return context.WithValue(ctx, bulkKey{}, true)
}

// IsBulk reports whether ctx was made by WithBulk.
func IsBulk(ctx context.Context) bool { return ctx.Value(bulkKey{}) != nil }
