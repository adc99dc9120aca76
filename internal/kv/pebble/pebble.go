package pebble

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
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
	// (deletions still commit) until space is freed. AutoReserve keeps
	// DefaultReserve of the volume's size.
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
	backoff   *diskFullBackoff
	reclaim   *reclaimer // nil without Options.MinFreeBytes
	closeOnce sync.Once
	closeErr  error
}

// The store's footprint on disk follows from its memtables: pebble
// preallocates each write-ahead log file to 110% of the memtable size
// and keeps MemTableStopWritesThreshold+1 obsolete log files for reuse.
// With 64 MiB memtables and 4 of them, an idle store took 71 MB and a
// store of 74 MB of blobs 435 MB. With 4 MiB memtables (pebble's own
// default) and at most 2 queued, a fresh store takes under 5 MiB, and
// the logs at most about 6 × 4.4 MiB (the live one, two queued, three
// kept for reuse) whatever the data; large uploads flush more often, but
// a flush of 4 MiB is milliseconds and writers stall only while two are
// pending. Durability is unchanged: every commit is still synced before
// it is acknowledged.
const (
	memTableSize   = 4 << 20
	memTablesQueue = 2
)

// blockCacheSize bounds the cache of table blocks read from disk. Small
// memtables flush often, so the records every write reads (a container,
// a table, a queue) soon live in tables; with pebble's default 8 MB
// cache, a durable Put Blob spent a sixth of its CPU re-reading and
// decompressing their blocks. The cache takes memory only as blocks are
// read, so a small store costs no more than it did.
const blockCacheSize = 64 << 20

// ManualMemory is the most memory a store takes outside the Go heap:
// pebble allocates its block cache and its memtables itself (with C's
// allocator in a cgo build), so Go's memory limit does not see them.
const ManualMemory = blockCacheSize + (memTablesQueue+1)*memTableSize

// A sync is held back for up to groupCommitDelay after the previous one
// while at least groupCommitSiblings transactions are still running
// toward their commits: they then share the next sync instead of each
// starting one. A lone writer (or writers that have all reached the log)
// never waits. At 16 clients this took a durable Insert Entity from
// 300 to 250 µs of server CPU and Put Blob from 371 to 301 (fewer
// fdatasync calls, each ~100 µs of kernel time); at 4 clients it
// cost no throughput (docs/performance.md, "Group commit that waits
// for its siblings").
const (
	groupCommitDelay    = 500 * time.Microsecond
	groupCommitSiblings = 2
)

// syncDelay is pebble's WALMinSyncInterval: the pause before the next
// sync, asked right after each one.
func syncDelay(running func() int) time.Duration {
	if running != nil && running() >= groupCommitSiblings {
		return groupCommitDelay
	}
	return 0
}

// tableSize is the size of the store's tables for a reserve of reserve
// bytes: a 32nd of it, from 1 to 8 MiB (8 MiB without a reserve).
func tableSize(reserve uint64) int64 {
	if reserve == 0 {
		return 8 << 20
	}
	return int64(min(max(reserve/32, 1<<20), 8<<20))
}

// levelZeroTableSize bounds the tables a flush writes: pebble cuts a
// flush's output at level 0's table size. New content arrives as runs of
// chunks under keys past the existing ones, in the same flushes as a few
// records spread over the keyspace. In tables of 1 MiB most of a run sits
// in tables of its own, which overlap little of what a compaction merges;
// in one 8 MiB table per flush every table spanned records and content
// alike, and compactions rewrote content with every record they merged.
// With 8 MiB level-0 tables a durable 8 MiB Put Blob wrote 18.8 MB to
// disk and cost 95 ms of CPU; with 1 MiB ones, 12.5 MB and 50 ms, at
// twice the rate (BenchmarkLargeContentCompaction; docs/performance.md,
// "Large content rewritten by compactions").
const levelZeroTableSize = 1 << 20

// levelTableSize is the size of the tables at level for a reserve of
// reserve bytes: tableSize, and at most levelZeroTableSize at level 0.
func levelTableSize(level int, reserve uint64) int64 {
	if level == 0 {
		return min(tableSize(reserve), levelZeroTableSize)
	}
	return tableSize(reserve)
}

// l0Threshold is pebble's L0CompactionThreshold for a reserve of reserve
// bytes: a sixteenth of the reserve in MiB, from 4 to 16 (16 without a
// reserve). Pebble starts compacting level 0 into the level below once it
// holds half that many sublevels (one per flushed memtable, as new keys
// fall all over the keyspace), and since new blobs', entities' and
// messages' keys spread everywhere, each such compaction rewrites most of
// the level below. With pebble's 4 (two 4 MiB flushes), 40 s of durable
// 1 KiB Put Blob spent 39% of the server's CPU compacting and each write
// cost 185 µs; with 16 (eight flushes) 16% and 140 µs
// (docs/performance.md, "Level 0 that gathers more before it compacts").
// What one compaction takes from level 0 (8 × 4 MiB at 16) stays within an
// eighth of the reserve, so on a small volume it still fits in the space
// the reserve keeps.
func l0Threshold(reserve uint64) int {
	if reserve == 0 {
		return 16
	}
	return int(min(max(reserve/(16<<20), 4), 16))
}

