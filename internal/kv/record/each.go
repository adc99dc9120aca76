package record

import (
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Each decodes every record keyed under prefix into T and hands it to fn,
// in key order, with a reader over the rest of its key. An error from
// decoding or from fn stops the scan and is returned (kv.ErrStopScan from
// fn stops it without one).
func Each[T any](r kv.Reader, prefix []byte, fn func(key *tuple.Reader, rec *T) error) error {
	return r.Scan(prefix, kv.PrefixEnd(prefix), func(k, v []byte) error {
		rd, err := tuple.NewReader(k, len(prefix))
		if err != nil {
			return err
		}
		rec := new(T)
		if err := Decode(v, rec); err != nil {
			return err
		}
		return fn(rd, rec)
	})
}
