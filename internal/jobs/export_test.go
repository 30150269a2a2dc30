package jobs

import "context"

// RegisterWorkers registers every kind's worker on a queue that is never
// started: River refuses to insert a kind it has no worker for, and a test
// that counts waiting jobs needs none of them taken.
func (q *Queue) RegisterWorkers() { registerWorkers(q, nil, nil) }

// LockKind is lockKind, for the test of the kinds' locks.
func (q *Queue) LockKind(ctx context.Context, kind string) (func(), bool, error) {
	return q.lockKind(ctx, kind)
}
