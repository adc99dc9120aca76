package kvtest

import (
	"context"
	"errors"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// testRepeatedReads: a transaction that reads a key again sees what it saw
// the first time (its snapshot), present or absent, whatever the caller did
// to the slice it got and whatever commits meanwhile; and those commits
// still conflict with it, so the retry reads the new values.
func testRepeatedReads(t *testing.T, o Opener) {
	s := o.Open(t)
	set(t, s, "a", "1")
	ctx := context.Background()
	var attempts int
	var seen []string
	err := s.Update(ctx, func(tx kv.Txn) error {
		attempts++
		read := func(key string) string {
			v, err := tx.Get([]byte(key))
			switch {
			case errors.Is(err, kv.ErrNotFound):
				return key + " absent"
			case err != nil:
				t.Fatal(err)
			}
			out := key + "=" + string(v)
			for i := range v {
				v[i] = '!' // the caller owns what Get returns
			}
			return out
		}
		first := []string{read("a"), read("z")}
		if attempts == 1 {
			set(t, s, "a", "2", "z", "new")
		}
		for _, what := range []string{"read again", "read a third time"} {
			equal(t, what, []string{read("a"), read("z")}, first)
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
