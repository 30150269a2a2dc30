package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
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

// ExpireDisputesArgs closes the unanswered disputes past their evidence
// deadline as expired.
type ExpireDisputesArgs struct{}

// Kind names the job.
func (ExpireDisputesArgs) Kind() string { return "expire_disputes" }

// ExpireLinksArgs marks the active payment links past their expires_at
// expired.
type ExpireLinksArgs struct{}

// Kind names the job.
func (ExpireLinksArgs) Kind() string { return "expire_payment_links" }

// RemoveExpiredEvidenceArgs removes the evidence files never attached
// whose upload link has expired.
type RemoveExpiredEvidenceArgs struct{}

// Kind names the job.
func (RemoveExpiredEvidenceArgs) Kind() string { return "remove_expired_evidence" }

// evidenceSweepInterval is how often unattached evidence past its upload
// link is removed: an upload link lives an hour, so a file is gone at most
// a quarter of an hour after its link.
const evidenceSweepInterval = 15 * time.Minute

// RefreshPaymentViewsArgs renders again the payments whose stored
// rendering is of an older version.
type RefreshPaymentViewsArgs struct{}

// Kind names the job.
func (RefreshPaymentViewsArgs) Kind() string { return "payment_views_refresh" }

// FoldLedgerTotalsArgs folds the spare slots of the ledger's running
// totals back into one per total.
type FoldLedgerTotalsArgs struct{}

// Kind names the job.
func (FoldLedgerTotalsArgs) Kind() string { return "fold_ledger_totals" }

// ResealSecretsArgs seals again, under the first key-encryption key,
// the secrets sealed under another: the work of a key rotation, which
// costs nothing while one key is configured.
type ResealSecretsArgs struct{}

// Kind names the job.
func (ResealSecretsArgs) Kind() string { return "reseal_secrets" }

// CheckLedgerArgs runs the ledger check (payd.Service.CheckLedger) and
// reports what it found (Options.OnLedgerCheck): drift between the
// running totals and the postings is alerted on, not left until an
// operator happens to run `payd admin ledger check`. It runs once a day,
// not hourly: it is the one periodic kind that reads the whole ledger, so
// its cost grows with the history rather than with the day's activity.
type CheckLedgerArgs struct{}

// Kind names the job.
func (CheckLedgerArgs) Kind() string { return "ledger_check" }

// periodic is a periodic kind: its arguments, its period, and whether it
// is a sweep (every few seconds, unique per period: periodicInsertOpts).
type periodic struct {
	args  river.JobArgs
	every time.Duration
	sweep bool
}

// periodics are the periodic kinds: the expiry sweeps and the hourly ones.
func periodics() []periodic {
	return []periodic{
		{ExpirePaymentsArgs{}, payd.ExpirySweepInterval, true},
		{ExpireDisputesArgs{}, payd.ExpirySweepInterval, true},
		{ExpireLinksArgs{}, payd.ExpirySweepInterval, true},
		{RemoveExpiredEvidenceArgs{}, evidenceSweepInterval, true},
		{RefreshPaymentViewsArgs{}, time.Hour, false},
		{PurgeEventsArgs{}, time.Hour, false},
		{PurgeIdempotencyArgs{}, time.Hour, false},
		{payd.SettlementRunArgs{}, time.Hour, false},
		{FoldLedgerTotalsArgs{}, time.Hour, false},
		{ResealSecretsArgs{}, time.Hour, false},
		{CheckLedgerArgs{}, 24 * time.Hour, false},
	}
}

// periodicAttempts is how often a failing periodic run is tried before it
// is given up; the next period's run then takes up its work. Retries are
// periodicRetryStep apart, so they end within a minute and never hold the
// kind's one place (periodicInsertOpts) for long.
const (
	periodicAttempts  = 3
	periodicRetryStep = 10 * time.Second
)