// Open opens (or creates) the store in dir.
func Open(dir string, o Options) (*Store, error) {
	if o.MinFreeBytes == AutoReserve {
		size, err := volumeBytes(dir)
		if err != nil {
			return nil, fmt.Errorf("size the free-space reserve: %w", err)
		}
		o.MinFreeBytes = DefaultReserve(size)
	}
	var space *spaceGuard
	if o.MinFreeBytes > 0 {
		space = newSpaceGuard(dir, o.MinFreeBytes, o.FreeSpace, o.Logger)
	}
	backoff := newDiskFullBackoff(space, o.Logger)
	fs := o.FS
	if fs == nil {
		fs = vfs.Default
	}
	cache := pebble.NewCache(blockCacheSize)
	defer cache.Unref()
	l0 := l0Threshold(o.MinFreeBytes)
	opts := &pebble.Options{
		Cache:                       cache,
		FS:                          vfs.OnDiskFull(fs, backoff.onDiskFull),
		MemTableSize:                memTableSize,
		MemTableStopWritesThreshold: memTablesQueue,
		L0CompactionThreshold:       l0,
		L0StopWritesThreshold:       max(24, 2*l0),
		Logger:                      quietLogger{},
	}
	// The manager counting the running transactions exists only once the
	// database is open (it reads its version reservation from it).
	var mgr atomic.Pointer[occ.Manager]
	opts.WALMinSyncInterval = func() time.Duration {
		if m := mgr.Load(); m != nil {
			return syncDelay(m.Running)
		}
		return 0
	}
	// Compactions rewrite whole files before they free their inputs, and
	// a flushed file's key range decides which lower files a compaction
	// takes with it: with pebble's default sizes (doubling per level, to
	// 128 MiB at the bottom) deleting every other 1 MiB blob on a full
	// 400 MiB volume asked for a 60 MB compaction that never fitted in
	// the reserve, so the space never came back. Files of a 32nd of the
	// reserve at every level (1 MiB on a 400 MiB volume, 8 MiB with the
	// largest default reserve) keep each compaction well within it:
	// deleted data comes back a little at a time.
	for i := range opts.TargetFileSizes {
		opts.TargetFileSizes[i] = levelTableSize(i, o.MinFreeBytes)
	}
	// Every write path first looks up keys that usually do not exist yet
	// (a new blob, entity or message): a Bloom filter per table answers
	// those from memory instead of searching each table's index.
	for i := range opts.Levels {
		opts.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		backoff.close()
		return nil, fmt.Errorf("open pebble in %s: %w", dir, err)
	}
	e := &engine{db: db, space: space}
	if space != nil {
		e.reclaim = newReclaimer(db)
		space.reclaim = e.reclaim.run
		space.run(o.FreeSpaceInterval)
	}
	m, err := occ.New(e)
	if err != nil {
		e.stop(backoff)
		return nil, errors.Join(err, db.Close())
	}
	mgr.Store(m)
	return &Store{Manager: m, db: db, space: space, backoff: backoff, reclaim: e.reclaim}, nil
}

// EndStartup ends the start-up's use of the emergency margin: until it is
// called, writes are admitted on a nearly full volume while 128 KiB is
// still free, so that the little a server writes as it starts does not
// keep it from serving reads.
func (s *Store) EndStartup() {
	if s.space != nil {
		s.space.endStartup()
	}
}

func (e *engine) stop(backoff *diskFullBackoff) {
	if e.reclaim != nil {
		e.reclaim.cancel()
	}
	if e.space != nil {
		e.space.close()
	}
	backoff.close()
}

// Close waits for in-flight transactions, then closes the database. Calls
// after the first return the first result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.reclaim != nil {
			s.reclaim.cancel()
		}
		if s.space != nil {
			s.space.close()
		}
		// A store closing on a full volume stops waiting between
		// retries; what cannot be written fails instead.
		s.backoff.close()
		if err := s.Manager.Close(); err != nil {
			s.closeErr = err
			return
		}
		s.closeErr = s.db.Close()
	})
	return s.closeErr
}

type engine struct {
	db      *pebble.DB
	space   *spaceGuard // nil without Options.MinFreeBytes
	reclaim *reclaimer  // nil without Options.MinFreeBytes
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
		if e.space.short() {
			e.reclaim.deleted.note(w)
		}
	}
	b := e.db.NewBatchWithSize(batchSize(w.Size(), w.Len()))
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

// batchSize bounds what a pebble batch of writes writes of keys and
// values takes: bytes of them, plus the batch's header and, for each
// write, its kind, two length varints and the store's prefix on each
// key. A batch given that size to start with is allocated once; left to
// grow, the batch of an 8 MiB upload's chunks doubled its way up, and the
// transaction allocated 43.7 MB instead of 17.5 (BenchmarkLargeWrite).
func batchSize(bytes, writes int) int {
	const header, kind = 12, 1
	return header + bytes + writes*(kind+2*binary.MaxVarintLen32+2*len(userPrefix))
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
