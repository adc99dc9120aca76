package record

import (
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Page reads one page of a listing: the records keyed base+name (name a
// tuple string) whose names start with prefix, from marker on — a marker
// is the first name of its page, as Azure's listings use them — decoding
// up to max of them into T and handing each to add in name order. It
// returns the next page's marker, "" after the last page.
func Page[T any](r kv.Reader, base tuple.Key, prefix, marker string, max int, add func(name string, rec *T)) (next string, err error) {
	start := base.StrPrefix(prefix)
	end := kv.PrefixEnd(start)
	if marker > prefix {
		start = base.Str(marker)
	}
	n := 0
	err = r.Scan(start, end, func(k, v []byte) error {
		name, err := nameAt(k, len(base))
		if err != nil {
			return err
		}
		if n == max {
			next = name
			return kv.ErrStopScan
		}
		rec := new(T)
		if err := Decode(v, rec); err != nil {
			return err
		}
		add(name, rec)
		n++
		return nil
	})
	return next, err
}

// nameAt decodes the string element at offset skip of key.
func nameAt(key []byte, skip int) (string, error) {
	r, err := tuple.NewReader(key, skip)
	if err != nil {
		return "", err
	}
	return r.Str()
}