// periodicInsertOpts puts a periodic run on the periodic queue, unique
// per kind among the runs waiting, running or waiting to retry, across
// every instance: none piles up behind the one in flight, however often
// the schedule, a jump of the test clock or a restart asks for one. A
// finished run does not count. A sweep (every few seconds) is unique per
// period instead: a run of an instance that died mid-run stays "running"
// until River rescues it, minutes later, and must not stop the sweep
// that long; two runs of a sweep never work at once all the same, as a
// run works only under its kind's lock (periodicWorker).
func periodicInsertOpts(p periodic) *river.InsertOpts {
	opts := &river.InsertOpts{Queue: queuePeriodic, MaxAttempts: periodicAttempts, UniqueOpts: river.UniqueOpts{
		ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
			rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled},
	}}
	if p.sweep {
		opts.UniqueOpts.ByPeriod = p.every
	}
	return opts
}

// PeriodicKinds names the kinds of the periodic jobs, each with whether
// it is a sweep (unique per period: a second run of it may start, find
// the first working and end at once). The fault test reads it, so that a
// periodic run waiting for its turn, or given up after its attempts (the
// next period's run takes over), is not taken for a lost job.
func PeriodicKinds() map[string]bool {
	out := map[string]bool{}
	for _, p := range periodics() {
		out[p.args.Kind()] = p.sweep
	}
	return out
}

// skipAhead is every periodic kind's schedule: when the clock has jumped
// past several runs (the test clock), it runs once and resumes from the
// new time rather than asking for every missed run. Each kind's run does
// all the work due at its start (a sweep everything expired, a settlement
// run every recorded day due, a purge everything past its age), so one
// run covers the missed ones. River's own interval steps from the last
// planned run, one period per pass: a seven-day jump would ask for
// 120,000 sweeps, and a jump of months for thousands of runs of each
// hourly kind, one pass after another, each taking the row lock of its
// kind's run in flight (the unique insert's conflict) while that run's
// end takes the same rows in another order: a deadlock, again and again.
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

// schedule is the kind's schedule on clock.
func (p periodic) schedule(clock payd.Clock) river.PeriodicSchedule {
	return skipAhead{clock: clock, every: p.every}
}

func periodicJobs(clock payd.Clock) []*river.PeriodicJob {
	var out []*river.PeriodicJob
	for _, p := range periodics() {
		out = append(out, river.NewPeriodicJob(p.schedule(clock),
			func() (river.JobArgs, *river.InsertOpts) { return p.args, periodicInsertOpts(p) },
			&river.PeriodicJobOpts{RunOnStart: true}))
	}
	return out
}

// argsWorker runs a job whose arguments the service needs. A job that
// finds its merchant's data out of reach (payd.CauseStorage: the
// database, or on a cluster the worker that holds the merchant, is down
// or restarting) waits the error's Retry-After and runs again, without
// spending an attempt: a snooze. An outage of a worker then delays its
// merchants' jobs by about the outage, however long it lasts, where the
// retry policy's growing pauses (1 s, 16 s, 81 s, …) would delay them by
// minutes after it and, past the attempts, discard them.
type argsWorker[T river.JobArgs] struct {
	river.WorkerDefaults[T]
	fn func(ctx context.Context, args T) error
}

func (w *argsWorker[T]) Work(ctx context.Context, j *river.Job[T]) error {
	err := w.fn(ctx, j.Args)
	if pe := (*payd.Error)(nil); errors.As(err, &pe) && pe.Cause == payd.CauseStorage {
		return river.JobSnooze(max(pe.RetryAfter, time.Second))
	}
	return err
}

// periodicWorker runs a periodic kind's work, and decides what follows
// the run: work left at the budget (payd.ErrWorkLeft) or a jump of the
// test clock while it ran makes the same job run again at once (a
// snooze, so it keeps the kind's one place and counts no attempt); a
// failure is retried periodicRetryStep later, then a step more.
type periodicWorker[T river.JobArgs] struct {
	river.WorkerDefaults[T]
	q  *Queue
	fn func(ctx context.Context) error
}

