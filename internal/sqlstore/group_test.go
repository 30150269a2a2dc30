package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/serve"
	"github.com/paydhq/payd/internal/sqlstore"
)

// TestGroupCommit: on SQLite the transactions that queue while the writer
// is busy commit together, each as if it had run alone in its turn: one
// that fails or panics leaves nothing and stops none of the others, each
// sees the effects of those before it and none of those after, one whose
// request is gone before its turn is not run, and the others are all
// committed when their Tx returns.
func TestGroupCommit(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := migratedSQLite(t)
	now := time.Now().UTC().Truncate(time.Microsecond)
	insert := func(ctx context.Context, tx payd.Tx, id string) error {
		return tx.MerchantInsert(ctx, &payd.Merchant{ID: id, Name: id, CreatedAt: now})
	}
	exists := func(ctx context.Context, tx payd.Tx, id string) bool {
		_, err := tx.MerchantGet(ctx, id)
		if err != nil && !errors.Is(err, payd.ErrNoRows) {
			t.Errorf("MerchantGet %s: %v", id, err)
		}
		return err == nil
	}

	// The leader holds the writer until every other transaction is queued
	// behind it, in order.
	release, leading := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	results := map[string]error{}
	var mu sync.Mutex
	start := func(name string, ctx context.Context, fn func(payd.Tx) error) {
		wg.Add(1)
		queued := s.GroupWaiting()
		go func() {
			defer wg.Done()
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("panic: %v", p)
					}
				}()
				err = s.Tx(ctx, fn)
			}()
			mu.Lock()
			results[name] = err
			mu.Unlock()
		}()
		if name == "leader" {
			<-leading
			return
		}
		for s.GroupWaiting() == queued {
			time.Sleep(time.Millisecond)
		}
	}
	start("leader", ctx, func(tx payd.Tx) error {
		close(leading)
		<-release
		return insert(ctx, tx, "mer_leader")
	})
	start("ok", ctx, func(tx payd.Tx) error { return insert(ctx, tx, "mer_ok") })
	refused := errors.New("refused")
	start("fails", ctx, func(tx payd.Tx) error {
		if err := insert(ctx, tx, "mer_fails"); err != nil {
			return err
		}
		return refused
	})
	start("panics", ctx, func(tx payd.Tx) error {
		if err := insert(ctx, tx, "mer_panics"); err != nil {
			return err
		}
		panic("boom")
	})
	// A unique violation in the middle of the group: the statement fails,
	// the group goes on.
	start("duplicate", ctx, func(tx payd.Tx) error { return insert(ctx, tx, "mer_ok") })
	var saw map[string]bool
	start("reader", ctx, func(tx payd.Tx) error {
		saw = map[string]bool{}
		for _, id := range []string{"mer_leader", "mer_ok", "mer_fails", "mer_panics", "mer_last"} {
			saw[id] = exists(ctx, tx, id)
		}
		return nil
	})
	gone, cancel := context.WithCancel(ctx)
	ran := false
	start("canceled", gone, func(tx payd.Tx) error { ran = true; return insert(ctx, tx, "mer_canceled") })
	cancel()
	start("last", ctx, func(tx payd.Tx) error { return insert(ctx, tx, "mer_last") })
	close(release)
	wg.Wait()

	want := map[string]error{"leader": nil, "ok": nil, "fails": refused, "reader": nil, "canceled": context.Canceled,
		"duplicate": payd.ErrConflict, "last": nil}
	for name, w := range want {
		if got := results[name]; !errors.Is(got, w) {
			t.Errorf("%s: Tx returned %v, want %v", name, got, w)
		}
	}
	if err := results["panics"]; err == nil || err.Error() != "panic: boom" {
		t.Errorf("panics: %v, want its own panic in its own goroutine", err)
	}
	if ran {
		t.Error("the canceled transaction's fn ran")
	}
	wantSaw := map[string]bool{"mer_leader": true, "mer_ok": true, "mer_fails": false, "mer_panics": false, "mer_last": false}
	for id, w := range wantSaw {
		if saw[id] != w {
			t.Errorf("the reader saw %s: %v, want %v", id, saw[id], w)
		}
	}
	err := s.View(ctx, func(tx payd.Tx) error {
		for id, w := range map[string]bool{"mer_leader": true, "mer_ok": true, "mer_fails": false, "mer_panics": false,
			"mer_canceled": false, "mer_last": true} {
			if got := exists(ctx, tx, id); got != w {
				t.Errorf("after the group: %s stored %v, want %v", id, got, w)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGroupCommitBulkApart: a bulk transaction (a sandbox reset's batch,
// payd.WithBulk) queued behind others commits apart from them: the one
// queued before it returns without waiting for it, as its fn, run in a
// group with it, would never let it.
func TestGroupCommitBulkApart(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := migratedSQLite(t)
	release, leading, beforeDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
	errs := make(chan error, 3)
	queue := func(ctx context.Context, fn func(payd.Tx) error, done chan struct{}) {
		queued := s.GroupWaiting()
		go func() {
			errs <- s.Tx(ctx, fn)
			if done != nil {
				close(done)
			}
		}()
		for s.GroupWaiting() == queued {
			time.Sleep(time.Millisecond)
		}
	}
	go func() {
		errs <- s.Tx(ctx, func(payd.Tx) error {
			close(leading)
			<-release
			return nil
		})
	}()
	<-leading
	queue(ctx, func(payd.Tx) error { return nil }, beforeDone)
	queue(payd.WithBulk(ctx), func(payd.Tx) error {
		select {
		case <-beforeDone:
			return nil
		case <-time.After(20 * time.Second):
			return errors.New("the transaction queued before the bulk one waited for it")
		}
	}, nil)
	close(release)
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// migratedSQLite is a SQLite store of the test's own, its schema current.
func migratedSQLite(t *testing.T) *sqlstore.Store {
	s, err := sqlstore.Open(t.Context(), "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := serve.Migrate(t.Context(), s, payd.SystemClock{}); err != nil {
		t.Fatal(err)
	}
	return s
}
