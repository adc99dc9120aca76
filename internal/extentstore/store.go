package extentstore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/chunk"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/liveness"
)

// Layout is where a service keeps its data objects. O names an owner of
// data objects (a blob, a file); a data object is named by its owner and
// a number unique among the owner's objects.
type Layout[O comparable] struct {
	// Name names the content in log lines ("blob").
	Name string
	// Objects is the key prefix of o's data objects: the chunks of
	// object id are keyed Objects(o).Uint(id).Uint(chunk index).
	Objects func(o O) tuple.Key
	// Staged keys the registry of objects staged but not yet committed
	// (Staged.Uint(id)), Freed the registry of objects a commit freed
	// (Freed.Uint(commit version).Uint(page)). Both are nil for a
	// service that writes every object inside its commit and deletes it
	// there too.
	Staged, Freed tuple.Key
	// Registrations reads and writes the records of both registries;
	// nil when they are.
	Registrations Registrations[O]
	// Dropped keys the registry of key ranges whose data objects a
	// commit deleted wholesale (a blob's, a container's), to be deleted
	// after it (Dropped.Uint(commit version).Uint(n)); nil for a service
	// that deletes them inside the commit (see DropObjects).
	Dropped tuple.Key
}

// Registrations encodes a service's registry records, whose format the
// service owns (records written by earlier releases must read back).
type Registrations[O comparable] interface {
	// Staged is the record registering one staged object of o.
	Staged(o O, s Staging) any
	ParseStaged(v []byte) (O, Staging, error)
	// Freed is the record of one page of o's freed objects.
	Freed(o O, ids []uint64) any
	ParseFreed(v []byte) (O, []uint64, error)
}

// Staging is what a staged object's registration says besides its owner.
type Staging struct {
	Created time.Time
	// Process is the id of the server process staging it (package
	// liveness); empty in registrations written before front ends
	// shared a store.
	Process string
}

// Store is a service's content store over its kv.Store. Its Update
// collects the data objects a commit registered as freed once the commit
// is done; View and Close are the kv.Store's.
type Store[O comparable] struct {
	kv.Store
	layout *Layout[O]
	now    func() time.Time
	log    *slog.Logger
	// processes, when set, tells which server processes sharing the
	// store are running, so that SweepStaged spares their uploads.
	processes *liveness.Registry
	// later, when set, runs the collection of what a commit registered
	// (freed objects, dropped ranges) after it, off the request
	// (CollectLater).
	later func(work func(context.Context))
}

// New returns the content store of layout over store; now stamps staged
// registrations.
func New[O comparable](store kv.Store, layout *Layout[O], now func() time.Time, log *slog.Logger) *Store[O] {
	return &Store[O]{Store: store, layout: layout, now: now, log: log}
}

// UseProcesses makes staged uploads name this process, and SweepStaged
// reclaim only those whose process is gone. Without it, SweepStaged takes
// every staged upload for abandoned, which is right only for a store no
// other process uses.
func (s *Store[O]) UseProcesses(p *liveness.Registry) { s.processes = p }

func (l *Layout[O]) object(o O, id uint64) tuple.Key { return l.Objects(o).Uint(id) }

// Write stores b as the whole content of object id of o.
func (l *Layout[O]) Write(tx kv.Txn, o O, id uint64, b []byte) error {
	return chunk.Write(tx, l.object(o, id), 0, b)
}

// WriteOwned is Write of bytes the caller hands over: nothing changes b
// once it is called (chunk.WriteOwned).
func (l *Layout[O]) WriteOwned(tx kv.Txn, o O, id uint64, b []byte) error {
	return chunk.WriteOwned(tx, l.object(o, id), 0, b)
}

// Delete deletes object id of o: one range delete, whatever its size.
func (l *Layout[O]) Delete(w kv.Writer, o O, id uint64) error {
	return kv.DeletePrefixes(w, l.object(o, id))
}

