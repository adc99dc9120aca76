package record

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
)

// Data formats: what a store holds as a whole, which a release checks
// before it reads anything (OpenDataFormat). The first two are record
// formats (FormatJSON, FormatCBOR); each later one keeps FormatCBOR records
// and changes a layout that a release before it would misread, so that
// such a release refuses the store instead: every release since
// FormatCBOR refuses a data format above the newest it knows.
const (
	// DataFormatFileNames: Files directory entries are keyed by their
	// names' case-insensitive folds (internal/file/names_upgrade.go). A
	// release before it would find every share of an upgraded store empty
	// and could create a second entry beside an existing one.
	DataFormatFileNames = 3
	// DataFormat is the data format this release writes and the newest it
	// reads.
	DataFormat = DataFormatFileNames
)

// dataFormatKey holds the store's data format: the newest data format a
// release that wrote to the store writes, in decimal. Stores written before
// the key existed hold JSON records only (FormatJSON). No service key
// starts with 'M'.
var dataFormatKey = []byte(keyspace.StoreDataFormat)

// OpenDataFormat checks that this release reads the store's data format
// and records the format this release writes (DataFormat). A store from a
// newer release is refused with an error that names both formats (what
// names the store to the operator: "data directory", "database"); an older
// one is upgraded: each record turns binary the next time it is written,
// and each layout change runs where its service says (the Files names
// upgrade before the File service's first operation). The mark is written
// at open, before any upgrade runs, because from then on this release may
// write the new layout at any time. It
// returns the format the store held before: FormatJSON for one that never
// recorded it, 0 for a new (empty) store.
func OpenDataFormat(ctx context.Context, store kv.Store, what string) (previous int, err error) {
	return openDataFormat(ctx, store, what, DataFormat)
}

// openDataFormat is OpenDataFormat for a release whose data format is
// newest; tests use it to stand for earlier releases.
func openDataFormat(ctx context.Context, store kv.Store, what string, newest int) (previous int, err error) {
	err = store.Update(ctx, func(tx kv.Txn) error {
		previous = FormatJSON
		v, err := tx.Get(dataFormatKey)
		switch {
		case errors.Is(err, kv.ErrNotFound):
			empty := true
			if err := tx.Scan(nil, nil, func(_, _ []byte) error { empty = false; return kv.ErrStopScan }); err != nil {
				return err
			}
			if empty {
				previous = 0
			}
		case err != nil:
			return err
		default:
			if previous, err = strconv.Atoi(string(v)); err != nil || previous < FormatJSON {
				return fmt.Errorf("the %s holds an unreadable data format %q", what, v)
			}
		}
		if previous > newest {
			return fmt.Errorf("%s was %w (data format %d); this release reads up to %d", what, ErrNewerFormat, previous, newest)
		}
		if previous == newest {
			return nil
		}
		return tx.Set(dataFormatKey, []byte(strconv.Itoa(newest)))
	})
	if err != nil {
		return 0, fmt.Errorf("check the data format: %w", err)
	}
	return previous, nil
}

// SetDataFormat marks the store as holding data format f; tests use it to
// stand for a store a newer release wrote.
func SetDataFormat(ctx context.Context, store kv.Store, f int) error {
	return store.Update(ctx, func(tx kv.Txn) error { return tx.Set(dataFormatKey, []byte(strconv.Itoa(f))) })
}
