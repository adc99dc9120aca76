package testkit

import (
	"context"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// CountKeys counts the keys of store under prefix (nil: the whole store).
func CountKeys(t testing.TB, store kv.Store, prefix []byte) int {
	t.Helper()
	n := 0
	err := store.View(context.Background(), func(r kv.Reader) error {
		return r.Scan(prefix, kv.PrefixEnd(prefix), func(_, _ []byte) error { n++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
