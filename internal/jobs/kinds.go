package jobs

import (
	"context"
	"encoding/json"
	"time"

	"github.com/riverqueue/river"

	"github.com/paydhq/payd"
)

// jobArgs lets any payd.JobArgs travel through River: River needs only a
// kind and JSON.
type jobArgs struct{ payd.JobArgs }

func (a jobArgs) MarshalJSON() ([]byte, error) { return json.Marshal(a.JobArgs) }

// PurgeEventsArgs deletes events older than the retention of one year.
type PurgeEventsArgs struct{}

// Kind names the job.
func (PurgeEventsArgs) Kind() string { return "purge_events" }

// PurgeIdempotencyArgs deletes idempotency records past their 24 hours,
// and the dashboard's sessions and setup tokens past their timeouts: the
// hourly removal of expired credentials of both kinds.
type PurgeIdempotencyArgs struct{}

// Kind names the job.
func (PurgeIdempotencyArgs) Kind() string { return "purge_idempotency" }

// ExpirePaymentsArgs cancels the pending payments past their expires_at.
type ExpirePaymentsArgs struct{}

// Kind names the job.
func (ExpirePaymentsArgs) Kind() string { return "expire_payments" }

// InsertOpts: a sweep is tried once. The next one, ExpirySweepInterval
// later, takes up what this one could not expire; retrying a whole sweep
// with backoff would only stack sweeps over the same due list.
func (ExpirePaymentsArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 1} }

// ExpireDisputesArgs closes the unanswered disputes past their evidence
// deadline as expired.
type ExpireDisputesArgs struct{}

// Kind names the job.
func (ExpireDisputesArgs) Kind() string { return "expire_disputes" }

// InsertOpts: tried once, as the payment sweep; the next one takes up
// what this one left.
func (ExpireDisputesArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 1} }

// ExpireLinksArgs marks the active payment links past their expires_at
// expired.
type ExpireLinksArgs struct{}

// Kind names the job.
func (ExpireLinksArgs) Kind() string { return "expire_payment_links" }

// InsertOpts: tried once, as the payment sweep; the next one takes up
// what this one left.
func (ExpireLinksArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 1} }

// RemoveExpiredEvidenceArgs removes the evidence files never attached
// whose upload link has expired.
type RemoveExpiredEvidenceArgs struct{}

// Kind names the job.
func (RemoveExpiredEvidenceArgs) Kind() string { return "remove_expired_evidence" }

// InsertOpts: tried once, as the expiry sweeps; the next one takes up what
// this one left.
func (RemoveExpiredEvidenceArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 1}
}

// evidenceSweepInterval is how often unattached evidence past its upload
// link is removed: an upload link lives an hour, so a file is gone at most
// a quarter of an hour after its link.
const evidenceSweepInterval = 15 * time.Minute

// RefreshPaymentViewsArgs renders again the payments whose stored
// rendering is of an older version.
type RefreshPaymentViewsArgs struct{}

// Kind names the job.
func (RefreshPaymentViewsArgs) Kind() string { return "payment_views_refresh" }

// InsertOpts: tried once; the next run takes up what this one left.
func (RefreshPaymentViewsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 1}
}

// FoldLedgerTotalsArgs folds the spare slots of the ledger's running
// totals back into one per total.
type FoldLedgerTotalsArgs struct{}

// Kind names the job.
func (FoldLedgerTotalsArgs) Kind() string { return "fold_ledger_totals" }

// InsertOpts: tried once; a slot held at the time is folded by the next
// run, and nothing waits for it.
func (FoldLedgerTotalsArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 1} }

// periodicArgs are the periodic jobs: the expiry sweeps and the hourly ones.
func periodicArgs() []river.JobArgs {
	return []river.JobArgs{ExpirePaymentsArgs{}, ExpireDisputesArgs{}, ExpireLinksArgs{}, RemoveExpiredEvidenceArgs{}, RefreshPaymentViewsArgs{}, PurgeEventsArgs{}, PurgeIdempotencyArgs{}, payd.SettlementRunArgs{}, FoldLedgerTotalsArgs{}}
}

// PeriodicKinds names the kinds of the periodic jobs, and for each whether
// it is tried once (a sweep: a failed run is discarded, and the next run
// takes up what it left). The fault test reads it, so that a periodic job
// waiting for its turn is not taken for a lost one.
func PeriodicKinds() map[string]bool {
	out := map[string]bool{}
	for _, a := range periodicArgs() {
		once := false
		if o, ok := a.(river.JobArgsWithInsertOpts); ok {
			once = o.InsertOpts().MaxAttempts == 1
		}
		out[a.Kind()] = once
	}
	return out
}

// skipAhead is a periodic schedule that, when the clock has jumped past
// several runs (the test clock), runs once and resumes from the new time
// rather than enqueueing every missed run: one sweep covers them all, and
// a seven-day jump would otherwise enqueue 120,000 of them.
type skipAhead struct {
	clock payd.Clock
	every time.Duration
}

func (s skipAhead) Next(prev time.Time) time.Time {
	next := prev.Add(s.every)
	if now := s.clock.Now(); next.Before(now) {
		return now.Add(s.every)
	}
	return next
}

