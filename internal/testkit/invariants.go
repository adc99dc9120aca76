package testkit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// StoreCheck verifies an invariant of a store's contents and returns an
// error describing the first violation it finds.
type StoreCheck func(ctx context.Context, store kv.Store) error

// CheckAfter runs checks against store when the test ends, whether it
// passed or not, and reports each violation as a test error. Cleanups run
// last-in first-out, so call it after whatever opened the store (for
// example servertest.Start): the checks then run while the store is open.
// A test that closes the store itself (to restart a server on the same
// data) leaves nothing to check; that is logged, not failed.
func CheckAfter(t testing.TB, store kv.Store, checks ...StoreCheck) {
	t.Helper()
	if store == nil {
		t.Fatal("CheckAfter: nil store")
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := store.View(ctx, func(kv.Reader) error { return nil }); errors.Is(err, kv.ErrClosed) {
			t.Logf("store invariants not checked: the test closed the store")
			return
		}
		for _, check := range checks {
			if err := check(ctx, store); err != nil {
				t.Errorf("store invariant violated after the test: %v", err)
			}
		}
	})
}

// KeysAscending checks that a full scan of the store yields non-empty keys
// in strictly ascending order, the order every range read relies on.
func KeysAscending(ctx context.Context, store kv.Store) error {
	var prev []byte
	err := store.View(ctx, func(r kv.Reader) error {
		return r.Scan(nil, nil, func(k, _ []byte) error {
			switch {
			case len(k) == 0:
				return fmt.Errorf("scan yielded an empty key after %q", prev)
			case prev != nil && bytes.Compare(prev, k) >= 0:
				return fmt.Errorf("scan yielded %q after %q", k, prev)
			}
			prev = append(prev[:0], k...)
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("scan store: %w", err)
	}
	return nil
}

// A Corruption is a change made to a store directly, behind its
// service's back, that breaks one invariant; Want is part of the
// violation the service's check must report.
type Corruption struct {
	Name    string
	Corrupt func(kv.Txn) error
	Want    string
}

// CheckCatches proves an invariant check can fail: for each corruption,
// in a subtest, setup prepares a store and the check that guards it; the
// check must pass, then report a violation containing Want once Corrupt
// has run in one transaction. The store is emptied when the subtest ends,
// so that checks setup registered for its cleanup find nothing.
func CheckCatches(t *testing.T, setup func(t *testing.T) (kv.Store, func(context.Context) error), cases []Corruption) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			store, check := setup(t)
			t.Cleanup(func() { emptyStore(t, store) })
			ctx := context.Background()
			if err := check(ctx); err != nil {
				t.Fatalf("the check fails before the corruption: %v", err)
			}
			if err := store.Update(ctx, c.Corrupt); err != nil {
				t.Fatalf("corrupt the store: %v", err)
			}
			err := check(ctx)
			switch {
			case err == nil:
				t.Errorf("the check passed a corrupted store; want a violation mentioning %q", c.Want)
			case !strings.Contains(err.Error(), c.Want):
				t.Errorf("the check reported %v; want a violation mentioning %q", err, c.Want)
			}
		})
	}
}

// emptyStore deletes every key of store.
func emptyStore(t testing.TB, store kv.Store) {
	err := store.Update(context.Background(), func(tx kv.Txn) error {
		var keys [][]byte
		if err := tx.Scan(nil, nil, func(k, _ []byte) error {
			keys = append(keys, append([]byte(nil), k...))
			return nil
		}); err != nil {
			return err
		}
		for _, k := range keys {
			if err := tx.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Errorf("empty the corrupted store: %v", err)
	}
}
