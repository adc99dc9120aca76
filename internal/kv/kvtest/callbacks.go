package kvtest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// collectUntil returns a Scan callback that records keys and stops the
// scan with ErrStopScan once it holds n of them.
func collectUntil(n int, got *[]string) func(k, v []byte) error {
	return func(k, _ []byte) error {
		*got = append(*got, string(k))
		if len(*got) == n {
			return kv.ErrStopScan
		}
		return nil
	}
}

// testScanStop: ErrStopScan ends a scan where it was returned, and Scan
// reports no error; in a transaction too, where the scan merges the
// buffered writes with the snapshot.
func testScanStop(t *testing.T, o Opener) {
	s := o.Open(t)
	ctx := context.Background()
	set(t, s, "a", "1", "b", "2", "c", "3", "d", "4")
	var viewed []string
	err := s.View(ctx, func(r kv.Reader) error { return r.Scan([]byte("a"), nil, collectUntil(2, &viewed)) })
	if err != nil {
		t.Fatalf("a scan stopped with ErrStopScan returned %v, want nil", err)
	}
	equal(t, "stopped view scan", viewed, []string{"a", "b"})

	var inTxn []string
	err = s.Update(ctx, func(tx kv.Txn) error {
		inTxn = nil
		if err := errors.Join(tx.Set([]byte("bb"), []byte("new")), tx.Delete([]byte("c"))); err != nil {
			return err
		}
		return tx.Scan([]byte("a"), nil, collectUntil(3, &inTxn))
	})
	if err != nil {
		t.Fatalf("a transaction's scan stopped with ErrStopScan: %v, want nil", err)
	}
	equal(t, "stopped on a buffered write", inTxn, []string{"a", "b", "bb"})

	// A wrapped ErrStopScan stops as well.
	visits := 0
	err = s.View(ctx, func(r kv.Reader) error {
		return r.Scan(nil, nil, func(k, _ []byte) error {
			visits++
			return fmt.Errorf("enough at %q: %w", k, kv.ErrStopScan)
		})
	})
	if err != nil || visits != 1 {
		t.Fatalf("wrapped ErrStopScan: %v after %d visits, want nil after 1", err, visits)
	}
}

// scanFailure is a callback's own error type, to check that errors.As
// finds it in what Scan returns.
type scanFailure struct{ key string }

func (e *scanFailure) Error() string { return "cannot decode " + e.key }

// testScanError: an error from the callback stops the scan and comes out
// of Scan unchanged, in a View and in an Update (which then commits
// nothing and returns it).
func testScanError(t *testing.T, o Opener) {
	s := o.Open(t)
	ctx := context.Background()
	set(t, s, "a", "1", "b", "2", "c", "3")
	boom := &scanFailure{key: "b"}
	failAtB := func(visits *int) func(k, v []byte) error {
		return func(k, _ []byte) error {
			*visits++
			if string(k) == "b" {
				return boom
			}
			return nil
		}
	}
	check := func(what string, err error, visits int) {
		t.Helper()
		var got *scanFailure
		if !errors.As(err, &got) || got != boom || !errors.Is(err, boom) {
			t.Fatalf("%s: got %v, want the callback's error", what, err)
		}
		if visits != 2 {
			t.Fatalf("%s: the scan went on for %d visits after the callback failed at the 2nd", what, visits)
		}
	}

	visits := 0
	var scanErr error
	err := s.View(ctx, func(r kv.Reader) error {
		scanErr = r.Scan(nil, nil, failAtB(&visits))
		return scanErr
	})
	if scanErr != error(boom) { //nolint:errorlint // the contract: the callback's error comes back unchanged, not wrapped
		t.Fatalf("View's Scan returned %v, want the callback's error itself", scanErr)
	}
	check("View", err, visits)

	err = s.Update(ctx, func(tx kv.Txn) error {
		visits = 0
		if err := tx.Set([]byte("x"), []byte("1")); err != nil {
			return err
		}
		return tx.Scan(nil, nil, failAtB(&visits))
	})
	check("Update", err, visits)
	if _, ok := get(t, s, "x"); ok {
		t.Fatal("an Update whose scan failed committed its write")
	}
}

