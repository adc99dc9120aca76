package extentstore

import (
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Sparse content — a page blob, a file — keeps one extent record per key
// under a prefix, keyed by the extent's end offset (prefix.Uint(end)), so
// that the extents overlapping a range are found by one scan from its
// start: the first extent whose end lies beyond it is the first that can
// overlap. Extents never overlap each other.

// Piece is a service's record of one extent of sparse content.
type Piece[E any] interface {
	Spanned
	// WithSpan is the extent narrowed to s, a part of its span.
	WithSpan(s Span) E
}

// Overlapping returns the extents under prefix that overlap [from, to),
// in offset order.
func Overlapping[E Piece[E]](r kv.Reader, prefix tuple.Key, from, to int64) ([]E, error) {
	var out []E
	err := r.Scan(prefix.Uint(uint64(from+1)), kv.PrefixEnd(prefix), func(_, v []byte) error {
		var e E
		if err := record.Decode(v, &e); err != nil {
			return err
		}
		if e.Span().Offset >= to {
			return kv.ErrStopScan
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

// Cut removes [from, to) from the extents under prefix: every extent
// overlapping it is deleted and the parts of it outside [from, to) are
// stored again. It returns the extents it removed whole, by data object:
// their objects may now be unreferenced, which only the service can tell
// (a snapshot may share them).
func Cut[E Piece[E]](tx kv.Txn, prefix tuple.Key, from, to int64) (map[uint64]E, error) {
	hit, err := Overlapping[E](tx, prefix, from, to)
	if err != nil {
		return nil, err
	}
	dropped := map[uint64]E{}
	for _, e := range hit {
		s := e.Span()
		end := s.Offset + s.Size
		if err := tx.Delete(prefix.Uint(uint64(end))); err != nil {
			return nil, err
		}
		kept := false
		if s.Offset < from {
			left := Span{Data: s.Data, DataOff: s.DataOff, Offset: s.Offset, Size: from - s.Offset}
			if err := record.Store(tx, prefix.Uint(uint64(from)), e.WithSpan(left)); err != nil {
				return nil, err
			}
			kept = true
		}
		if end > to {
			right := Span{Data: s.Data, DataOff: s.DataOff + to - s.Offset, Offset: to, Size: end - to}
			if err := record.Store(tx, prefix.Uint(uint64(end)), e.WithSpan(right)); err != nil {
				return nil, err
			}
			kept = true
		}
		if !kept {
			dropped[s.Data] = e
		}
	}
	return dropped, nil
}
