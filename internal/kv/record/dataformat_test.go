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
	if prev, err := OpenDataFormat(ctx, s, "data directory"); err != nil || prev != DataFormat {
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
	if prev, err := OpenDataFormat(ctx, s, "data directory"); err != nil || prev != DataFormat {
		t.Fatalf("second open: %d, %v", prev, err)
	}

	if err := SetDataFormat(ctx, s, DataFormat+1); err != nil {
		t.Fatal(err)
	}
	_, err = OpenDataFormat(ctx, s, "data directory")
	want := "data directory was written by a newer cerulean (data format 4); this release reads up to 3"
	if !errors.Is(err, ErrNewerFormat) || !strings.Contains(err.Error(), want) {
		t.Fatalf("newer store: %v, want %q", err, want)
	}
	// Refusing leaves the mark alone.
	err = s.View(ctx, func(r kv.Reader) error {
		v, err := r.Get(dataFormatKey)
		if err == nil && string(v) != "4" {
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

// TestLayoutChangeRefusedByEarlierReleases: a store this release opened
// may hold the Files directory entries keyed by their names' folds, which
// a release of data format FormatCBOR (every release before the Files
// names upgrade, back to the one that began checking the mark) would read
// as empty shares. Such a release refuses the store instead, while one of
// the current format opens it.
func TestLayoutChangeRefusedByEarlierReleases(t *testing.T) {
	ctx := context.Background()
	s := memory.Open()
	t.Cleanup(func() { _ = s.Close() })
	if err := errors.Join(s.Update(ctx, func(tx kv.Txn) error { return tx.Set([]byte("Ta"), Encode(1)) }), SetDataFormat(ctx, s, FormatCBOR)); err != nil {
		t.Fatal(err)
	}
	// The store as the earlier release left it: that release opens it.
	if prev, err := openDataFormat(ctx, s, "data directory", FormatCBOR); err != nil || prev != FormatCBOR {
		t.Fatalf("earlier release on its own store: %d, %v", prev, err)
	}
	if prev, err := OpenDataFormat(ctx, s, "data directory"); err != nil || prev != FormatCBOR {
		t.Fatalf("this release on an earlier store: %d, %v", prev, err)
	}
	_, err := openDataFormat(ctx, s, "data directory", FormatCBOR)
	want := "data directory was written by a newer cerulean (data format 3); this release reads up to 2"
	if !errors.Is(err, ErrNewerFormat) || !strings.Contains(err.Error(), want) {
		t.Fatalf("earlier release after this one: %v, want %q", err, want)
	}
	if DataFormatFileNames <= FormatCBOR || DataFormat < DataFormatFileNames {
		t.Fatalf("data formats: file names %d, current %d", DataFormatFileNames, DataFormat)
	}
}
