package record

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

func TestOpenDataFormat(t *testing.T) {
	ctx := context.Background()
	s := memory.Open()
	t.Cleanup(func() { _ = s.Close() })
	if prev, err := OpenDataFormat(ctx, s, "data directory"); err != nil || prev != 0 {
		t.Fatalf("new store: %d, %v", prev, err)
	}
	if prev, err := OpenDataFormat(ctx, s, "data directory"); err != nil || prev != Latest {
		t.Fatalf("second open: %d, %v", prev, err)
	}
	// A store that never recorded its format holds JSON records.
	err := s.Update(ctx, func(tx kv.Txn) error {
		return errors.Join(tx.Delete(dataFormatKey), tx.Set([]byte("Ta"), EncodeJSON(1)))
	})
	if err != nil {
		t.Fatal(err)
	}
	if prev, err := OpenDataFormat(ctx, s, "data directory"); err != nil || prev != FormatJSON {
		t.Fatalf("store of JSON records: %d, %v", prev, err)
	}
	if prev, err := OpenDataFormat(ctx, s, "data directory"); err != nil || prev != Latest {
		t.Fatalf("second open: %d, %v", prev, err)
	}

	if err := SetDataFormat(ctx, s, Latest+1); err != nil {
		t.Fatal(err)
	}
	_, err = OpenDataFormat(ctx, s, "data directory")
	want := "data directory was written by a newer cerulean (data format 3); this release reads up to 2"
	if !errors.Is(err, ErrNewerFormat) || !strings.Contains(err.Error(), want) {
		t.Fatalf("newer store: %v, want %q", err, want)
	}
	// Refusing leaves the mark alone.
	err = s.View(ctx, func(r kv.Reader) error {
		v, err := r.Get(dataFormatKey)
		if err == nil && string(v) != "3" {
			t.Fatalf("mark rewritten to %q", v)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	if err := s.Update(ctx, func(tx kv.Txn) error { return tx.Set(dataFormatKey, []byte("x")) }); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDataFormat(ctx, s, "database"); err == nil || !strings.Contains(err.Error(), `database holds an unreadable data format "x"`) {
		t.Fatalf("unreadable mark: %v", err)
	}
}
