package record

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
)

// dataFormatKey holds the store's data format: the newest record format a
// release that wrote to the store writes, in decimal. Stores written before
// the key existed hold JSON records only (FormatJSON). No service key
// starts with 'M'.
var dataFormatKey = []byte(keyspace.StoreDataFormat)

// OpenDataFormat checks that this release reads the store's data format
// and records the format this release writes. A store from a newer release
// is refused with an error that names both formats (what names the store
// to the operator: "data directory", "database"); an older one is upgraded
// lazily, each record turning binary the next time it is written. It
// returns the format the store held before: FormatJSON for one that never
// recorded it, 0 for a new (empty) store.
func OpenDataFormat(ctx context.Context, store kv.Store, what string) (previous int, err error) {
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
		if previous > Latest {
			return fmt.Errorf("%s was %w (data format %d); this release reads up to %d", what, ErrNewerFormat, previous, Latest)
		}
		if previous == Latest {
			return nil
		}
		return tx.Set(dataFormatKey, []byte(strconv.Itoa(Latest)))
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
