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
	err := overlapping[E](r, prefix, from, to, func(e E, _ int) { out = append(out, e) })
	return out, err
}

// overlapping hands each extent under prefix that overlaps [from, to) to
// fn, in offset order, with the length of its stored value.
func overlapping[E Piece[E]](r kv.Reader, prefix tuple.Key, from, to int64, fn func(e E, stored int)) error {
	return r.Scan(prefix.Uint(uint64(from+1)), kv.PrefixEnd(prefix), func(_, v []byte) error {
		var e E
		if err := record.Decode(v, &e); err != nil {
			return err
		}
		if e.Span().Offset >= to {
			return kv.ErrStopScan
		}
		fn(e, len(v))
		return nil
	})
}

// Cut removes [from, to) from the extents under prefix: every extent
// overlapping it is deleted and the parts of it outside [from, to) are
// stored again. It returns the extents it removed whole, by data object:
// their objects may now be unreferenced, which only the service can tell
// (a snapshot may share them).
//
// Every write says what its key held (kv.Remove, kv.Insert), so a store
// that counts stored bytes reads nothing back: an extent's key is deleted
// with the size its scan read, and the parts kept go where nothing is.
// The left part's key, its new end from, is free because extents never
// overlap: an extent ending at from would overlap the one cut. The right
// part keeps its extent's key, just deleted.
func Cut[E Piece[E]](tx kv.Txn, prefix tuple.Key, from, to int64) (map[uint64]E, error) {
	type hit struct {
		e      E
		stored int
	}
	var hits []hit
	if err := overlapping[E](tx, prefix, from, to, func(e E, stored int) { hits = append(hits, hit{e, stored}) }); err != nil {
		return nil, err
	}
	dropped := make(map[uint64]E, len(hits))
	for _, h := range hits {
		e, s := h.e, h.e.Span()
		end := s.Offset + s.Size
		if err := kv.Remove(tx, prefix.Uint(uint64(end)), h.stored); err != nil {
			return nil, err
		}
		kept := false
		if s.Offset < from {
			left := Span{Data: s.Data, DataOff: s.DataOff, Offset: s.Offset, Size: from - s.Offset}
			if err := kv.Insert(tx, prefix.Uint(uint64(from)), record.Encode(e.WithSpan(left))); err != nil {
				return nil, err
			}
			kept = true
		}
		if end > to {
			right := Span{Data: s.Data, DataOff: s.DataOff + to - s.Offset, Offset: to, Size: end - to}
			if err := kv.Insert(tx, prefix.Uint(uint64(end)), record.Encode(e.WithSpan(right))); err != nil {
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
