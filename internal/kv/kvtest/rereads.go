package kvtest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// testRepeatedReads: a transaction that reads a key again sees what it saw
// the first time (its snapshot), present or absent, whatever the caller did
// to the slice it got and whatever commits meanwhile; and a commit that
// wrote what it read still conflicts with it, so the retry reads the new
// values.
func testRepeatedReads(t *testing.T, o Opener) {
	s := o.Open(t)
	set(t, s, "a", "1")
	ctx := context.Background()
	var attempts int
	var seen []string
	err := s.Update(ctx, func(tx kv.Txn) error {
		attempts++
		var readErr error // an engine may fail a read of a doomed attempt
		read := func(key string) string {
			v, err := tx.Get([]byte(key))
			switch {
			case errors.Is(err, kv.ErrNotFound):
				return key + " absent"
			case err != nil:
				readErr = err
				return ""
			}
			out := key + "=" + string(v)
			for i := range v {
				v[i] = '!' // the caller owns what Get returns
			}
			return out
		}
		first := []string{read("a"), read("z")}
		if readErr != nil {
			return readErr
		}
		if attempts == 1 {
			// A commit that read what this transaction writes: only the
			// order "it, then this one" explains both, so this one must
			// not commit over its reads of a and z.
			err := s.Update(ctx, func(other kv.Txn) error {
				if _, err := other.Get([]byte("b")); !errors.Is(err, kv.ErrNotFound) {
					return fmt.Errorf("b before the transaction wrote it: %w", err)
				}
				return errors.Join(other.Set([]byte("a"), []byte("2")), other.Set([]byte("z"), []byte("new")))
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		for _, what := range []string{"read again", "read a third time"} {
			again := []string{read("a"), read("z")}
			if readErr != nil {
				return readErr
			}
			equal(t, what, again, first)
		}
		seen = first
		return tx.Set([]byte("b"), []byte("x"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if attempts < 2 {
		t.Fatalf("the transaction committed over a concurrent write to what it read (%d attempt)", attempts)
	}
	equal(t, "last attempt", seen, []string{"a=2", "z=new"})
}
