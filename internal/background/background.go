package background

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// Every runs fn every interval until the returned stop is called; stop
// waits for a run in progress to end. A failure is logged as "<what>
// failed" and retried at the next tick; a run that did something (n > 0)
// is logged at debug level. A closed store or a stopped loop is not a
// failure.
func Every(interval time.Duration, log *slog.Logger, what string, fn func(context.Context) (n int, err error)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			n, err := fn(ctx)
			switch {
			case err != nil && ctx.Err() == nil && !errors.Is(err, kv.ErrClosed):
				log.Warn(what+" failed", "err", err, "count", n)
			case n > 0:
				log.Debug(what, "count", n)
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
