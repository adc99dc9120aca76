package occ

import (
	"context"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// appliedEngine is mapEngine that also keeps the write sets it applied,
// values as the transaction handed them over.
type appliedEngine struct {
	mapEngine
	applied map[string][]byte
}

func (e *appliedEngine) Apply(w *WriteSet) (func() error, error) {
	w.Points(func(p Write) { e.applied[string(p.Key)] = p.Value })
	return e.mapEngine.Apply(w)
}

// TestInsertOwnedKeepsTheValue: a value handed over with kv.InsertOwned
// reaches the engine as the caller's own bytes, not a copy, and reads
// back like any other; Set and Insert still copy, since their callers may
// reuse the slice.
func TestInsertOwnedKeepsTheValue(t *testing.T) {
	e := &appliedEngine{mapEngine: mapEngine{data: map[string][]byte{}}, applied: map[string][]byte{}}
	m, err := New(e)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	buf := []byte("owned-bytes|copied-bytes")
	owned, copied, inserted := buf[:11], buf[12:], buf[12:18]
	err = m.Update(context.Background(), func(tx kv.Txn) error {
		if err := kv.InsertOwned(tx, []byte("owned"), owned); err != nil {
			return err
		}
		if err := tx.Set([]byte("copied"), copied); err != nil {
			return err
		}
		if err := kv.Insert(tx, []byte("inserted"), inserted); err != nil {
			return err
		}
		if v, err := tx.Get([]byte("owned")); err != nil || string(v) != "owned-bytes" {
			t.Errorf("owned value read back in its transaction: %q, %v", v, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.applied["owned"]; len(v) == 0 || &v[0] != &owned[0] {
		t.Error("InsertOwned's value reached the engine as a copy")
	}
	for key, given := range map[string][]byte{"copied": copied, "inserted": inserted} {
		if v := e.applied[key]; len(v) == 0 || &v[0] == &given[0] {
			t.Errorf("%s: the value reached the engine as the caller's slice, not a copy", key)
		}
	}
	err = m.View(context.Background(), func(r kv.Reader) error {
		for key, want := range map[string]string{"owned": "owned-bytes", "copied": "copied-bytes", "inserted": "copied"} {
			if v, err := r.Get([]byte(key)); err != nil || string(v) != want {
				t.Errorf("%s after the commit: %q, %v; want %q", key, v, err, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
