package occ

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// txn is one attempt of an Update: snapshot reads, buffered writes.
type txn struct {
	*kv.Hooks
	m       *Manager
	snap    Snapshot
	start   uint64 // commits applied when the snapshot was taken
	began   time.Time
	version uint64
	reads   readSet
	writes  *WriteSet
	// appends are made at commit (Manager.sequence); appendSize is
	// what they will write.
	appends    []kv.Sequenced
	appendSize int
	// adds are the Txn.Add deltas by key, made at commit (Manager.add).
	adds map[string]int64
}

var _ kv.Txn = (*txn)(nil)

func (t *txn) Version() uint64 { return t.version }

func (t *txn) Get(key []byte) ([]byte, error) { return t.get(key, false) }

// GetShared implements kv.SharedReader.
func (t *txn) GetShared(key []byte) ([]byte, error) { return t.get(key, true) }

func (t *txn) get(key []byte, shared bool) ([]byte, error) {
	if p, ok := t.writes.lookup(key); ok {
		t.reads.addKey(key)
		if p.Delete {
			return nil, kv.ErrNotFound
		}
		return bytes.Clone(p.Value), nil
	}
	if h, ok := t.reads.held(key); ok {
		if !h.found {
			return nil, kv.ErrNotFound
		}
		return bytes.Clone(h.value), nil
	}
	var v []byte
	var err error
	if shared {
		v, err = t.m.getShared(t.snap, t.start, key)
	} else {
		v, err = t.snap.Get(key)
	}
	switch {
	case err == nil:
		t.reads.hold(key, v, true)
	case errors.Is(err, kv.ErrNotFound):
		t.reads.hold(key, nil, false)
	default:
		t.reads.addKey(key)
	}
	return v, err
}

// Scan merges the snapshot with the buffered writes.
func (t *txn) Scan(start, end []byte, fn func(key, value []byte) error) error {
	return t.scan(start, end, func(k, v []byte) (bool, error) { return true, fn(k, v) }, false)
}

// ScanPicking implements kv.PickingScanner: Scan, with only the keys fn
// picks in the read set.
func (t *txn) ScanPicking(start, end []byte, fn func(key, value []byte) (pick bool, err error)) error {
	return t.scan(start, end, fn, true)
}

// scan is Scan reading the range it visits, or with picked only the keys
// fn picks.
func (t *txn) scan(start, end []byte, fn func(key, value []byte) (bool, error), picked bool) error {
	var last []byte
	stopped := false // fn returned an error
	emit := func(k, v []byte) error {
		last = append(last[:0], k...)
		pick, err := fn(k, v)
		if picked && pick {
			t.reads.addKey(k)
		}
		stopped = err != nil
		return err
	}
	var pending []Write
	t.writes.ascendSpan(Span{start, end}, func(p Write) bool { pending = append(pending, p); return true })
	err := t.snap.Scan(start, end, func(k, v []byte) error {
		for len(pending) > 0 && bytes.Compare(pending[0].Key, k) <= 0 {
			p := pending[0]
			pending = pending[1:]
			same := bytes.Equal(p.Key, k)
			if !p.Delete {
				if err := emit(p.Key, p.Value); err != nil {
					return err
				}
			}
			if same {
				return nil
			}
		}
		if t.writes.rangeDeleted(k) {
			return nil
		}
		return emit(k, v)
	})
	for err == nil && len(pending) > 0 {
		p := pending[0]
		pending = pending[1:]
		if !p.Delete {
			err = emit(p.Key, p.Value)
		}
	}
	if err != nil && !stopped {
		return err
	}
	if !picked {
		span := Span{Start: bytes.Clone(start), End: bytes.Clone(end)}
		if stopped {
			// What was visited is read, whatever fn made of it.
			span.End = append(last, 0)
		}
		t.reads.addSpan(span)
	}
	return scanResult(err)
}

// scanResult is what Scan returns when the snapshot's scan ended with err:
// a callback's ErrStopScan is a stop, not a failure.
func scanResult(err error) error {
	if errors.Is(err, kv.ErrStopScan) {
		return nil
	}
	return err
}

func (t *txn) Set(key, value []byte) error { return t.put(Write{Key: key, Value: value}, true) }

