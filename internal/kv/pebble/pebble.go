package pebble

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/occ"
)

var (
	userPrefix = []byte{'u'}
	userEnd    = []byte{'v'}
	versionKey = []byte("m/version")
)

// Options tunes Open; the zero value is the durable default.
type Options struct {
	// FS replaces the real file system (tests use vfs.NewMem or a crashable FS).
	FS vfs.FS
	// MinFreeBytes, when not 0, is the free space kept in reserve on the
	// data volume: below it, commits that write fail with kv.ErrNoSpace
	// (deletions still commit) until space is freed.
	MinFreeBytes uint64
	// FreeSpace reads the volume's free space for MinFreeBytes (tests);
	// nil reads it from the file system holding the directory.
	FreeSpace func() (uint64, error)
	// FreeSpaceInterval is how often the free space is read (0: every
	// second).
	FreeSpaceInterval time.Duration
	// Logger receives the store's warnings (a nearly full volume).
	Logger *slog.Logger
}

// Store is a durable kv.Store in one directory.
type Store struct {
	*occ.Manager
	db        *pebble.DB
	space     *spaceGuard // nil without Options.MinFreeBytes
	closeOnce sync.Once
	closeErr  error
}

// Open opens (or creates) the store in dir.
func Open(dir string, o Options) (*Store, error) {
	opts := &pebble.Options{
		FS: o.FS,
		// Payload chunks arrive megabytes at a time: a small memtable
		// would flush (and stall writers) every few uploads.
		MemTableSize:                64 << 20,
		MemTableStopWritesThreshold: 4,
		L0CompactionThreshold:       4,
		L0StopWritesThreshold:       24,
		Logger:                      quietLogger{},
	}
	// Every write path first looks up keys that usually do not exist yet
	// (a new blob, entity or message): a Bloom filter per table answers
	// those from memory instead of searching each table's index.
	for i := range opts.Levels {
		opts.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("open pebble in %s: %w", dir, err)
	}
	e := &engine{db: db}
	if o.MinFreeBytes > 0 {
		e.space = newSpaceGuard(dir, o.MinFreeBytes, o.FreeSpace, o.FreeSpaceInterval, o.Logger)
	}
	m, err := occ.New(e)
	if err != nil {
		if e.space != nil {
			e.space.close()
		}
		return nil, errors.Join(err, db.Close())
	}
	return &Store{Manager: m, db: db, space: e.space}, nil
}

// Close waits for in-flight transactions, then closes the database. Calls
// after the first return the first result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.space != nil {
			s.space.close()
		}
		if err := s.Manager.Close(); err != nil {
			s.closeErr = err
			return
		}
		s.closeErr = s.db.Close()
	})
	return s.closeErr
}

type engine struct {
	db    *pebble.DB
	space *spaceGuard // nil without Options.MinFreeBytes
}

func userKey(k []byte) []byte {
	out := make([]byte, 0, len(k)+1)
	return append(append(out, userPrefix...), k...)
}

func userBound(k []byte) []byte {
	if k == nil {
		return userEnd
	}
	return userKey(k)
}

func (e *engine) Snapshot() occ.Snapshot { return snapshot{e.db.NewSnapshot()} }

func (e *engine) Apply(w *occ.WriteSet) (func() error, error) {
	if e.space != nil {
		if err := e.space.admit(w); err != nil {
			return nil, err
		}
	}
	b := e.db.NewBatch()
	for _, r := range w.Ranges() {
		if err := b.DeleteRange(userKey(r.Start), userBound(r.End), nil); err != nil {
			return nil, errors.Join(err, b.Close())
		}
	}
	var err error
	w.Points(func(p occ.Write) {
		if err != nil {
			return
		}
		// The batch copies the key in: write the prefixed key there
		// directly rather than building it first.
		var op *pebble.DeferredBatchOp
		if p.Delete {
			op = b.DeleteDeferred(len(userPrefix) + len(p.Key))
		} else {
			op = b.SetDeferred(len(userPrefix)+len(p.Key), len(p.Value))
			copy(op.Value, p.Value)
		}
		copy(op.Key[copy(op.Key, userPrefix):], p.Key)
		err = op.Finish()
	})
	if err != nil {
		return nil, errors.Join(err, b.Close())
	}
	if err := e.db.ApplyNoSyncWait(b, pebble.Sync); err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return func() error {
		return errors.Join(b.SyncWait(), b.Close())
	}, nil
}

func (e *engine) LoadVersion() (uint64, error) {
	v, closer, err := e.db.Get(versionKey)
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(v) != 8 {
		return 0, errors.Join(fmt.Errorf("version reservation of %d bytes", len(v)), closer.Close())
	}
	version := binary.BigEndian.Uint64(v)
	return version, closer.Close()
}

func (e *engine) SaveVersion(v uint64) error {
	return e.db.Set(versionKey, binary.BigEndian.AppendUint64(nil, v), pebble.Sync)
}

type snapshot struct{ s *pebble.Snapshot }

func (s snapshot) Get(key []byte) ([]byte, error) {
	v, closer, err := s.s.Get(userKey(key))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, kv.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	v = bytes.Clone(v) // v is pebble's only until closer is closed
	if err := closer.Close(); err != nil {
		return nil, err
	}
	return v, nil
}

func (s snapshot) Scan(start, end []byte, fn func(key, value []byte) error) error {
	it, err := s.s.NewIter(&pebble.IterOptions{LowerBound: userKey(start), UpperBound: userBound(end)})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err == nil {
			err = fn(it.Key()[len(userPrefix):], v)
		}
		if err != nil {
			if cerr := it.Close(); cerr != nil {
				return errors.Join(err, cerr)
			}
			return err // unchanged: the caller may compare it
		}
	}
	// Close reports the iterator's error too.
	return it.Close()
}

// Release closes the snapshot. pebble's Snapshot.Close always returns nil
// (it only unlinks the snapshot from the database's list), so there is no
// error to pass on.
func (s snapshot) Release() { _ = s.s.Close() }

// quietLogger keeps pebble's informational chatter out of the request log.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any) {}
func (quietLogger) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pebble: "+format+"\n", args...)
}
func (quietLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf("pebble: "+format, args...))
}
