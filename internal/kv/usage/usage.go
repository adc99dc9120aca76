package usage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
)

// Space is one service's part of the store: every key under Prefix is
// its, and Object tells the keys that are one object each (a blob, a
// message, an entity, a file or directory, an item, a document) from the
// rest (its metadata, index entries, chunks).
type Space struct {
	Name   string
	Prefix []byte
	Object func(key []byte) bool
}

// Counts is what one service stores.
type Counts struct {
	Bytes, Records, Objects int64
}

func (c *Counts) add(o Counts) {
	c.Bytes += o.Bytes
	c.Records += o.Records
	c.Objects += o.Objects
}

func (c Counts) zero() bool { return c == Counts{} }

// The layer's keys, under its tag: the base count's state, and each
// space's counts (kv.Txn.Add) at state + the space's prefix + a metric.
var stateKey = []byte(keyspace.StoreUsage)

const (
	metricBytes   = 'b'
	metricRecords = 'r'
	metricObjects = 'o'
)

// State values: a base count in progress holds its cursor (the first key
// not yet counted) after stateCounting; a store whose counts are whole
// holds stateDone. An absent state is a count not begun.
const (
	stateCounting = 'c'
	stateDone     = 'd'
)

// basePage is how many records one page of the base count covers.
var basePage = 512

