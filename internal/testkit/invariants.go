package testkit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
