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

// PurgeIdempotencyArgs deletes idempotency records past their 24 hours.
type PurgeIdempotencyArgs struct{}

// Kind names the job.
func (PurgeIdempotencyArgs) Kind() string { return "purge_idempotency" }

// periodicArgs are the jobs run every hour.
func periodicArgs() []river.JobArgs {
	return []river.JobArgs{PurgeEventsArgs{}, PurgeIdempotencyArgs{}, payd.SettlementRunArgs{}}
}

func periodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return PurgeEventsArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return PurgeIdempotencyArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return payd.SettlementRunArgs{}, nil },
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
		_, err := svc.PurgeIdempotency(ctx)
		return err
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
	river.AddWorker(w, &argsWorker[payd.LedgerReleaseArgs]{fn: func(ctx context.Context, a payd.LedgerReleaseArgs) error {
		return svc.ReleaseHeld(ctx, a)
	}})
	river.AddWorker(w, &argsWorker[payd.ProviderStatusArgs]{fn: func(ctx context.Context, a payd.ProviderStatusArgs) error {
		return svc.QueryProviderStatus(ctx, a)
	}})
}