// Store is a kv.Store whose Updates keep each space's counts.
type Store struct {
	kv.Store
	spaces []Space
	keys   [][3][]byte // each space's count keys: bytes, records, objects
	log    *slog.Logger
	// done is set once the state says the counts are whole; until then
	// every Update reads the state.
	done atomic.Bool

	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// Open wraps store. An empty store, or one whose counts are whole, is
// ready at once; another is counted in the background (Counts reports
// not ready until that count has ended).
func Open(ctx context.Context, store kv.Store, spaces []Space, log *slog.Logger) (*Store, error) {
	if log == nil {
		log = slog.Default()
	}
	s := &Store{Store: store, spaces: slices.Clone(spaces), log: log}
	slices.SortFunc(s.spaces, func(a, b Space) int { return bytes.Compare(a.Prefix, b.Prefix) })
	for _, sp := range s.spaces {
		key := func(m byte) []byte { return append(append(slices.Clone(stateKey), sp.Prefix...), m) }
		s.keys = append(s.keys, [3][]byte{key(metricBytes), key(metricRecords), key(metricObjects)})
	}
	done, err := s.startOnEmpty(ctx)
	if err != nil {
		return nil, fmt.Errorf("usage counts: %w", err)
	}
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	if done {
		s.done.Store(true)
	} else {
		log.Info("counting what the store holds once, in the background, to keep the stored-bytes metrics from now on")
		s.wg.Go(func() {
			if err := s.countBase(bg); err != nil && bg.Err() == nil {
				log.Warn("counting what the store holds failed; the stored-bytes metrics stay absent until a restart counts again", "err", err)
			}
		})
	}
	return s, nil
}

// Close stops a base count in progress and closes the store under it.
func (s *Store) Close() error {
	s.once.Do(func() {
		s.cancel()
		s.wg.Wait()
	})
	return s.Store.Close()
}

// Ready reports whether the counts are whole.
func (s *Store) Ready() bool { return s.done.Load() }

// Wait waits for the base count (tests).
func (s *Store) Wait() { s.wg.Wait() }

// startOnEmpty marks the counts whole when no space holds a key, and
// reports whether they are.
func (s *Store) startOnEmpty(ctx context.Context) (done bool, err error) {
	err = s.Store.Update(ctx, func(tx kv.Txn) error {
		st, err := readState(tx)
		if err != nil || st.done {
			done = st.done
			return err
		}
		for _, sp := range s.spaces {
			empty := true
			if err := tx.Scan(sp.Prefix, kv.PrefixEnd(sp.Prefix), func(_, _ []byte) error {
				empty = false
				return kv.ErrStopScan
			}); err != nil {
				return err
			}
			if !empty {
				done = false
				return nil
			}
		}
		done = true
		return tx.Set(stateKey, []byte{stateDone})
	})
	return done, err
}

// state is the base count's progress.
type state struct {
	done   bool
	cursor []byte // the first key not yet counted (nil: none counted)
}

func readState(r kv.Reader) (state, error) {
	v, err := r.Get(stateKey)
	switch {
	case errors.Is(err, kv.ErrNotFound):
		return state{}, nil
	case err != nil:
		return state{}, err
	case len(v) == 1 && v[0] == stateDone:
		return state{done: true}, nil
	case len(v) >= 1 && v[0] == stateCounting:
		return state{cursor: v[1:]}, nil
	}
	return state{}, fmt.Errorf("usage state %q", v)
}

// counted reports whether the counts cover key (it lies before the
// cursor).
func (st state) counted(key []byte) bool {
	return st.done || bytes.Compare(key, st.cursor) < 0
}

// countBase counts what the store holds, a page per transaction.
func (s *Store) countBase(ctx context.Context) error {
	for {
		var finished bool
		err := s.Store.Update(ctx, func(tx kv.Txn) error {
			st, err := readState(tx)
			if err != nil || st.done {
				finished = st.done
				return err
			}
			var page []Counts
			next, err := s.scanFrom(tx, st.cursor, basePage, &page)
			if err != nil {
				return err
			}
			if err := s.addCounts(tx, page); err != nil {
				return err
			}
			finished = next == nil
			if finished {
				return tx.Set(stateKey, []byte{stateDone})
			}
			return tx.Set(stateKey, append([]byte{stateCounting}, next...))
		})
		if err != nil {
			return err
		}
		if finished {
			s.done.Store(true)
			s.log.Info("the store's usage is counted; the stored-bytes metrics are kept from now on")
			return nil
		}
	}
}

// scanFrom counts up to limit records of the spaces from cursor on into
// *into (one Counts per space) and returns the cursor after them, nil
// when it reached the end of the last space.
func (s *Store) scanFrom(r kv.Reader, cursor []byte, limit int, into *[]Counts) (next []byte, err error) {
	*into = make([]Counts, len(s.spaces))
	n := 0
	for i, sp := range s.spaces {
		start, end := sp.Prefix, kv.PrefixEnd(sp.Prefix)
		if end != nil && bytes.Compare(end, cursor) <= 0 {
			continue
		}
		if bytes.Compare(cursor, start) > 0 {
			start = cursor
		}
		err := r.Scan(start, end, func(k, v []byte) error {
			if n == limit {
				next = bytes.Clone(k)
				return kv.ErrStopScan
			}
			n++
			(*into)[i].add(sizeOf(sp, k, v))
			return nil
		})
		if err != nil || next != nil {
			return next, err
		}
	}
	return nil, nil
}

func sizeOf(sp Space, k, v []byte) Counts { return sizeOfLen(sp, k, len(v)) }

// sizeOfLen is sizeOf of a value of n bytes.
func sizeOfLen(sp Space, k []byte, n int) Counts {
	c := Counts{Bytes: int64(len(k) + n), Records: 1}
	if sp.Object(k) {
		c.Objects = 1
	}
	return c
}

// addCounts adds each space's delta to its counts.
func (s *Store) addCounts(tx kv.Txn, deltas []Counts) error {
	for i, d := range deltas {
		for m, n := range [3]int64{d.Bytes, d.Records, d.Objects} {
			if n == 0 {
				continue
			}
			if err := tx.Add(s.keys[i][m], n); err != nil {
				return err
			}
		}
	}
	return nil
}

// Counts reads every space's counts on one snapshot, by space name, and
// whether they are whole (when not, the base count is still running
// and the numbers cover only part of the store).
func (s *Store) Counts(ctx context.Context) (map[string]Counts, bool, error) {
	out := make(map[string]Counts, len(s.spaces))
	ready := s.done.Load()
	err := s.View(ctx, func(r kv.Reader) error {
		for i, sp := range s.spaces {
			var c [3]int64
			for m := range c {
				var err error
				if c[m], err = kv.Count(r, s.keys[i][m]); err != nil {
					return err
				}
			}
			out[sp.Name] = Counts{Bytes: c[0], Records: c[1], Objects: c[2]}
		}
		return nil
	})
	return out, ready, err
}

// Scan counts every space by reading all of it on one snapshot: what
// the counts must equal.
func Scan(ctx context.Context, store kv.Store, spaces []Space) (map[string]Counts, error) {
	out := make(map[string]Counts, len(spaces))
	err := store.View(ctx, func(r kv.Reader) error {
		for _, sp := range spaces {
			var c Counts
			if err := r.Scan(sp.Prefix, kv.PrefixEnd(sp.Prefix), func(k, v []byte) error {
				c.add(sizeOf(sp, k, v))
				return nil
			}); err != nil {
				return err
			}
			out[sp.Name] = c
		}
		return nil
	})
	return out, err
}

// Check compares the counts with a full scan, on one snapshot, and
// reports every space where they differ. Counts not yet whole are not
// checked.
func (s *Store) Check(ctx context.Context) error {
	if !s.done.Load() {
		return nil
	}
	var errs []error
	err := s.View(ctx, func(r kv.Reader) error {
		for i, sp := range s.spaces {
			var kept, scanned Counts
			var err error
			if kept.Bytes, err = kv.Count(r, s.keys[i][0]); err != nil {
				return err
			}
			if kept.Records, err = kv.Count(r, s.keys[i][1]); err != nil {
				return err
			}
			if kept.Objects, err = kv.Count(r, s.keys[i][2]); err != nil {
				return err
			}
			if err := r.Scan(sp.Prefix, kv.PrefixEnd(sp.Prefix), func(k, v []byte) error {
				scanned.add(sizeOf(sp, k, v))
				return nil
			}); err != nil {
				return err
			}
			if kept != scanned {
				errs = append(errs, fmt.Errorf("%s: the kept counts are %+v, a scan finds %+v", sp.Name, kept, scanned))
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("usage check: %w", err)
	}
	return errors.Join(errs...)
}

// Update implements kv.Store: fn's writes under the spaces change their
// counts in the same transaction.
func (s *Store) Update(ctx context.Context, fn func(kv.Txn) error) error {
	return s.Store.Update(ctx, func(tx kv.Txn) error {
		t := &txn{Txn: tx, s: s, st: state{done: true}}
		if !s.done.Load() {
			st, err := readState(tx)
			if err != nil {
				return err
			}
			t.st = st
			if st.done {
				s.done.Store(true)
			}
		}
		if err := fn(t); err != nil {
			return err
		}
		if t.deltas == nil {
			return nil
		}
		return s.addCounts(tx, t.deltas)
	})
}

// space returns the index of the space key lies in, or -1.
func (s *Store) space(key []byte) int {
	for i, sp := range s.spaces {
		if bytes.HasPrefix(key, sp.Prefix) {
			return i
		}
	}
	return -1
}

// txn counts what its writes change.
type txn struct {
	kv.Txn
	s      *Store
	st     state
	deltas []Counts // by space; nil until a write changes one
	// sizes are the value lengths (absent: -1) of the counted keys this
	// transaction has read with Get or written, as it sees them now: a
	// write of a key the caller has just read (an entity, a blob's
	// record) learns what it replaces without reading it again.
	sizes map[string]int
}

const absent = -1

// note records what key holds now.
func (t *txn) note(key []byte, size int) {
	if t.sizes == nil {
		t.sizes = make(map[string]int, 4)
	}
	t.sizes[string(key)] = size
}

// Get implements kv.Reader, noting the size of a counted key.
func (t *txn) Get(key []byte) ([]byte, error) {
	v, err := t.Txn.Get(key)
	t.noteRead(key, v, err)
	return v, err
}

// ScanPicking implements kv.PickingScanner through the wrapped
// transaction.
func (t *txn) ScanPicking(start, end []byte, fn func(key, value []byte) (pick bool, err error)) error {
	return kv.ScanPicking(t.Txn, start, end, fn)
}

// GetShared implements kv.SharedReader as Get does.
func (t *txn) GetShared(key []byte) ([]byte, error) {
	v, err := kv.GetShared(t.Txn, key)
	t.noteRead(key, v, err)
	return v, err
}

// noteRead notes the size a read of key found.
func (t *txn) noteRead(key, v []byte, err error) {
	if i := t.s.space(key); i >= 0 {
		switch {
		case err == nil:
			t.note(key, len(v))
		case errors.Is(err, kv.ErrNotFound):
			t.note(key, absent)
		}
	}
}

func (t *txn) change(space int, d Counts) {
	if t.deltas == nil {
		t.deltas = make([]Counts, len(t.s.spaces))
	}
	t.deltas[space].add(d)
}

// present returns what key holds now, as this transaction sees it.
func (t *txn) present(space int, key []byte) (Counts, error) {
	n, ok := t.sizes[string(key)]
	if !ok {
		v, err := t.Get(key)
		switch {
		case err == nil:
			n = len(v)
		case errors.Is(err, kv.ErrNotFound):
			n = absent
		default:
			return Counts{}, err
		}
	}
	if n == absent {
		return Counts{}, nil
	}
	return sizeOfLen(t.s.spaces[space], key, n), nil
}

func (t *txn) Set(key, value []byte) error { return t.set(key, value, t.Txn.Set) }

// SetReclaiming implements kv.Reclaimer, counting the write as Set does.
func (t *txn) SetReclaiming(key, value []byte) error {
	return t.set(key, value, func(k, v []byte) error { return kv.SetReclaiming(t.Txn, k, v) })
}

// set counts a write of value under key, which write makes.
func (t *txn) set(key, value []byte, write func(k, v []byte) error) error {
	i := t.s.space(key)
	if i < 0 || !t.st.counted(key) {
		return write(key, value)
	}
	was, err := t.present(i, key)
	if err != nil {
		return err
	}
	if err := write(key, value); err != nil {
		return err
	}
	t.note(key, len(value))
	now := sizeOf(t.s.spaces[i], key, value)
	t.change(i, Counts{Bytes: now.Bytes - was.Bytes, Records: now.Records - was.Records, Objects: now.Objects - was.Objects})
	return nil
}

func (t *txn) Delete(key []byte) error {
	i := t.s.space(key)
	if i < 0 || !t.st.counted(key) {
		return t.Txn.Delete(key)
	}
	was, err := t.present(i, key)
	if err != nil {
		return err
	}
	if err := t.Txn.Delete(key); err != nil {
		return err
	}
	t.note(key, absent)
	if !was.zero() {
		t.change(i, Counts{Bytes: -was.Bytes, Records: -was.Records, Objects: -was.Objects})
	}
	return nil
}

// Insert implements kv.KnownWriter: the key holds nothing, so nothing
// is read.
func (t *txn) Insert(key, value []byte) error {
	if err := t.Txn.Set(key, value); err != nil {
		return err
	}
	t.inserted(key, value)
	return nil
}

// InsertOwned implements kv.OwningWriter: Insert, the value handed on.
func (t *txn) InsertOwned(key, value []byte) error {
	if err := kv.InsertOwned(t.Txn, key, value); err != nil {
		return err
	}
	t.inserted(key, value)
	return nil
}

// Create implements kv.Creator: the key holds nothing if the commit
// succeeds, so nothing is read to count it.
func (t *txn) Create(key, value []byte) error {
	if err := kv.Create(t.Txn, key, value); err != nil {
		return err
	}
	t.inserted(key, value)
	return nil
}

// inserted counts a key written where nothing was.
func (t *txn) inserted(key, value []byte) {
	if i := t.s.space(key); i >= 0 && t.st.counted(key) {
		t.note(key, len(value))
		t.change(i, sizeOf(t.s.spaces[i], key, value))
	}
}

// Remove implements kv.KnownWriter: the key's value is size bytes, so
// nothing is read.
func (t *txn) Remove(key []byte, size int) error {
	if err := t.Txn.Delete(key); err != nil {
		return err
	}
	if i := t.s.space(key); i >= 0 && t.st.counted(key) {
		t.note(key, absent)
		was := sizeOfLen(t.s.spaces[i], key, size)
		t.change(i, Counts{Bytes: -was.Bytes, Records: -was.Records, Objects: -was.Objects})
	}
	return nil
}

// RemoveRange implements kv.RangeRemover: a range inside one space whose
// size the caller knows is subtracted without reading it. Any other
// range (across spaces, or not wholly counted yet) is deleted as
// DeleteRange deletes it.
func (t *txn) RemoveRange(start, end []byte, keys, size int64) error {
	i := t.s.space(start)
	if i < 0 || !t.st.done || end == nil || bytes.Compare(end, start) <= 0 {
		return t.DeleteRange(start, end)
	}
	if hi := kv.PrefixEnd(t.s.spaces[i].Prefix); hi != nil && bytes.Compare(end, hi) > 0 {
		return t.DeleteRange(start, end)
	}
	if err := t.Txn.DeleteRange(start, end); err != nil {
		return err
	}
	t.forget(start, end)
	if keys != 0 || size != 0 {
		t.change(i, Counts{Bytes: -size, Records: -keys})
	}
	return nil
}

// forget marks the noted keys in [start, end) absent.
func (t *txn) forget(start, end []byte) {
	for k := range t.sizes {
		if k >= string(start) && (end == nil || k < string(end)) {
			t.sizes[k] = absent
		}
	}
}

// DeleteRange implements kv.Txn: what the range holds in the spaces is
// scanned (in the transaction, so a concurrent write into the range
// conflicts) and subtracted before it is deleted.
func (t *txn) DeleteRange(start, end []byte) error {
	for i, sp := range t.s.spaces {
		lo, hi := sp.Prefix, kv.PrefixEnd(sp.Prefix)
		if bytes.Compare(start, lo) > 0 {
			lo = start
		}
		if end != nil && (hi == nil || bytes.Compare(end, hi) < 0) {
			hi = end
		}
		if !t.st.done {
			// Only what lies before the cursor is counted yet.
			if bytes.Compare(lo, t.st.cursor) >= 0 {
				continue
			}
			if hi == nil || bytes.Compare(t.st.cursor, hi) < 0 {
				hi = t.st.cursor
			}
		}
		if hi != nil && bytes.Compare(lo, hi) >= 0 {
			continue
		}
		var gone Counts
		if err := t.Scan(lo, hi, func(k, v []byte) error {
			gone.add(sizeOf(sp, k, v))
			return nil
		}); err != nil {
			return err
		}
		if !gone.zero() {
			t.change(i, Counts{Bytes: -gone.Bytes, Records: -gone.Records, Objects: -gone.Objects})
		}
	}
	t.forget(start, end)
	return t.Txn.DeleteRange(start, end)
}

// NumbersAppendsAtCommit implements kv.NumbersAtCommit for the store it
// counts.
func (s *Store) NumbersAppendsAtCommit() bool {
	a, ok := s.Store.(kv.NumbersAtCommit)
	return ok && a.NumbersAppendsAtCommit()
}

// Append implements kv.Txn. The keys are numbered at commit, so they
// are counted here with number 0: a sequence's keys must all have one
// length and one kind (object or not), and every number's keys sort
// after the keys of the numbers before it. The sequence's own key is
// counted by the commit that creates it (Sequenced.Created). On an
// engine that numbers appends after commit (PostgreSQL, Txn.Settle), an
// append made before the base count passes its keys and numbered after
// it has passed them is not counted: a gap limited to the one base count
// of a store that already holds data, left open.
func (t *txn) Append(w kv.Sequenced) error {
	i := t.s.space(w.Seq)
	if i < 0 {
		return t.Txn.Append(w)
	}
	sp := t.s.spaces[i]
	var d Counts
	for n, v := range w.Values {
		key := w.Key(0, n)
		// Before the base count has passed a sequence's keys, the keys
		// appended now lie at or after its cursor: the count reaches them.
		if t.st.done || t.st.counted(key) && t.st.counted(w.Key(^uint64(0), n)) {
			d.add(sizeOf(sp, key, v))
		}
	}
	if t.st.counted(w.Seq) {
		seq := sizeOf(sp, w.Seq, make([]byte, 8))
		k := t.s.keys[i]
		w.Created = append(slices.Clip(w.Created),
			kv.Addition{Key: k[0], Delta: seq.Bytes}, kv.Addition{Key: k[1], Delta: seq.Records})
		if seq.Objects != 0 {
			w.Created = append(w.Created, kv.Addition{Key: k[2], Delta: seq.Objects})
		}
	}
	if err := t.Txn.Append(w); err != nil {
		return err
	}
	if !d.zero() {
		t.change(i, d)
	}
	return nil
}
