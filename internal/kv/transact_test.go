package kv_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

var errLost = errors.New("lost a conflict")

// observer records what Transact reports.
type observer struct {
	conflicts, commits, attempts int
}

func (o *observer) Committed(_ time.Duration, attempts int) { o.commits++; o.attempts = attempts }
func (o *observer) Conflicted()                             { o.conflicts++ }
func (o *observer) Synced(int)                              {}

func retry() kv.Retry {
	return kv.Retry{
		Conflict:     func(err error) bool { return errors.Is(err, errLost) },
		Budget:       time.Minute,
		FirstBackoff: time.Microsecond,
		MaxBackoff:   10 * time.Microsecond,
	}
}

// TestTransactRetriesConflicts: an attempt that loses a conflict runs
// again; only the attempt that commits has its OnCommit functions run,
// after the commit, and the observer hears of each conflict and of the
// commit.
func TestTransactRetriesConflicts(t *testing.T) {
	var o observer
	var ran []string
	n := 0
	err := retry().Transact(context.Background(), &o, func(h *kv.Hooks) error {
		n++
		attempt := n
		h.OnCommit(func() { ran = append(ran, "attempt "+strconv.Itoa(attempt)) })
		if len(ran) != 0 {
			t.Errorf("OnCommit ran before any commit: %q", ran)
		}
		if attempt < 3 {
			return errLost
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ran, ",") != "attempt 3" {
		t.Fatalf("OnCommit ran for %q, want the third attempt only", ran)
	}
	if o.conflicts != 2 || o.commits != 1 || o.attempts != 3 {
		t.Fatalf("observer saw %+v, want 2 conflicts and one commit after 3 attempts", o)
	}
}

// TestTransactOtherErrors: an error that is not a conflict ends the
// Update at once, unchanged, with nothing run and nothing reported.
func TestTransactOtherErrors(t *testing.T) {
	var o observer
	boom := errors.New("boom")
	n := 0
	ran := false
	err := retry().Transact(context.Background(), &o, func(h *kv.Hooks) error {
		n++
		h.OnCommit(func() { ran = true })
		return boom
	})
	if err != boom || n != 1 || ran || o != (observer{}) { //nolint:errorlint // the attempt's error comes back unchanged, not wrapped
		t.Fatalf("got %v after %d attempts (ran %v, observer %+v), want boom after one, nothing run or reported", err, n, ran, o)
	}
}

// TestTransactBudget: retries stop when the budget has run out, with
// ErrConflict.
func TestTransactBudget(t *testing.T) {
	r := retry()
	clock := time.Unix(0, 0)
	r.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
	r.Budget = 5 * time.Second
	n := 0
	err := r.Transact(context.Background(), nil, func(*kv.Hooks) error { n++; return errLost })
	if !errors.Is(err, kv.ErrConflict) || !kv.IsRetryable(err) {
		t.Fatalf("got %v, want ErrConflict", err)
	}
	// The clock ticks once per reading: after attempt n, n ticks have
	// passed since the start, so the 6th is the first past the budget.
	if n != 6 {
		t.Fatalf("%d attempts within a budget of 5 clock ticks, want 6", n)
	}
}

// TestTransactContext: a cancelled context ends the Update before an
// attempt, and during a backoff.
func TestTransactContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 0
	if err := retry().Transact(ctx, nil, func(*kv.Hooks) error { n++; return nil }); !errors.Is(err, context.Canceled) || n != 0 {
		t.Fatalf("cancelled before: %v after %d attempts", err, n)
	}
	ctx, cancel = context.WithCancel(context.Background())
	r := retry()
	r.FirstBackoff, r.MaxBackoff = time.Hour, time.Hour
	err := r.Transact(ctx, nil, func(*kv.Hooks) error { cancel(); return errLost })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled during the backoff: %v", err)
	}
}

// TestReadOnlyOnCommit: a snapshot has nothing to commit, so OnCommit
// runs its function at once.
func TestReadOnlyOnCommit(t *testing.T) {
	ran := false
	kv.ReadOnly(nil).OnCommit(func() { ran = true })
	if !ran {
		t.Fatal("OnCommit on a read-only Txn did not run")
	}
}
