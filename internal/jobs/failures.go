package jobs

import (
	"context"
	"log/slog"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// failureReporter logs every failed job attempt and counts it through
// onFailure (the failures metric). The retry schedule itself stays River's
// or the job's own.
type failureReporter struct {
	log       *slog.Logger
	onFailure func(kind string)
}

func (f failureReporter) HandleError(ctx context.Context, job *rivertype.JobRow, err error) *river.ErrorHandlerResult {
	f.log.Warn("job failed", "kind", job.Kind, "job_id", job.ID, "attempt", job.Attempt, "err", err.Error())
	if f.onFailure != nil {
		f.onFailure(job.Kind)
	}
	return nil
}

func (f failureReporter) HandlePanic(ctx context.Context, job *rivertype.JobRow, v any, trace string) *river.ErrorHandlerResult {
	f.log.Error("job panicked", "kind", job.Kind, "job_id", job.ID, "panic", v, "trace", trace)
	if f.onFailure != nil {
		f.onFailure(job.Kind)
	}
	return nil
}
