package occ_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

type runningCounter interface{ Running() int }

// TestRunningCountsAttemptsUntilApplied: Running counts an Update's
// attempt from its snapshot until its writes are applied, and only then;
// an attempt that fails or writes nothing stops counting when it returns.
// The embedded engine holds a sync back while others run (group commit),
// so a count that leaked would delay every later sync.
func TestRunningCountsAttemptsUntilApplied(t *testing.T) {
	s := memory.Open()
	defer func() { _ = s.Close() }()
	r, ok := s.(runningCounter)
	if !ok {
		t.Fatal("the manager does not count running transactions")
	}
	ctx := context.Background()
	inside, release := make(chan int), make(chan struct{})
	done := make(chan error)
	for i := range 3 {
		go func() {
			done <- s.Update(ctx, func(tx kv.Txn) error {
				inside <- r.Running()
				<-release
				switch i {
				case 0:
					return tx.Set([]byte("k"), []byte("v"))
				case 1:
					return errors.New("refused")
				}
				return nil // writes nothing
			})
		}()
	}
	for range 3 {
		if n := <-inside; n < 1 || n > 3 {
			t.Fatalf("inside an attempt, Running = %d", n)
		}
	}
	if n := r.Running(); n != 3 {
		t.Fatalf("three attempts in their bodies: Running = %d", n)
	}
	close(release)
	for range 3 {
		<-done
	}
	if n := r.Running(); n != 0 {
		t.Fatalf("after every attempt returned: Running = %d", n)
	}
}

// TestRunningAfterConflicts: attempts that lose a conflict and retry
// leave the count at zero once they all commit.
func TestRunningAfterConflicts(t *testing.T) {
	s := memory.Open()
	defer func() { _ = s.Close() }()
	r := s.(runningCounter)
	ctx := context.Background()
	errs := make(chan error)
	for range 8 {
		go func() {
			errs <- s.Update(ctx, func(tx kv.Txn) error {
				v, err := tx.Get([]byte("hot"))
				if err != nil && !errors.Is(err, kv.ErrNotFound) {
					return err
				}
				return tx.Set([]byte("hot"), append(v, 'x'))
			})
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := r.Running(); n != 0 {
		t.Fatalf("Running = %d after every commit", n)
	}
	var got []byte
	if err := s.View(ctx, func(rd kv.Reader) error {
		var err error
		got, err = rd.Get([]byte("hot"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 8 {
		t.Fatalf("hot = %q, want 8 increments", got)
	}
}