func periodicJobs(clock payd.Clock) []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(skipAhead{clock: clock, every: payd.ExpirySweepInterval},
			func() (river.JobArgs, *river.InsertOpts) { return ExpirePaymentsArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(skipAhead{clock: clock, every: payd.ExpirySweepInterval},
			func() (river.JobArgs, *river.InsertOpts) { return ExpireDisputesArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(skipAhead{clock: clock, every: payd.ExpirySweepInterval},
			func() (river.JobArgs, *river.InsertOpts) { return ExpireLinksArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(skipAhead{clock: clock, every: evidenceSweepInterval},
			func() (river.JobArgs, *river.InsertOpts) { return RemoveExpiredEvidenceArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return RefreshPaymentViewsArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return PurgeEventsArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return PurgeIdempotencyArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return payd.SettlementRunArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return FoldLedgerTotalsArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
}

// argsWorker runs a job whose arguments the service needs.
type argsWorker[T river.JobArgs] struct {
	river.WorkerDefaults[T]
	fn func(ctx context.Context, args T) error
}

func (w *argsWorker[T]) Work(ctx context.Context, j *river.Job[T]) error { return w.fn(ctx, j.Args) }

type funcWorker[T river.JobArgs] struct {
	river.WorkerDefaults[T]
	fn func(ctx context.Context) error
}

func (w *funcWorker[T]) Work(ctx context.Context, _ *river.Job[T]) error { return w.fn(ctx) }

func registerWorkers(w *river.Workers, svc *payd.Service) {
	river.AddWorker(w, &funcWorker[PurgeEventsArgs]{fn: func(ctx context.Context) error {
		_, err := svc.PurgeEvents(ctx)
		return err
	}})
	river.AddWorker(w, &funcWorker[PurgeIdempotencyArgs]{fn: func(ctx context.Context) error {
		if _, err := svc.PurgeIdempotency(ctx); err != nil {
			return err
		}
		_, err := svc.PurgeSessions(ctx)
		return err
	}})
	river.AddWorker(w, &funcWorker[ExpirePaymentsArgs]{fn: func(ctx context.Context) error {
		_, err := svc.ExpireDuePayments(ctx)
		return err
	}})
	river.AddWorker(w, &funcWorker[ExpireDisputesArgs]{fn: func(ctx context.Context) error {
		_, err := svc.ExpireDueDisputes(ctx)
		return err
	}})
	river.AddWorker(w, &funcWorker[ExpireLinksArgs]{fn: func(ctx context.Context) error {
		_, err := svc.ExpireDueLinks(ctx)
		return err
	}})
	river.AddWorker(w, &funcWorker[RemoveExpiredEvidenceArgs]{fn: func(ctx context.Context) error {
		_, err := svc.RemoveExpiredEvidence(ctx)
		return err
	}})
	river.AddWorker(w, &funcWorker[RefreshPaymentViewsArgs]{fn: func(ctx context.Context) error {
		_, err := svc.RefreshPaymentViews(ctx)
		return err
	}})
	river.AddWorker(w, &argsWorker[payd.DisputeSubmitArgs]{fn: func(ctx context.Context, a payd.DisputeSubmitArgs) error {
		return svc.SendDisputeEvidence(ctx, a.DisputeID)
	}})
	river.AddWorker(w, &argsWorker[payd.DisputeExpireArgs]{fn: func(ctx context.Context, a payd.DisputeExpireArgs) error {
		return svc.ExpireDispute(ctx, a.DisputeID, a.Force)
	}})
	river.AddWorker(w, &argsWorker[payd.PaymentExpireArgs]{fn: func(ctx context.Context, a payd.PaymentExpireArgs) error {
		return svc.ExpirePayment(ctx, a.PaymentID, a.Force)
	}})
	river.AddWorker(w, &argsWorker[payd.ProviderNotificationArgs]{fn: func(ctx context.Context, a payd.ProviderNotificationArgs) error {
		return svc.HandleProviderNotification(ctx, a.Provider, a.Payload, a.Signature)
	}})
	river.AddWorker(w, &argsWorker[payd.WebhookDeliverArgs]{fn: func(context.Context, payd.WebhookDeliverArgs) error {
		svc.KickDeliveries()
		return nil
	}})
	river.AddWorker(w, &funcWorker[payd.SettlementRunArgs]{fn: svc.RunSettlements})
	river.AddWorker(w, &funcWorker[FoldLedgerTotalsArgs]{fn: func(ctx context.Context) error {
		_, err := svc.FoldLedgerTotals(ctx)
		return err
	}})
	river.AddWorker(w, &argsWorker[payd.LedgerReleaseArgs]{fn: func(ctx context.Context, a payd.LedgerReleaseArgs) error {
		return svc.ReleaseHeld(ctx, a)
	}})
	river.AddWorker(w, &argsWorker[payd.PayoutCheckArgs]{fn: func(ctx context.Context, a payd.PayoutCheckArgs) error {
		return svc.CheckPayout(ctx, a.PayoutID)
	}})
	river.AddWorker(w, &argsWorker[payd.QRAttemptArgs]{fn: func(ctx context.Context, a payd.QRAttemptArgs) error {
		return svc.StartQRAttempt(ctx, a.PaymentID)
	}})
	river.AddWorker(w, &argsWorker[payd.ProviderStatusArgs]{fn: func(ctx context.Context, a payd.ProviderStatusArgs) error {
		return svc.QueryProviderStatus(ctx, a)
	}})
}
