package kv

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// Retry is an engine's policy for re-running an Update whose attempt lost
// to a concurrent commit. Every engine runs its Updates through
// Retry.Transact, so that retries, backoff, the retry budget, the commit
// measurements and the OnCommit functions behave the same on each.
type Retry struct {
	// Conflict reports whether an attempt's error is a conflict that a
	// fresh attempt may not meet (it is then run again); every other
	// error ends the Update.
	Conflict func(error) bool
	// Budget bounds the time an Update keeps retrying; after it, the
	// Update fails with ErrConflict.
	Budget time.Duration
	// FirstBackoff and MaxBackoff bound the random pause before a retry:
	// the bound starts at twice FirstBackoff and doubles with each
	// attempt, up to MaxBackoff.
	FirstBackoff, MaxBackoff time.Duration
	// Now reads the clock (time.Now when nil).
	Now func() time.Time
}

// Hooks holds the functions one attempt registered with Txn.OnCommit.
// Engines embed a *Hooks in their transaction type to implement OnCommit.
type Hooks struct{ fns []func() }

// OnCommit implements Txn.OnCommit.
func (h *Hooks) OnCommit(fn func()) { h.fns = append(h.fns, fn) }

func (h *Hooks) run() {
	for _, fn := range h.fns {
		fn()
	}
}

// Transact runs one Update: attempt runs the caller's closure once in a
// fresh transaction whose OnCommit registrations go to hooks, and commits
// it; a nil return means committed and durable. An attempt that fails
// with a conflict is run again (with new hooks) after a backoff, until
// the budget runs out; obs, when not nil, hears of each conflict and of
// the commit. After the commit the attempt's hooks run, and Transact
// returns.
func (r Retry) Transact(ctx context.Context, obs Observer, attempt func(hooks *Hooks) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := r.Now
	if now == nil {
		now = time.Now
	}
	began := now()
	for n := 1; ; n++ {
		hooks := new(Hooks)
		err := attempt(hooks)
		if err == nil {
			if obs != nil {
				obs.Committed(now().Sub(began), n)
			}
			hooks.run()
			return nil
		}
		if !r.Conflict(err) {
			return err
		}
		if obs != nil {
			obs.Conflicted()
		}
		if now().Sub(began) > r.Budget {
			return fmt.Errorf("update after %d attempts: %w", n, ErrConflict)
		}
		if err := r.Backoff(ctx, n); err != nil {
			return err
		}
	}
}

// Backoff sleeps before retry number attempt: a random time whose bound
// doubles with each attempt, so that contenders spread out instead of
// colliding again. It returns early with the context's error.
func (r Retry) Backoff(ctx context.Context, attempt int) error {
	ceiling := min(r.FirstBackoff<<min(attempt, 10), r.MaxBackoff)
	t := time.NewTimer(time.Duration(rand.Int64N(int64(ceiling)) + 1))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
