package occ

import (
	"bytes"

	"github.com/google/btree"
)

// Span is the key range [Start, End); a nil End is unbounded.
type Span struct{ Start, End []byte }

func (s Span) contains(k []byte) bool {
	return bytes.Compare(k, s.Start) >= 0 && (s.End == nil || bytes.Compare(k, s.End) < 0)
}

func (s Span) overlaps(o Span) bool {
	startsBeforeOEnds := o.End == nil || bytes.Compare(s.Start, o.End) < 0
	oStartsBeforeEnd := s.End == nil || bytes.Compare(o.Start, s.End) < 0
	return startsBeforeOEnds && oStartsBeforeEnd
}

// Write is one buffered point write; a nil Value with Delete set removes Key.
type Write struct {
	Key    []byte
	Value  []byte
	Delete bool
	// Count marks the sum a kv.Txn.Add made at commit: bookkeeping, which
	// a transaction that otherwise only deletes may write on a nearly
	// full volume.
	Count bool
	// Reclaim marks the bookkeeping of a deletion (kv.Reclaimer), which a
	// nearly full volume admits with it.
	Reclaim bool
}

// WriteSet is a transaction's buffered writes.
type WriteSet struct {
	points *btree.BTreeG[Write]
	ranges []Span
	size   int
}

// writeNodes is the node free list every write set's tree shares (it is
// safe for concurrent use): btree.NewG would allocate one per transaction.
var writeNodes = btree.NewFreeListG[Write](btree.DefaultFreeListSize)

func writeLess(a, b Write) bool { return bytes.Compare(a.Key, b.Key) < 0 }

func newWriteSet() *WriteSet {
	return &WriteSet{points: btree.NewWithFreeListG(16, writeLess, writeNodes)}
}

// Size is how many bytes of keys and values the set writes.
func (w *WriteSet) Size() int { return w.size }

// Len is how many writes the set holds: point writes and range deletions.
func (w *WriteSet) Len() int { return w.points.Len() + len(w.ranges) }

// Empty reports whether nothing was written.
func (w *WriteSet) Empty() bool { return w.points.Len() == 0 && len(w.ranges) == 0 }

// Ranges returns the range deletions, to be applied before the point writes.
func (w *WriteSet) Ranges() []Span { return w.ranges }

// Points calls fn for each point write in key order.
func (w *WriteSet) Points(fn func(Write)) {
	w.points.Ascend(func(p Write) bool { fn(p); return true })
}

// put buffers p, replacing any earlier write of its key.
func (w *WriteSet) put(p Write) {
	w.size += len(p.Key) + len(p.Value)
	w.points.ReplaceOrInsert(p)
}

func (w *WriteSet) set(key, value []byte) { w.put(Write{Key: key, Value: value}) }

func (w *WriteSet) del(key []byte) { w.put(Write{Key: key, Delete: true}) }

func (w *WriteSet) deleteRange(s Span) {
	w.size += len(s.Start) + len(s.End)
	var covered []Write
	w.ascendSpan(s, func(p Write) bool { covered = append(covered, p); return true })
	for _, p := range covered {
		w.points.Delete(p)
	}
	w.ranges = append(w.ranges, s)
}

func (w *WriteSet) ascendSpan(s Span, fn func(Write) bool) {
	if s.End == nil {
		w.points.AscendGreaterOrEqual(Write{Key: s.Start}, fn)
		return
	}
	w.points.AscendRange(Write{Key: s.Start}, Write{Key: s.End}, fn)
}

// lookup reports the buffered state of key: found (with value or deleted).
func (w *WriteSet) lookup(key []byte) (p Write, buffered bool) {
	if p, ok := w.points.Get(Write{Key: key}); ok {
		return p, true
	}
	for _, r := range w.ranges {
		if r.contains(key) {
			return Write{Key: key, Delete: true}, true
		}
	}
	return Write{}, false
}

func (w *WriteSet) rangeDeleted(key []byte) bool {
	for _, r := range w.ranges {
		if r.contains(key) {
			return true
		}
	}
	return false
}

// conflictsWith reports whether any write in w touches what r read.
// writes reports whether w writes or deletes key, by point or by range.
func (w *WriteSet) writes(key []byte) bool {
	if _, ok := w.lookup(key); ok {
		return true
	}
	return w.rangeDeleted(key)
}

func (w *WriteSet) conflictsWith(r *readSet) bool {
	for _, s := range w.ranges {
		if r.touches(s) {
			return true
		}
	}
	hit := false
	w.points.Ascend(func(p Write) bool {
		hit = r.touchesKey(p.Key)
		return !hit
	})
	return hit
}
