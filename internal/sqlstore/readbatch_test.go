package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
)

// fakeReads is a readBatch over a map of rows whose first read, made
// alone, waits for release, so that the reads asked for meanwhile queue.
type fakeReads struct {
	rows    map[string]string
	release chan struct{}
	// fail is what many returns or, when it is "panic", panics with.
	fail string
	// batches are the ids of each call of many, sorted.
	mu      sync.Mutex
	batches [][]string
	// manyCtx is the context of many's last call.
	manyCtx context.Context
}

func (f *fakeReads) batch(size int) *readBatch[string] {
	return &readBatch[string]{
		size: size,
		one: func(ctx context.Context, id string) (string, error) {
			<-f.release
			if v, ok := f.rows[id]; ok {
				return v, nil
			}
			return "", sql.ErrNoRows
		},
		many: func(ctx context.Context, ids []string) (map[string]string, error) {
			f.mu.Lock()
			f.batches = append(f.batches, slices.Sorted(slices.Values(ids)))
			f.manyCtx = ctx
			f.mu.Unlock()
			switch f.fail {
			case "":
			case "panic":
				panic("driver bug")
			case "wait":
				<-ctx.Done()
				return nil, ctx.Err()
			default:
				return nil, errors.New(f.fail)
			}
			out := map[string]string{}
			for _, id := range ids {
				if v, ok := f.rows[id]; ok {
					out[id] = v
				}
			}
			return out, nil
		},
	}
}

type readResult struct {
	v   string
	err error
}

// readAll asks for each id in a goroutine of its own, after the first,
// which is asked for alone, has started; it returns the results by id.
func readAll(t *testing.T, f *fakeReads, b *readBatch[string], ctxs map[string]context.Context, first string, ids ...string) map[string]readResult {
	t.Helper()
	var mu sync.Mutex
	got := map[string]readResult{}
	var wg sync.WaitGroup
	read := func(id string) {
		ctx := ctxs[id]
		if ctx == nil {
			ctx = t.Context()
		}
		wg.Go(func() {
			v, err := b.get(ctx, id)
			mu.Lock()
			got[id] = readResult{v, err}
			mu.Unlock()
		})
	}
	read(first)
	synctest.Wait()
	for _, id := range ids {
		read(id)
	}
	synctest.Wait()
	close(f.release)
	wg.Wait()
	return got
}

// TestReadBatchTogether: a read asked for while nothing is under way runs
// alone at once; those asked for while it runs wait and then go together
// in one statement, each answered with its own row, and an id with no row
// with ErrNoRows.
func TestReadBatchTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeReads{rows: map[string]string{"a": "A", "b": "B", "c": "C"}, release: make(chan struct{})}
		got := readAll(t, f, f.batch(100), nil, "a", "b", "c", "none")
		want := map[string]readResult{"a": {"A", nil}, "b": {"B", nil}, "c": {"C", nil}, "none": {"", sql.ErrNoRows}}
		for id, w := range want {
			if g := got[id]; g.v != w.v || !errors.Is(g.err, w.err) {
				t.Errorf("read of %s = %q, %v; want %q, %v", id, g.v, g.err, w.v, w.err)
			}
		}
		if want := [][]string{{"b", "c", "none"}}; !slices.EqualFunc(f.batches, want, slices.Equal) {
			t.Errorf("statements of several ids: %v, want %v", f.batches, want)
		}
	})
}

// TestReadBatchSize: no statement reads more than size ids; what is left
// goes in the next.
func TestReadBatchSize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeReads{rows: map[string]string{"a": "A"}, release: make(chan struct{})}
		ids := []string{"b", "c", "d", "e", "f"}
		got := readAll(t, f, f.batch(2), nil, "a", ids...)
		n := 0
		for _, b := range f.batches {
			if len(b) > 2 {
				t.Errorf("a statement read %d ids, more than 2", len(b))
			}
			n += len(b)
		}
		if n < 4 {
			t.Errorf("%d of 5 waiting reads went in statements of several ids (%v)", n, f.batches)
		}
		for _, id := range ids {
			if !errors.Is(got[id].err, sql.ErrNoRows) {
				t.Errorf("read of %s: %v, want ErrNoRows", id, got[id].err)
			}
		}
	})
}

// TestReadBatchFails: a statement that fails, or panics, fails every read
// it would have answered, and the process goes on.
func TestReadBatchFails(t *testing.T) {
	for _, fail := range []string{"connection reset", "panic"} {
		t.Run(fail, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &fakeReads{rows: map[string]string{"a": "A", "b": "B"}, release: make(chan struct{}), fail: fail}
				got := readAll(t, f, f.batch(100), nil, "a", "b", "c")
				if got["a"].v != "A" || got["a"].err != nil {
					t.Errorf("the read alone: %q, %v", got["a"].v, got["a"].err)
				}
				want := fail
				if fail == "panic" {
					want = "batched read: driver bug"
				}
				for _, id := range []string{"b", "c"} {
					if err := got[id].err; err == nil || !strings.Contains(err.Error(), want) {
						t.Errorf("read of %s: %v, want %q", id, err, want)
					}
				}
			})
		})
	}
}

// TestReadBatchGivesUp: a read whose request is gone leaves at once with
// its context's error while the others of its statement wait on; the
// statement is given up when the last of them is gone.
func TestReadBatchGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeReads{rows: map[string]string{"a": "A", "b": "B"}, release: make(chan struct{}), fail: "wait"}
		b := f.batch(100)
		ctxB, cancelB := context.WithCancel(t.Context())
		ctxC, cancelC := context.WithCancel(t.Context())
		done := make(chan readResult, 3)
		go func() { v, err := b.get(t.Context(), "a"); done <- readResult{v, err} }()
		synctest.Wait()
		errs := map[string]chan error{"b": make(chan error, 1), "c": make(chan error, 1)}
		go func() { _, err := b.get(ctxB, "b"); errs["b"] <- err }()
		go func() { _, err := b.get(ctxC, "c"); errs["c"] <- err }()
		synctest.Wait()
		close(f.release)
		if r := <-done; r.v != "A" {
			t.Fatalf("the read alone: %q, %v", r.v, r.err)
		}
		synctest.Wait()
		f.mu.Lock()
		manyCtx := f.manyCtx
		f.mu.Unlock()
		if manyCtx == nil {
			t.Fatal("the waiting reads did not go together")
		}
		cancelB()
		if err := <-errs["b"]; !errors.Is(err, context.Canceled) {
			t.Errorf("the read whose request is gone: %v, want context.Canceled", err)
		}
		synctest.Wait()
		if manyCtx.Err() != nil {
			t.Fatal("the statement was given up while a read still waited for it")
		}
		select {
		case err := <-errs["c"]:
			t.Fatalf("the other read left with %v", err)
		default:
		}
		cancelC()
		if err := <-errs["c"]; !errors.Is(err, context.Canceled) {
			t.Errorf("the last read: %v, want context.Canceled", err)
		}
		synctest.Wait()
		if manyCtx.Err() == nil {
			t.Error("the statement went on with no read left waiting for it")
		}
	})
}
