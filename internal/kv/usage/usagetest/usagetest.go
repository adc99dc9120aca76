package usagetest

import (
	"context"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/usage"
)

// Open wraps store in a usage.Store keeping the counts of spaces, closed
// when the test ends, and returns it with recount: after each write the
// test calls recount with what it did, and the test fails there unless
// the kept counts equal a scan of the store.
func Open(t testing.TB, store kv.Store, spaces ...usage.Space) (counted *usage.Store, recount func(what string)) {
	t.Helper()
	counted, err := usage.Open(context.Background(), store, spaces, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = counted.Close() })
	if !counted.Ready() {
		t.Fatal("the counts of a store opened for a test are not whole")
	}
	return counted, func(what string) {
		t.Helper()
		if err := counted.Check(context.Background()); err != nil {
			t.Fatalf("after %s: %v", what, err)
		}
	}
}
