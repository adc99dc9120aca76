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
	var bad error
	err := store.View(ctx, func(r kv.Reader) error {
		return r.Scan(nil, nil, func(k, _ []byte) bool {
			switch {
			case len(k) == 0:
				bad = fmt.Errorf("scan yielded an empty key after %q", prev)
			case prev != nil && bytes.Compare(prev, k) >= 0:
				bad = fmt.Errorf("scan yielded %q after %q", k, prev)
			}
			prev = append(prev[:0], k...)
			return bad == nil
		})
	})
	if err != nil {
		return fmt.Errorf("scan store: %w", err)
	}
	return bad
}

// CheckCatches proves an invariant check can fail: check must pass on
// store as the test left it, then report a violation containing want
// once corrupt has changed the store directly, in one transaction,
// behind the service's back.
func CheckCatches(t testing.TB, store kv.Store, check func(context.Context) error, corrupt func(kv.Txn) error, want string) {
	t.Helper()
	ctx := context.Background()
	if err := check(ctx); err != nil {
		t.Fatalf("the check fails before the corruption: %v", err)
	}
	if err := store.Update(ctx, corrupt); err != nil {
		t.Fatalf("corrupt the store: %v", err)
	}
	err := check(ctx)
	switch {
	case err == nil:
		t.Errorf("the check passed a corrupted store; want a violation mentioning %q", want)
	case !strings.Contains(err.Error(), want):
		t.Errorf("the check reported %v; want a violation mentioning %q", err, want)
	}
}