// SetReclaiming implements kv.Reclaimer: Set, marked so that a nearly
// full volume admits it (Write.Reclaim).
func (t *txn) SetReclaiming(key, value []byte) error {
	return t.put(Write{Key: key, Value: value, Reclaim: true}, true)
}

// InsertOwned implements kv.OwningWriter: the value is kept as it is,
// for the write set and, on an engine that keeps what it commits (the
// in-memory one), after the commit.
func (t *txn) InsertOwned(key, value []byte) error {
	return t.put(Write{Key: key, Value: value}, false)
}

// put adds w to the write set with a copy of its key and, when
// copyValue, of its value: the caller's slices stay the caller's.
func (t *txn) put(w Write, copyValue bool) error {
	if err := checkSize(w.Key, len(w.Value), t.writes.size); err != nil {
		return err
	}
	w.Key = bytes.Clone(w.Key)
	if copyValue {
		w.Value = bytes.Clone(w.Value)
	}
	t.writes.put(w)
	return nil
}

func (t *txn) Delete(key []byte) error {
	if err := checkSize(key, 0, t.writes.size); err != nil {
		return err
	}
	t.writes.del(bytes.Clone(key))
	return nil
}

func (t *txn) DeleteRange(start, end []byte) error {
	if end != nil && bytes.Compare(start, end) >= 0 {
		return nil
	}
	if err := checkSize(start, len(end), t.writes.size); err != nil {
		return err
	}
	t.writes.deleteRange(Span{Start: bytes.Clone(start), End: bytes.Clone(end)})
	return nil
}

// Append implements kv.Txn: the numbers are taken at commit.
func (t *txn) Append(w kv.Sequenced) error {
	size := len(w.Seq) + 8
	for _, v := range w.Values {
		size += len(v) + len(w.Seq) + 16 // a key about the sequence's length and a number
		if len(v) > kv.MaxValueSize {
			return kv.ErrTooLarge
		}
	}
	if err := checkSize(w.Seq, 0, t.writes.size+t.appendSize+size); err != nil {
		return err
	}
	w.Values = cloneValues(w.Values)
	w.Seq = bytes.Clone(w.Seq)
	t.appends = append(t.appends, w)
	t.appendSize += size
	return nil
}

// Settle implements kv.Txn: appends are numbered at commit, so none
// waits for a number.
func (t *txn) Settle([]byte, func(uint64, int) []byte) (bool, error) { return false, nil }

// Add implements kv.Txn: the sum is made at commit.
func (t *txn) Add(key []byte, delta int64) error {
	if err := checkSize(key, 8, t.writes.size+t.appendSize); err != nil {
		return err
	}
	if t.adds == nil {
		t.adds = make(map[string]int64, 4)
	}
	if _, ok := t.adds[string(key)]; !ok {
		t.appendSize += len(key) + 8
	}
	t.adds[string(key)] += delta
	return nil
}

func cloneValues(vs [][]byte) [][]byte {
	out := make([][]byte, len(vs))
	for i, v := range vs {
		out[i] = bytes.Clone(v)
	}
	return out
}

func checkSize(key []byte, valueLen, txnSize int) error {
	switch {
	case len(key) > kv.MaxKeySize:
		return fmt.Errorf("key of %d bytes: %w", len(key), kv.ErrTooLarge)
	case valueLen > kv.MaxValueSize:
		return fmt.Errorf("value of %d bytes: %w", valueLen, kv.ErrTooLarge)
	case txnSize+len(key)+valueLen > kv.MaxTxnSize:
		return fmt.Errorf("transaction over %d bytes: %w", kv.MaxTxnSize, kv.ErrTooLarge)
	}
	return nil
}

// reader is a View's read-only snapshot.
type reader struct {
	snap Snapshot
	m    *Manager
	seq  uint64 // commits the snapshot holds
}

func (r reader) Get(key []byte) ([]byte, error) { return r.snap.Get(key) }

// GetShared implements kv.SharedReader.
func (r reader) GetShared(key []byte) ([]byte, error) { return r.m.getShared(r.snap, r.seq, key) }
func (r reader) Scan(start, end []byte, fn func(key, value []byte) error) error {
	return scanResult(r.snap.Scan(start, end, fn))
}
