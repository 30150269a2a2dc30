package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/paydhq/payd"
)

// readBatch gathers concurrent reads of one row by id, made outside a
// transaction (Store.View), into one statement for all of them.
//
// A read of one row costs the database and this process mostly what any
// statement costs: a round trip, its system calls on both sides and the
// wake-ups between them, and the server's work per statement. Many
// merchants' integrations and dashboards read payments at once; a
// statement that answers the ids waiting gives each of them a share of
// that cost (docs/benchmarks-history.md, "GETs read together").
//
// No read waits for others to come: a read starts a statement at once
// when none is under way, and only the reads that arrive while one runs
// wait, to go together in the next. One statement at a time: two at once
// made smaller groups and no more GETs a second on either database
// (docs/benchmarks-history.md, "GETs read together"). An idle service so reads each row alone, as before, and a
// busy one reads them in groups as large as the load makes them. Each
// statement starts after every read it answers was asked for, so a read
// sees every change committed before it was asked for, as a read of its
// own would.
type readBatch[T any] struct {
	// one reads a single row, and many the rows of several ids, missing
	// ones left out.
	one  func(ctx context.Context, id string) (T, error)
	many func(ctx context.Context, ids []string) (map[string]T, error)
	// size is the most ids one statement reads.
	size int

	mu      sync.Mutex
	queue   []*batchRead[T]
	running bool
}

// batchRead is one read waiting in a readBatch.
type batchRead[T any] struct {
	ctx  context.Context
	id   string
	v    T
	err  error
	done chan struct{}
}

// get reads id's row, alone or with others.
func (b *readBatch[T]) get(ctx context.Context, id string) (T, error) {
	r := &batchRead[T]{ctx: ctx, id: id, done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, r)
	start := !b.running
	b.running = true
	b.mu.Unlock()
	if start {
		b.drain(r)
	}
	select {
	case <-r.done:
		return r.v, r.err
	case <-ctx.Done():
		var none T
		return none, ctx.Err()
	}
}

// drain runs statements for the queue until it is empty. own is the read
// of the caller that started it, which answers its own client as soon as
// its read is done: what is left then goes on in a goroutine of its own.
func (b *readBatch[T]) drain(own *batchRead[T]) {
	for {
		b.mu.Lock()
		if len(b.queue) == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		if own != nil && isDone(own.done) {
			b.mu.Unlock()
			go b.drain(nil)
			return
		}
		n := min(len(b.queue), b.size)
		batch := b.queue[:n:n]
		b.queue = b.queue[n:]
		if len(b.queue) == 0 {
			b.queue = nil
		}
		b.mu.Unlock()
		b.run(batch)
	}
}

// run reads one batch and answers each of its reads.
func (b *readBatch[T]) run(batch []*batchRead[T]) {
	defer func() {
		// A read that panics fails its batch, not the process: the
		// statement runs outside the request that would recover it.
		if p := recover(); p != nil {
			answer(batch, nil, fmt.Errorf("batched read: %v", p))
		}
	}()
	if len(batch) == 1 {
		// Alone, a read is the reader's own, in its own context.
		r := batch[0]
		r.v, r.err = b.one(r.ctx, r.id)
		close(r.done)
		return
	}
	ctx, cancel := batchContext(batch)
	defer cancel()
	ids := make([]string, len(batch))
	for i, r := range batch {
		ids[i] = r.id
	}
	rows, err := b.many(ctx, ids)
	answer(batch, rows, err)
}

// answer gives each read of batch its row, sql.ErrNoRows when rows has
// none for its id, or err.
func answer[T any](batch []*batchRead[T], rows map[string]T, err error) {
	for _, r := range batch {
		if isDone(r.done) {
			continue
		}
		switch v, ok := rows[r.id]; {
		case err != nil:
			r.err = err
		case ok:
			r.v = v
		default:
			r.err = sql.ErrNoRows
		}
		close(r.done)
	}
}

// batchContext is the context a batch's statement runs in: the first
// read's values (its trace) without its cancellation, since the others
// still wait for the answer; the statement is given up once every read of
// the batch has given up (its client gone, its deadline passed), so it is
// bounded as the reads alone would be.
func batchContext[T any](batch []*batchRead[T]) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(batch[0].ctx))
	var left atomic.Int32
	stops := make([]func() bool, len(batch))
	for i, r := range batch {
		stops[i] = context.AfterFunc(r.ctx, func() {
			if int(left.Add(1)) == len(batch) {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

func isDone(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// paymentViews batches the reads of payments' renderings (GET
// /v1/payments/{id}). On a Citus cluster each read goes to its merchant's
// worker alone, and Store leaves it unbatched.
func (s *Store) paymentViews() *readBatch[*payd.PaymentView] {
	q := route(s.d, s.rdb)
	return &readBatch[*payd.PaymentView]{
		one: func(ctx context.Context, id string) (*payd.PaymentView, error) {
			return paymentViewOne(ctx, q, s.d, id)
		},
		many: func(ctx context.Context, ids []string) (map[string]*payd.PaymentView, error) {
			return paymentViewsOf(ctx, q, s.d, ids)
		},
		size: 100,
	}
}