func (w *periodicWorker[T]) Work(ctx context.Context, j *river.Job[T]) error {
	unlock, ok, err := w.q.lockKind(ctx, j.Kind)
	if err != nil {
		w.q.ran(j.Kind, RunFailed)
		return err
	}
	if !ok {
		// Another run of the kind works now (a sweep's run of an
		// earlier period): it covers this one's work.
		w.q.ran(j.Kind, RunSkipped)
		return nil
	}
	defer unlock()
	jumps := w.q.clockJumps()
	w.q.running(j.Kind, 1)
	defer w.q.running(j.Kind, -1)
	err = w.fn(ctx)
	switch {
	case errors.Is(err, payd.ErrWorkLeft):
		if err != payd.ErrWorkLeft { //nolint:errorlint // anything joined to it is worth a line
			w.q.log.Warn("periodic run continues after errors", "kind", j.Kind, "err", err.Error())
		}
		w.q.ran(j.Kind, RunContinued)
		return river.JobSnooze(0)
	case err != nil:
		w.q.ran(j.Kind, RunFailed)
		return err
	case w.q.clockJumps() != jumps:
		w.q.ran(j.Kind, RunAgain)
		return river.JobSnooze(0)
	}
	w.q.ran(j.Kind, RunDone)
	return nil
}

func (w *periodicWorker[T]) NextRetry(j *river.Job[T]) time.Time {
	return w.q.clock.Now().Add(time.Duration(j.Attempt) * periodicRetryStep)
}

// periodicWork registers fn as the work of the periodic kind T.
func periodicWork[T river.JobArgs](q *Queue, fn func(ctx context.Context) error) {
	river.AddWorker(q.workers, &periodicWorker[T]{q: q, fn: fn})
}

func registerWorkers(q *Queue, svc *payd.Service, acc *account.Service) {
	w := q.workers
	periodicWork[PurgeEventsArgs](q, func(ctx context.Context) error {
		_, err := svc.PurgeEvents(ctx)
		return err
	})
	periodicWork[PurgeIdempotencyArgs](q, func(ctx context.Context) error {
		if _, err := svc.PurgeIdempotency(ctx); err != nil {
			return err
		}
		if _, err := acc.PurgeSessions(ctx); err != nil {
			return err
		}
		_, err := acc.PurgeSignInGuards(ctx)
		return err
	})
	periodicWork[ExpirePaymentsArgs](q, func(ctx context.Context) error {
		_, err := svc.ExpireDuePayments(ctx)
		return err
	})
	periodicWork[ExpireDisputesArgs](q, func(ctx context.Context) error {
		_, err := svc.ExpireDueDisputes(ctx)
		return err
	})
	periodicWork[ExpireLinksArgs](q, func(ctx context.Context) error {
		_, err := svc.ExpireDueLinks(ctx)
		return err
	})
	periodicWork[RemoveExpiredEvidenceArgs](q, func(ctx context.Context) error {
		_, err := svc.RemoveExpiredEvidence(ctx)
		return err
	})
	periodicWork[RefreshPaymentViewsArgs](q, func(ctx context.Context) error {
		_, err := svc.RefreshPaymentViews(ctx)
		return err
	})
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
	periodicWork[payd.SettlementRunArgs](q, svc.RunSettlements)
	periodicWork[FoldLedgerTotalsArgs](q, func(ctx context.Context) error {
		_, err := svc.FoldLedgerTotals(ctx)
		return err
	})
	periodicWork[ResealSecretsArgs](q, func(ctx context.Context) error {
		_, err := svc.ResealSecrets(ctx)
		return err
	})
	periodicWork[CheckLedgerArgs](q, func(ctx context.Context) error {
		problems, err := svc.CheckLedger(ctx)
		if err != nil {
			return err
		}
		q.ledgerChecked(problems)
		return nil
	})
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
