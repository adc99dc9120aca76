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
	return loop(context.Background(), interval, false, func(ctx context.Context) {
		n, err := fn(ctx)
		switch {
		case err != nil && ctx.Err() == nil && !errors.Is(err, kv.ErrClosed):
			log.Warn(what+" failed", "err", err, "count", n)
		case n > 0:
			log.Debug(what, "count", n)
		}
	})
}

// NowAndEvery runs fn at once and then every interval, with a context
// that ends when parent does or the returned stop is called; stop waits
// for a run in progress to end. fn handles its own failures.
func NowAndEvery(parent context.Context, interval time.Duration, fn func(context.Context)) (stop func()) {
	return loop(parent, interval, true, fn)
}

// loop is the goroutine both kinds of loop share: fn each tick (and at
// once when now is set) until stop cancels the context.
func loop(parent context.Context, interval time.Duration, now bool, fn func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			if now {
				fn(ctx)
			}
			now = true
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
