package occ

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// versionBatch is how many versions one persisted reservation covers.
const versionBatch = 1 << 16

// retry re-runs an Update's attempt that lost a conflict at commit; a hot
// key under many writers needs many rounds, so the budget is generous.
func retry(now func() time.Time) kv.Retry {
	return kv.Retry{
		Conflict:     func(err error) bool { return errors.Is(err, errConflict) },
		Budget:       30 * time.Second,
		FirstBackoff: 50 * time.Microsecond,
		MaxBackoff:   16 * time.Millisecond,
		Now:          now,
	}
}

var errConflict = errors.New("occ: read set changed")

// commitRecord is a committed transaction's writes, kept while a running
// transaction might still need to validate against them.
type commitRecord struct {
	seq    uint64
	writes *WriteSet
}

// Manager turns an Engine into a kv.Store.
type Manager struct {
	engine Engine
	now    func() time.Time
	retry  kv.Retry

	// commitMu: commits hold it exclusively; taking a snapshot holds it
	// shared, so a snapshot contains exactly the first `applied` commits.
	commitMu sync.RWMutex
	applied  uint64
	log      []commitRecord

	// shared keeps the records read with kv.GetShared (shared.go).
	shared sharedCache

	activeMu sync.Mutex
	active   map[uint64]int // snapshot start seq -> running transactions

	durMu   sync.Mutex
	durable uint64
	durCh   chan struct{}
	broken  error
	// failed is closed when broken is first set.
	failed chan struct{}

	verMu    sync.Mutex
	version  atomic.Uint64
	reserved uint64

	// running counts the attempts between their snapshot and their
	// commit's apply: the commits that may join the next sync soon.
	running atomic.Int64

	closeOnce sync.Once
	closed    atomic.Bool
	inflight  sync.WaitGroup

	// observer, when set, receives commit measurements.
	observer atomic.Pointer[kv.Observer]
}

var _ kv.Store = (*Manager)(nil)

// Failed implements kv.Fallible: it is closed once a sync has failed.
func (m *Manager) Failed() <-chan struct{} { return m.failed }

// Failure implements kv.Fallible: the failed sync's error, nil before.
func (m *Manager) Failure() error {
	m.durMu.Lock()
	defer m.durMu.Unlock()
	return m.broken
}

// Observe implements kv.Observable.
func (m *Manager) Observe(o kv.Observer) { m.observer.Store(&o) }

func (m *Manager) observe() kv.Observer {
	if o := m.observer.Load(); o != nil {
		return *o
	}
	return nil
}

// New returns a Manager over e, resuming version allocation after the last
// persisted reservation so that versions never repeat across restarts.
func New(e Engine) (*Manager, error) {
	v, err := e.LoadVersion()
	if err != nil {
		return nil, fmt.Errorf("load version: %w", err)
	}
	m := &Manager{engine: e, now: time.Now, active: map[uint64]int{}, durCh: make(chan struct{}), failed: make(chan struct{}), reserved: v}
	m.retry = retry(m.now)
	m.version.Store(v)
	return m, nil
}

// View implements kv.Store.
func (m *Manager) View(ctx context.Context, fn func(kv.Reader) error) error {
	if err := m.enter(ctx); err != nil {
		return err
	}
	defer m.inflight.Done()
	snap, seq := m.snapshot()
	defer snap.Release()
	if err := m.waitDurable(ctx, seq); err != nil {
		return err
	}
	return fn(reader{snap: snap, m: m, seq: seq})
}

// NumbersAppendsAtCommit implements kv.NumbersAtCommit: appends are
// numbered under the commit lock.
func (m *Manager) NumbersAppendsAtCommit() bool { return true }

// Running returns how many Update attempts are between their snapshot
// and their commit's apply: commits that may follow soon. An engine can
// hold a sync back briefly while some run, so that they share it.
func (m *Manager) Running() int { return int(m.running.Load()) }

// Update implements kv.Store.
func (m *Manager) Update(ctx context.Context, fn func(kv.Txn) error) error {
	if err := m.enter(ctx); err != nil {
		return err
	}
	defer m.inflight.Done()
	return m.retry.Transact(ctx, m.observe(), func(hooks *kv.Hooks) error { return m.attempt(ctx, hooks, fn) })
}

