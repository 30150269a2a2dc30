package payd

import "context"

// DisputeExpireArgs expires one dispute; Force expires it before its
// deadline (sandbox `expire`).
type DisputeExpireArgs struct {
	DisputeID string `json:"dispute_id"`
	Force     bool   `json:"force,omitempty"`
}

// Kind names the job.
func (DisputeExpireArgs) Kind() string { return "dispute_expire" }

// ExpireDispute closes an unanswered dispute whose evidence deadline has
// passed on the service clock as expired; the sweep and the sandbox run it.
// The deadline is the last moment for evidence, so it passes just after.
// An early or stale run changes nothing.
func (s *Service) ExpireDispute(ctx context.Context, id string, force bool) error {
	return s.store.Tx(ctx, func(tx Tx) error {
		d, err := tx.DisputeGetForUpdate(ctx, id)
		if err != nil {
			return notFoundAs(err, "dispute")
		}
		if !d.Status.CanBecome(DisputeExpired) || (!force && !s.clock.Now().After(d.EvidenceDeadlineAt)) {
			return nil
		}
		return s.moveDispute(ctx, tx, d, DisputeExpired, "")
	})
}

// ExpireDueDisputes expires every unanswered dispute whose deadline has
// passed, each in its own transaction, as ExpireDuePayments does for
// payments: a periodic job runs it on the service clock, a dispute that
// fails is left to the next sweep, and the errors are returned together.
func (s *Service) ExpireDueDisputes(ctx context.Context) (int, error) {
	params := &DisputeListExpiredParams{Now: s.clock.Now(), Limit: expirySweepBatch}
	return sweepDue(ctx, s, "disputes", expirySweepBatch,
		func(tx Tx, after *DisputeDue) ([]DisputeDue, error) {
			if after != nil {
				params.After = *after
			}
			return tx.DisputeListExpired(ctx, params)
		},
		func(d DisputeDue) (string, error) { return d.ID, s.ExpireDispute(ctx, d.ID, false) })
}
