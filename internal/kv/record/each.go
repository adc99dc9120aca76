package record

import (
	"errors"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Each decodes every record keyed under prefix into T and hands it to fn,
// in key order, with a reader over the rest of its key. An error from
// decoding or from fn stops the scan and is returned.
func Each[T any](r kv.Reader, prefix []byte, fn func(key *tuple.Reader, rec *T) error) error {
	var failed error
	err := r.Scan(prefix, kv.PrefixEnd(prefix), func(k, v []byte) bool {
		rd, err := tuple.NewReader(k, len(prefix))
		if err == nil {
			rec := new(T)
			if err = Decode(v, rec); err == nil {
				err = fn(rd, rec)
			}
		}
		failed = err
		return err == nil
	})
	return errors.Join(err, failed)
}

// Require loads the record at key, or returns missing when there is none.
func Require[T any](r kv.Reader, key []byte, missing error) (*T, error) {
	rec := new(T)
	found, err := Load(r, key, rec)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, missing
	}
	return rec, nil
}