func (m *Manager) attempt(ctx context.Context, hooks *kv.Hooks, fn func(kv.Txn) error) error {
	snap, seq := m.trackedSnapshot()
	defer snap.Release()
	defer m.track(seq, -1)
	m.running.Add(1)
	applied := false
	defer func() {
		if !applied {
			m.running.Add(-1)
		}
	}()
	version, err := m.nextVersion()
	if err != nil {
		return err
	}
	// The attempt reads its snapshot at once, durable or not: what it read
	// leaves it only when Update returns, and by then either its own commit
	// is durable (and with it every commit the log holds before it) or it
	// waits for its snapshot's commits here. Waiting before reading, as a
	// View does, made every write wait for two syncs: the one its snapshot
	// needed and its own.
	t := &txn{Hooks: hooks, m: m, snap: snap, start: seq, began: m.now(), version: version, writes: newWriteSet()}
	if err := fn(t); err != nil {
		if werr := m.waitDurable(ctx, seq); werr != nil {
			return werr
		}
		return err
	}
	if t.writes.Empty() && len(t.appends) == 0 && len(t.adds) == 0 {
		return m.waitDurable(ctx, seq)
	}
	if m.now().Sub(t.began) > kv.MaxTxnDuration {
		return kv.ErrTxnTooOld
	}
	return m.commit(ctx, t, &applied)
}

// commit validates and applies t, then waits for it to be durable; it
// sets *applied once t's writes are applied (t no longer running).
func (m *Manager) commit(ctx context.Context, t *txn, applied *bool) error {
	m.commitMu.Lock()
	for _, rec := range m.log {
		if rec.seq > t.start && rec.writes.conflictsWith(&t.reads) {
			m.commitMu.Unlock()
			return errConflict
		}
	}
	took, err := m.atCommit(t)
	if err != nil {
		m.commitMu.Unlock()
		return err
	}
	wait, err := m.engine.Apply(t.writes)
	if err != nil {
		m.commitMu.Unlock()
		return fmt.Errorf("apply: %w", err)
	}
	m.applied++
	m.running.Add(-1)
	*applied = true
	seq := m.applied
	m.shared.applied(t.writes, seq)
	m.log = append(m.log, commitRecord{seq: seq, writes: t.writes})
	m.pruneLocked()
	m.commitMu.Unlock()

	if wait != nil {
		err = wait()
	}
	m.markDurable(seq, err)
	if err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	took()
	return nil
}

// atCommit makes what t left to its commit, its appends and then its
// adds, from the state every earlier commit left. The caller holds the
// commit lock.
func (m *Manager) atCommit(t *txn) (took func(), err error) {
	if len(t.appends) == 0 && len(t.adds) == 0 {
		return func() {}, nil
	}
	state := &committed{m: m}
	defer state.release()
	if took, err = m.sequence(t, state); err != nil {
		return nil, err
	}
	if err := add(t, state); err != nil {
		return nil, err
	}
	return took, nil
}

// committed reads the state every commit so far left, for atCommit. The
// sequences and counts it reads are written by nearly every commit (a
// service's stored-bytes counts, a Cosmos container's change log), so
// they are kept in the shared-record cache: a commit reads them from
// memory instead of taking a snapshot and searching the engine's memtables
// for each, while holding the lock every other commit waits on.
type committed struct {
	m    *Manager
	snap Snapshot // taken at the first read the cache cannot answer
}

// Get returns key's value, which the caller only reads: it may be the
// cache's own copy.
func (c *committed) Get(key []byte) ([]byte, error) {
	m := c.m
	if e, ok := m.shared.lookup(key, m.applied); ok {
		if !e.found {
			return nil, kv.ErrNotFound
		}
		return e.value, nil
	}
	if c.snap == nil {
		c.snap = m.engine.Snapshot()
	}
	v, err := c.snap.Get(key)
	if err != nil && !errors.Is(err, kv.ErrNotFound) {
		return v, err
	}
	// No commit can come between this snapshot and the lock's release,
	// so what it read holds from the latest commit on.
	m.shared.keep(key, v, err == nil, m.applied)
	return v, err
}

func (c *committed) release() {
	if c.snap != nil {
		c.snap.Release()
	}
}

// add makes t's adds (kv.Txn.Add), each in its count's shard 0 (the
// commit lock keeps adders from meeting): the shard holds what t's own
// writes left, or else what the latest commit did, plus the delta. The sums
// join t's writes, so a transaction that read a count conflicts with
// the commit that changed it, while adders, which read nothing, do not.
func add(t *txn, snap *committed) error {
	for count, delta := range t.adds {
		key := kv.CountKey([]byte(count), 0)
		var n int64
		var err error
		if p, ok := t.writes.lookup(key); ok {
			if !p.Delete {
				n, err = kv.CountValue(p.Value, nil)
			}
		} else {
			n, err = kv.CountValue(snap.Get(key))
		}
		if err != nil {
			return fmt.Errorf("count %q: %w", key, err)
		}
		t.writes.put(Write{Key: key, Value: binary.BigEndian.AppendUint64(nil, uint64(n+delta)), Count: true})
	}
	return nil
}

