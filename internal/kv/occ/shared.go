package occ

import (
	"bytes"
	"errors"
	"sync"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// Shared records (kv.GetShared: a container, a table, a queue) are read
// by nearly every request and written by few. On the pebble engine a
// point read of one costs several microseconds — the memtables and every
// table file whose range covers the key are searched — and every write
// of a blob or entity reads its container's record. The manager keeps
// the last value of each such key it has been asked for, with the
// applied count from which it holds: a snapshot at or after that count
// sees exactly that value, because every commit that writes a cached key
// (point or range) replaces its entry under the commit lock.
const (
	sharedEntries  = 1024    // keys kept; a random one goes when full
	sharedMaxValue = 4 << 10 // larger records are not kept
)

type sharedEntry struct {
	value []byte
	found bool
	from  uint64 // valid for snapshots of at least this many commits
}

type sharedCache struct {
	mu      sync.Mutex
	entries map[string]sharedEntry
}

// lookup returns key's value as a snapshot of seq commits sees it, when
// the cache knows it.
func (c *sharedCache) lookup(key []byte, seq uint64) (sharedEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[string(key)]
	if !ok || e.from > seq {
		return sharedEntry{}, false
	}
	return e, true
}

// offer keeps what a snapshot of seq commits read for key, unless a
// commit after seq wrote the key. The caller holds the commit lock
// (shared); applied is the number of commits so far, and log must hold
// each of those after seq to tell (a running transaction keeps its
// snapshot's later records from being pruned; a View's may be gone).
func (c *sharedCache) offer(log []commitRecord, applied uint64, key, value []byte, found bool, seq uint64) {
	if len(value) > sharedMaxValue {
		return
	}
	if applied > seq && (len(log) == 0 || log[0].seq > seq+1) {
		return
	}
	for _, rec := range log {
		if rec.seq > seq && rec.writes.writes(key) {
			return
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[string(key)]; ok && e.from <= seq {
		return
	}
	c.putLocked(key, sharedEntry{value: bytes.Clone(value), found: found, from: seq})
}

// putLocked sets key's entry, making room for it when the cache is full.
func (c *sharedCache) putLocked(key []byte, e sharedEntry) {
	if c.entries == nil {
		c.entries = make(map[string]sharedEntry)
	}
	if _, ok := c.entries[string(key)]; !ok && len(c.entries) >= sharedEntries {
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[string(key)] = e
}

// keep keeps key's value as the latest of seq commits holds it. The
// caller holds the commit lock exclusively, and seq is the number of
// commits applied: no later commit can have written the key.
func (c *sharedCache) keep(key, value []byte, found bool, seq uint64) {
	if len(value) > sharedMaxValue {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(key, sharedEntry{value: bytes.Clone(value), found: found, from: seq})
}

// applied replaces the entries of the keys w writes: from commit seq on,
// they hold what w left. The caller holds the commit lock.
func (c *sharedCache) applied(w *WriteSet, seq uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) == 0 {
		return
	}
	for _, r := range w.ranges {
		for k := range c.entries {
			if r.contains([]byte(k)) {
				c.entries[k] = sharedEntry{from: seq}
			}
		}
	}
	w.Points(func(p Write) {
		if _, ok := c.entries[string(p.Key)]; !ok {
			return
		}
		switch {
		case p.Delete:
			c.entries[string(p.Key)] = sharedEntry{from: seq}
		case len(p.Value) > sharedMaxValue:
			delete(c.entries, string(p.Key))
		default:
			c.entries[string(p.Key)] = sharedEntry{value: bytes.Clone(p.Value), found: true, from: seq}
		}
	})
}

// getShared reads key from snap (taken after seq commits) through the
// cache.
func (m *Manager) getShared(snap Snapshot, seq uint64, key []byte) ([]byte, error) {
	if e, ok := m.shared.lookup(key, seq); ok {
		if !e.found {
			return nil, kv.ErrNotFound
		}
		return bytes.Clone(e.value), nil
	}
	v, err := snap.Get(key)
	if err != nil && !errors.Is(err, kv.ErrNotFound) {
		return v, err
	}
	m.commitMu.RLock()
	m.shared.offer(m.log, m.applied, key, v, err == nil, seq)
	m.commitMu.RUnlock()
	return v, err
}
