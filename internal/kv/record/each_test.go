package record

import (
	"errors"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

type item struct{ N int }

func TestEachAndRequire(t *testing.T) {
	ctx := t.Context()
	s := memory.Open()
	t.Cleanup(func() { _ = s.Close() })
	base := tuple.New("Te")
	err := s.Update(ctx, func(tx kv.Txn) error {
		for i, name := range []string{"a", "b", "c"} {
			if err := Store(tx, base.Str(name), item{N: i}); err != nil {
				return err
			}
		}
		return tx.Set(tuple.New("Tf"), []byte("not under the prefix"))
	})
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	err = s.View(ctx, func(r kv.Reader) error {
		var got []string
		err := Each(r, base, func(rd *tuple.Reader, rec *item) error {
			name, err := rd.Str()
			if err != nil {
				return err
			}
			if rec.N != len(got) {
				t.Errorf("%s: record %d, want %d", name, rec.N, len(got))
			}
			got = append(got, name)
			if name == "b" {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || len(got) != 2 {
			t.Errorf("Each stopped with %v after %v, want stop after [a b]", err, got)
		}
		missing := errors.New("missing")
		if rec, err := Require[item](r, base.Str("c"), missing); err != nil || rec.N != 2 {
			t.Errorf("Require c: %+v, %v", rec, err)
		}
		if _, err := Require[item](r, base.Str("d"), missing); !errors.Is(err, missing) {
			t.Errorf("Require of an absent key: %v, want missing", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