// pointDeleteChunks is the largest object, in chunks, DeleteSized
// deletes key by key. A range deletion leaves a range tombstone in the
// store's memtable that every later read and write pays for until it is
// flushed, so small objects, which writes of small ranges free one per
// write, are cheaper deleted by their keys.
const pointDeleteChunks = 4

// DeleteSized deletes object id of o, whose content is size bytes (-1
// when not known): key by key when it is small, else by one range
// deletion. Either way it says what it deletes (kv.Remove,
// kv.RemoveRange), so a store that counts stored bytes does not read it
// back, whatever its size: the caller must know the object holds
// exactly size bytes, as Write wrote them. With size -1 it is Delete.
func (l *Layout[O]) DeleteSized(tx kv.Txn, o O, id uint64, size int64) error {
	if size < 0 {
		return l.Delete(tx, o, id)
	}
	obj := l.object(o, id)
	n := chunksFor(size)
	return removeChunks(tx, obj, n, size+n*int64(len(chunk.Key(obj, 0))), func(i int64) int {
		return int(min(chunk.Size, size-i*chunk.Size))
	})
}

// removeChunks deletes the n chunks of data object obj, which hold nbytes
// of keys and values, chunk i holding a value of valueSize(i) bytes,
// saying what each deletion removes (so a store that counts stored bytes
// reads nothing back): a large object as one range, a small one key by key.
func removeChunks(tx kv.Txn, obj []byte, n, nbytes int64, valueSize func(i int64) int) error {
	if n > pointDeleteChunks {
		return kv.RemoveRange(tx, obj, kv.PrefixEnd(obj), n, nbytes)
	}
	for i := range n {
		if err := kv.Remove(tx, chunk.Key(obj, i), valueSize(i)); err != nil {
			return err
		}
	}
	return nil
}

// Read writes bytes [from, from+n) of object id of o to w; chunk.ErrGone
// when the object lost chunks under a long read.
func (l *Layout[O]) Read(r kv.Reader, o O, id uint64, from, n int64, w io.Writer) error {
	return chunk.Read(r, l.object(o, id), from, n, w)
}

// Span is a run of content: bytes [Offset, Offset+Size) of a blob or
// file are bytes [DataOff, DataOff+Size) of data object Data.
type Span struct {
	Data    uint64
	DataOff int64
	Offset  int64
	Size    int64
}

// Spanned is a service's extent record, which knows its Span.
type Spanned interface{ Span() Span }

// Stream writes bytes [off, off+n) of the content made of extents (sorted
// by offset, none overlapping) of owner o to w, reading chunks from r.
// Bytes no extent covers (unwritten pages and ranges) read as zeros.
func Stream[O comparable, E Spanned](l *Layout[O], r kv.Reader, o O, extents []E, off, n int64, w io.Writer) error {
	end := off + n
	for _, x := range extents {
		if off >= end {
			return nil
		}
		e := x.Span()
		eEnd := e.Offset + e.Size
		if eEnd <= off {
			continue
		}
		if e.Offset >= end {
			break
		}
		if e.Offset > off {
			if err := chunk.Zeros(w, e.Offset-off); err != nil {
				return err
			}
			off = e.Offset
		}
		take := min(eEnd, end) - off
		if err := l.Read(r, o, e.Data, e.DataOff+off-e.Offset, take, w); err != nil {
			return err
		}
		off += take
	}
	if off < end {
		return chunk.Zeros(w, end-off)
	}
	return nil
}

