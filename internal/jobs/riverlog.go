package jobs

import (
	"context"
	"log/slog"
	"strings"
)

// routineRiverMessages end the messages River logs at info level as a
// matter of routine: the producer's job counts every five seconds, each
// pass of a maintenance service that did something, and on SQLite the
// notice that it polls. At the default level they would drown what
// matters, so riverLog lowers them to debug; River's warnings and errors,
// and its other messages, keep their level.
var routineRiverMessages = []string{
	": Producer job counts",
	": Ran successfully",
	"entering poll only mode",
}

// riverLog is the logger handed to River: log, with River's routine
// messages at debug.
func riverLog(log *slog.Logger) *slog.Logger {
	return slog.New(routineAtDebug{log.Handler()})
}

// routineAtDebug is a slog.Handler that lowers River's routine info
// messages to debug before its inner handler sees them.
type routineAtDebug struct{ inner slog.Handler }

func (h routineAtDebug) Enabled(ctx context.Context, level slog.Level) bool {
	return h.inner.Enabled(ctx, level)
}

func (h routineAtDebug) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo && routine(r.Message) {
		if !h.inner.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	return h.inner.Handle(ctx, r)
}

func (h routineAtDebug) WithAttrs(attrs []slog.Attr) slog.Handler {
	return routineAtDebug{h.inner.WithAttrs(attrs)}
}

func (h routineAtDebug) WithGroup(name string) slog.Handler {
	return routineAtDebug{h.inner.WithGroup(name)}
}

func routine(msg string) bool {
	for _, m := range routineRiverMessages {
		if strings.HasSuffix(msg, m) {
			return true
		}
	}
	return false
}
