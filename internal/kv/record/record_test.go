package record

import (
	"context"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

func TestStoreLoad(t *testing.T) {
	s := memory.Open()
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	type rec struct{ A int }
	ctx := context.Background()
	if err := s.Update(ctx, func(tx kv.Txn) error { return Store(tx, []byte("k"), rec{7}) }); err != nil {
		t.Fatal(err)
	}
	err := s.View(ctx, func(r kv.Reader) error {
		var got rec
		if found, err := Load(r, []byte("k"), &got); !found || err != nil || got.A != 7 {
			t.Fatalf("load: %v %v %+v", found, err, got)
		}
		if found, err := Load(r, []byte("missing"), &got); found || err != nil {
			t.Fatalf("absent key: %v %v", found, err)
		}
		if err := Decode([]byte("{"), &got); err == nil {
			t.Fatal("bad JSON decoded")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