// testOnCommit: functions registered with OnCommit run after the commit,
// in order, before Update returns, once; an Update that wrote nothing
// commits too.
func testOnCommit(t *testing.T, o Opener) {
	s := o.Open(t)
	ctx := context.Background()
	var ran []string
	err := s.Update(ctx, func(tx kv.Txn) error {
		tx.OnCommit(func() {
			v, _ := get(t, s, "a")
			ran = append(ran, "first saw a="+v)
		})
		tx.OnCommit(func() { ran = append(ran, "second") })
		if err := tx.Set([]byte("a"), []byte("1")); err != nil {
			return err
		}
		if len(ran) != 0 {
			t.Errorf("OnCommit ran before the commit: %q", ran)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "after commit", ran, []string{"first saw a=1", "second"})

	n := 0
	err = s.Update(ctx, func(tx kv.Txn) error {
		tx.OnCommit(func() { n++ })
		_, err := tx.Get([]byte("a"))
		return err
	})
	if err != nil || n != 1 {
		t.Fatalf("an Update that only read: %v, OnCommit ran %d times, want once", err, n)
	}
}

// testOnCommitNotOnError: nothing registered by an attempt that returns
// an error or panics runs.
func testOnCommitNotOnError(t *testing.T, o Opener) {
	s := o.Open(t)
	ctx := context.Background()
	ran := false
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx kv.Txn) error {
		tx.OnCommit(func() { ran = true })
		if err := tx.Set([]byte("a"), []byte("1")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) || ran {
		t.Fatalf("Update returned %v and ran OnCommit = %v; want boom, not run", err, ran)
	}
	err = s.Update(ctx, func(tx kv.Txn) error {
		tx.OnCommit(func() { ran = true })
		return tx.Set(make([]byte, kv.MaxKeySize+1), nil)
	})
	if !errors.Is(err, kv.ErrTooLarge) || ran {
		t.Fatalf("Update returned %v and ran OnCommit = %v; want ErrTooLarge, not run", err, ran)
	}
	func() {
		defer func() { _ = recover() }()
		_ = s.Update(ctx, func(tx kv.Txn) error {
			tx.OnCommit(func() { ran = true })
			panic("boom")
		})
	}()
	if ran {
		t.Fatal("OnCommit ran after the closure panicked")
	}
}

// testOnCommitOnceAfterRetry: an attempt that loses a conflict is run
// again, and only the attempt that committed has its functions run.
func testOnCommitOnceAfterRetry(t *testing.T, o Opener) {
	s := o.Open(t)
	ctx := context.Background()
	set(t, s, "a", "1")
	attempts := 0
	var ran []int
	err := s.Update(ctx, func(tx kv.Txn) error {
		attempts++
		attempt := attempts
		tx.OnCommit(func() { ran = append(ran, attempt) })
		if _, err := tx.Get([]byte("a")); err != nil {
			return err
		}
		if attempt == 1 {
			// A commit that read what this attempt writes and wrote what
			// it read: only the order "it, then this one" explains both,
			// so this attempt must not commit.
			err := s.Update(ctx, func(other kv.Txn) error {
				if _, err := other.Get([]byte("b")); !errors.Is(err, kv.ErrNotFound) {
					return fmt.Errorf("b before the transaction wrote it: %w", err)
				}
				return other.Set([]byte("a"), []byte("2"))
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		return tx.Set([]byte("b"), []byte("x"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if attempts < 2 {
		t.Fatalf("the transaction committed over a concurrent write to what it read (%d attempt)", attempts)
	}
	if fmt.Sprint(ran) != fmt.Sprint([]int{attempts}) {
		t.Fatalf("OnCommit ran for attempts %v, want only the last (%d)", ran, attempts)
	}
}