// Update runs fn in a transaction of the kv.Store. When fn registered
// freed data objects (Free), they are deleted once it has committed, in
// transactions of their own, so that the deletion never rides in the
// commit and every write path gets it without doing anything.
func (s *Store[O]) Update(ctx context.Context, fn func(kv.Txn) error) error {
	if s.layout.Freed == nil && s.layout.Dropped == nil {
		return s.Store.Update(ctx, fn)
	}
	return s.Store.Update(ctx, func(tx kv.Txn) error {
		t := &registeringTxn{Txn: tx, freed: s.layout.Freed, dropped: s.layout.Dropped}
		if err := fn(t); err != nil || !t.freedAny && !t.droppedAny {
			return err
		}
		version := tx.Version()
		// The write has succeeded whatever happens in the collection: a
		// client that went away must not stop it, and a failure leaves
		// the pages to the sweep.
		collect := func(ctx context.Context) {
			if t.freedAny {
				_, err := s.collect(ctx, s.layout.Freed.Uint(version))
				s.collected(ctx, version, err)
			}
			if t.droppedAny {
				s.collected(ctx, version, s.collectDropped(ctx, s.layout.Dropped.Uint(version)))
			}
		}
		tx.OnCommit(func() {
			if s.later != nil {
				s.later(collect)
				return
			}
			collect(context.WithoutCancel(ctx))
		})
		return nil
	})
}

// collected logs a collection's failure: the registrations stay for the
// sweeps. One stopped with the server is not a failure.
func (s *Store[O]) collected(ctx context.Context, version uint64, err error) {
	switch {
	case err == nil:
	case ctx.Err() != nil || errors.Is(err, kv.ErrClosed):
		s.log.Info("collection of freed "+s.layout.Name+" data stopped; the sweep at start-up goes on", "version", version)
	default:
		s.log.Error("collect freed "+s.layout.Name+" data; the sweep at start-up will retry", "version", version, "err", err)
	}
}

// CollectLater makes the data objects a commit registered for deletion
// (whole blobs, containers, files or shares it deleted, DropObjects; the
// large objects an overwrite freed, Free) be collected by work that later
// runs (on its own goroutine, with a context that ends when the server
// stops) instead of before Update returns: a delete or an overwrite is
// answered once it has committed, as Azure answers it, the old data going
// later in garbage collection, however large it was. Until then the data
// is unreferenced, still counted as stored, and registered, so a stop or
// a crash leaves it to the sweeps.
func (s *Store[O]) CollectLater(later func(work func(context.Context))) { s.later = later }

// registeringTxn notes whether a transaction registered freed objects or
// dropped ranges.
type registeringTxn struct {
	kv.Txn
	freed, dropped       []byte // nil: no such registry
	freedAny, droppedAny bool
}

func (t *registeringTxn) note(key []byte) {
	if t.freed != nil && bytes.HasPrefix(key, t.freed) {
		t.freedAny = true
	}
	if t.dropped != nil && bytes.HasPrefix(key, t.dropped) {
		t.droppedAny = true
	}
}

func (t *registeringTxn) Set(key, value []byte) error {
	t.note(key)
	return t.Txn.Set(key, value)
}

// SetReclaiming passes a deletion's bookkeeping on (kv.Reclaimer).
func (t *registeringTxn) SetReclaiming(key, value []byte) error {
	t.note(key)
	return kv.SetReclaiming(t.Txn, key, value)
}

// Insert, Remove and RemoveRange pass what the caller knows on
// (kv.KnownWriter, kv.RangeRemover).
func (t *registeringTxn) Insert(key, value []byte) error {
	t.note(key)
	return kv.Insert(t.Txn, key, value)
}

// InsertOwned passes the value on (kv.OwningWriter).
func (t *registeringTxn) InsertOwned(key, value []byte) error {
	t.note(key)
	return kv.InsertOwned(t.Txn, key, value)
}

// Create passes kv.Create on (kv.Creator).
func (t *registeringTxn) Create(key, value []byte) error {
	t.note(key)
	return kv.Create(t.Txn, key, value)
}

// GetShared passes kv.GetShared on.
func (t *registeringTxn) GetShared(key []byte) ([]byte, error) { return kv.GetShared(t.Txn, key) }

func (t *registeringTxn) Remove(key []byte, size int) error {
	return kv.Remove(t.Txn, key, size)
}

func (t *registeringTxn) RemoveRange(start, end []byte, keys, bytes int64) error {
	return kv.RemoveRange(t.Txn, start, end, keys, bytes)
}