// sequence makes t's appends (kv.Txn.Append) under the commit lock, so
// that numbers are taken in commit order: each sequence's last number is
// read from the state every earlier commit left, and the values and the
// new last numbers join t's writes (and, through them, what later
// validations check). It returns what reports the numbers taken, to be
// called once the commit is durable.
func (m *Manager) sequence(t *txn, snap *committed) (took func(), err error) {
	if len(t.appends) == 0 {
		return func() {}, nil
	}
	for _, a := range t.appends {
		if _, ok := t.writes.lookup(a.Seq); ok || t.writes.rangeDeleted(a.Seq) {
			return nil, fmt.Errorf("kv: a transaction appends to the sequence %q and writes it too", a.Seq)
		}
	}
	last := make(map[string]uint64, 1)
	numbers := make([]uint64, len(t.appends))
	for j, a := range t.appends {
		n, ok := last[string(a.Seq)]
		if !ok {
			if n, err = kv.SequenceValue(snap.Get(a.Seq)); err != nil {
				return nil, fmt.Errorf("sequence %q: %w", a.Seq, err)
			}
		}
		n++
		last[string(a.Seq)], numbers[j] = n, n
		for i, v := range a.Values {
			t.writes.set(a.Key(n, i), v)
		}
		if n == 1 {
			for _, c := range a.Created {
				if err := t.Add(c.Key, c.Delta); err != nil {
					return nil, err
				}
			}
		}
	}
	for key, n := range last {
		t.writes.set([]byte(key), binary.BigEndian.AppendUint64(nil, n))
	}
	return func() {
		for j, a := range t.appends {
			if a.Took != nil {
				a.Took(numbers[j])
			}
		}
	}, nil
}

func (m *Manager) snapshot() (Snapshot, uint64) {
	m.commitMu.RLock()
	defer m.commitMu.RUnlock()
	return m.engine.Snapshot(), m.applied
}

// trackedSnapshot takes a snapshot for a transaction and registers the
// transaction as running in the same critical section. Registering after
// releasing the lock let a commit slip in between and prune its own log
// record as too old to matter, so the transaction could never see that
// conflict: two queue consumers both took one message.
func (m *Manager) trackedSnapshot() (Snapshot, uint64) {
	m.commitMu.RLock()
	defer m.commitMu.RUnlock()
	seq := m.applied
	m.track(seq, 1)
	return m.engine.Snapshot(), seq
}

func (m *Manager) track(seq uint64, delta int) {
	m.activeMu.Lock()
	defer m.activeMu.Unlock()
	m.active[seq] += delta
	if m.active[seq] <= 0 {
		delete(m.active, seq)
	}
}

// pruneLocked drops commit records no running transaction can conflict with.
func (m *Manager) pruneLocked() {
	m.activeMu.Lock()
	oldest := m.applied
	for seq := range m.active {
		oldest = min(oldest, seq)
	}
	m.activeMu.Unlock()
	i := 0
	for i < len(m.log) && m.log[i].seq <= oldest {
		i++
	}
	if i > 0 {
		m.log = append(m.log[:0], m.log[i:]...)
	}
}

func (m *Manager) markDurable(seq uint64, err error) {
	m.durMu.Lock()
	defer m.durMu.Unlock()
	if err != nil && m.broken == nil {
		m.broken = err
		close(m.failed)
	}
	if seq > m.durable {
		if o := m.observe(); o != nil && err == nil {
			o.Synced(int(seq - m.durable))
		}
		m.durable = seq
		close(m.durCh)
		m.durCh = make(chan struct{})
	}
}

// waitDurable blocks until the first seq commits are durable.
func (m *Manager) waitDurable(ctx context.Context, seq uint64) error {
	for {
		m.durMu.Lock()
		done, ch, broken := m.durable >= seq, m.durCh, m.broken
		m.durMu.Unlock()
		if broken != nil {
			return fmt.Errorf("store unusable after a failed sync: %w", broken)
		}
		if done {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (m *Manager) nextVersion() (uint64, error) {
	v := m.version.Add(1)
	m.verMu.Lock()
	defer m.verMu.Unlock()
	if v > m.reserved {
		next := v + versionBatch
		if err := m.engine.SaveVersion(next); err != nil {
			return 0, fmt.Errorf("reserve versions: %w", err)
		}
		m.reserved = next
	}
	return v, nil
}

func (m *Manager) enter(ctx context.Context) error {
	if m.closed.Load() {
		return kv.ErrClosed
	}
	m.inflight.Add(1)
	if m.closed.Load() {
		m.inflight.Done()
		return kv.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		m.inflight.Done()
		return err
	}
	return nil
}

// Close waits for in-flight calls; the engine is closed by its owner after.
func (m *Manager) Close() error {
	m.closeOnce.Do(func() { m.closed.Store(true) })
	m.inflight.Wait()
	return nil
}
