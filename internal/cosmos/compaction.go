package cosmos

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// Change log compaction. The log gets a record for every write, but a
// latest-version reader is only ever served the record of an item's
// current version: a record whose item has been written again, or
// deleted, is skipped when read (changeEntry). Such a record is garbage
// from the moment it is superseded, for good: versions never come back.
// Compaction deletes it, so a counter replaced a million times costs one
// record, as in Azure, where the latest-version feed keeps the latest
// change of each item.
//
// A container whose changeFeedPolicy sets a retentionDuration (minutes)
// keeps every record — intermediate versions and deletes, for the
// all-versions-and-deletes feed — for that long after its write; past it
// only what a latest-version reader needs.
//
// Azure also serves the all-versions-and-deletes feed of a container
// without that policy, on an account with continuous backup, for the
// backup's retention: Microsoft's live test of the Python SDK
// (test_query_change_feed_with_all_versions_and_deletes) creates its
// container with a policy only against the emulator and reads every
// version and delete from a container without one. That feed can only
// start from now or from a continuation it handed out, so no history is
// needed before it is first read: reading it marks the container
// (allVersionsReadKey), and a marked container keeps every record for
// allVersionsRetention, the shortest continuous-backup retention Azure
// offers, until allVersionsRetention has passed since its last read. A
// container nobody reads that way compacts to its latest versions.
//
// Nothing a reader can be served is removed and LSNs are never reused or
// reordered: a reader resuming after LSN n reads the same records it
// would have read without compaction, less the ones it would have
// skipped. The log simply has gaps.
//
// A write that brings the records it superseded since the last
// compaction — a replace supersedes the item's previous record, a delete
// that one and itself — to as many as the last compaction kept (at least
// compactMinGrowth) compacts its container's log after its commit, so the
// work is proportional to the garbage and a log that only grows (creates)
// is never rescanned; the TTL sweeper also compacts every container now
// and then, for logs whose writers stopped and for what was superseded
// before a restart.

// compactMinGrowth is the fewest superseded records that make a
// container's log due for compaction: a small log (a hot counter) is
// compacted every few writes, so it never holds more than a few versions
// of its items, and a large one when its garbage matches what it keeps, so
// the work per write stays constant.
const compactMinGrowth = 8

// compactBatch bounds the records one compaction transaction deletes.
const compactBatch = 512

// compactionState is what the service remembers of a container's last
// compaction, to tell when the next is due.
type compactionState struct {
	mu         sync.Mutex   // held while compacting: one compaction per container
	superseded atomic.Int64 // records superseded since the last compaction began
	// kept is what the last compaction kept; before this process has
	// compacted the container, -1: half its last LSN stands in for it,
	// so that the first compaction of a large log after a restart comes
	// no sooner than a later one would.
	kept atomic.Int64
}

type compactions struct {
	mu sync.Mutex
	by map[[2]string]*compactionState
}

func (c *compactions) state(k [2]string) *compactionState {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = make(map[[2]string]*compactionState)
	}
	st, ok := c.by[k]
	if !ok {
		st = &compactionState{}
		st.kept.Store(-1)
		c.by[k] = st
	}
	return st
}

// compactAfterCommit compacts the logs the committed transaction t grew
// past their due point. A failure is logged: the write committed.
func (s *Service) compactAfterCommit(ctx context.Context, t *Tx) {
	for k, n := range t.superseded {
		st := s.compactions.state(k)
		kept := st.kept.Load()
		if kept < 0 {
			// Not compacted by this process yet: the log holds at most
			// its last LSN's records, so when half as many have been
			// superseded, it holds at least as much garbage as the
			// last compaction would have kept.
			kept = int64(t.lastLSNs[k] / 2)
		}
		if st.superseded.Add(int64(n)) < max(compactMinGrowth, kept) {
			continue
		}
		if !st.mu.TryLock() {
			continue // being compacted
		}
		st.mu.Unlock()
		if _, _, err := s.compactChangeLog(ctx, k[0], k[1]); err != nil && !isNotFound(err) && ctx.Err() == nil {
			s.log.Warn("cosmos change log compaction", "db", k[0], "container", k[1], "err", err)
		}
	}
}

// CompactChangeFeeds compacts the change log of every container and
// returns how many records it removed.
func (s *Service) CompactChangeFeeds(ctx context.Context) (int, error) {
	refs, err := s.containerRefs(ctx)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, r := range refs {
		removed, _, err := s.compactChangeLog(ctx, r.db, r.coll)
		total += removed
		if err != nil && !isNotFound(err) {
			return total, err
		}
	}
	return total, nil
}

// allVersionsRetention is how long a container without a changeFeedPolicy
// keeps every change record once its all-versions-and-deletes feed has
// been read: seven days, the retention of Azure's Continuous7Days backup
// tier.
const allVersionsRetention = 7 * 24 * time.Hour

// allVersionsMarkEvery is how stale a container's all-versions read mark
// may grow before a read refreshes it: a reader polling the feed writes
// the mark once an hour, not on every poll.
const allVersionsMarkEvery = time.Hour

// keepEveryRecordFor is how long c keeps every change record: its
// changeFeedPolicy's retention, else allVersionsRetention while its
// all-versions-and-deletes feed has been read within that time, else 0.
func (t *Tx) keepEveryRecordFor(c *container) (time.Duration, error) {
	if r := c.changeRetention(); r > 0 {
		return r, nil
	}
	read, ok, err := allVersionsReadAt(t.rd, c.db, c.id)
	if err != nil || !ok {
		return 0, err
	}
	if t.ts-read > int64(allVersionsRetention/time.Second) {
		return 0, nil
	}
	return allVersionsRetention, nil
}

// allVersionsReadAt reads when a container's all-versions-and-deletes
// feed was last marked as read.
func allVersionsReadAt(rd kv.Reader, db, coll string) (int64, bool, error) {
	b, err := rd.Get(allVersionsReadKey(db, coll))
	if errors.Is(err, kv.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if len(b) != 8 {
		return 0, false, errors.New("change log: malformed all-versions mark")
	}
	return int64(binary.BigEndian.Uint64(b)), true, nil
}

// markAllVersionsRead records that a container's all-versions-and-deletes
// feed is being read, before the read: a compaction that starts after the
// mark keeps what that reader will be served, and one that began before
// it removes only records at or below the LSN the reader starts after.
func (s *Service) markAllVersionsRead(ctx context.Context, db, coll string) error {
	now := s.unixNow()
	var fresh bool
	err := s.store.View(ctx, func(rd kv.Reader) error {
		c, err := loadContainer(rd, db, coll)
		if err != nil {
			return err
		}
		if c.changeRetention() > 0 {
			fresh = true // the policy keeps the records
			return nil
		}
		read, ok, err := allVersionsReadAt(rd, db, coll)
		fresh = ok && now-read < int64(allVersionsMarkEvery/time.Second)
		return err
	})
	if err != nil || fresh {
		return err
	}
	return s.store.Update(ctx, func(tx kv.Txn) error {
		if _, err := loadContainer(tx, db, coll); err != nil {
			return err
		}
		return tx.Set(allVersionsReadKey(db, coll), binary.BigEndian.AppendUint64(nil, uint64(now)))
	})
}

// changeRetention is how long a container keeps every change record: its
// changeFeedPolicy's retentionDuration (minutes), 0 without one.
func (c *container) changeRetention() time.Duration {
	p, _ := c.rec["changeFeedPolicy"].(map[string]any)
	if p == nil {
		return 0
	}
	m, ok := ttlNumber(p["retentionDuration"])
	if !ok || m <= 0 {
		return 0
	}
	return time.Duration(m) * time.Minute
}

// compactChangeLog removes the garbage records of one container's log and
// returns how many it removed and kept.
func (s *Service) compactChangeLog(ctx context.Context, db, coll string) (removed, kept int, err error) {
	st := s.compactions.state([2]string{db, coll})
	st.mu.Lock()
	defer st.mu.Unlock()
	st.superseded.Store(0) // what is superseded from now on counts for the next
	if err := s.settleChangeLogs(ctx, db, coll); err != nil {
		return 0, 0, err
	}
	var from uint64 = 1
	for {
		var garbage []garbageRecord
		var next uint64
		var more bool
		err := s.view(ctx, func(t *Tx) error {
			garbage, next, more = nil, 0, false
			c, err := t.container(db, coll)
			if err != nil {
				return err
			}
			r, err := t.keepEveryRecordFor(c)
			if err != nil {
				return err
			}
			keepAfter := int64(-1) // a record written after this (Unix s) is kept
			if r > 0 {
				keepAfter = t.ts - int64(r/time.Second)
			}
			var n int
			garbage, next, more, n, err = t.changeGarbage(c, from, keepAfter)
			kept += n
			return err
		})
		if err != nil {
			return removed, kept, err
		}
		if len(garbage) > 0 {
			prefix := changesPrefix(db, coll)
			err := s.store.Update(ctx, func(tx kv.Txn) error {
				// Point deletions, one per part: a range deletion per
				// record would fill the memtable with range tombstones.
				for _, g := range garbage {
					for part := range g.parts {
						if err := tx.Delete(prefix.Uint(g.lsn).Uint(part)); err != nil {
							return err
						}
					}
				}
				return nil
			})
			if err != nil {
				return removed, kept, err
			}
			removed += len(garbage)
		}
		if !more {
			break
		}
		from = next
	}
	st.kept.Store(int64(kept))
	return removed, kept, nil
}

// garbageRecord is a change record compaction removes: its LSN and how
// many parts it is stored in.
type garbageRecord struct{ lsn, parts uint64 }

// changeGarbage reads the records of c's log from LSN from on, up to
// compactBatch garbage records, and returns those, where to go on (more
// says whether there is more), and how many live records it passed.
// keepAfter keeps every record written after it (Unix seconds; -1: none).
func (t *Tx) changeGarbage(c *container, from uint64, keepAfter int64) (garbage []garbageRecord, next uint64, more bool, live int, err error) {
	prefix := changesPrefix(c.db, c.id)
	var cur, parts uint64
	var buf []byte
	judge := func() error {
		if buf == nil {
			return nil
		}
		var rec changeRecord
		if err := json.Unmarshal(buf, &rec); err != nil {
			return errors.New("change log: malformed record")
		}
		rec.LSN = cur // the key's
		buf = nil
		keep, err := t.changeLive(c, &rec)
		if err != nil {
			return err
		}
		if keep || (keepAfter >= 0 && rec.TS > keepAfter) {
			live++
			return nil
		}
		garbage = append(garbage, garbageRecord{lsn: rec.LSN, parts: parts})
		return nil
	}
	err = t.rd.Scan(prefix.Uint(from), kv.PrefixEnd(prefix), func(k, v []byte) error {
		rest := k[len(prefix):]
		if len(rest) != 16 {
			return errors.New("change log: malformed key")
		}
		lsn, part := binary.BigEndian.Uint64(rest), binary.BigEndian.Uint64(rest[8:])
		if lsn != cur || part == 0 {
			if err := judge(); err != nil {
				return err
			}
			if len(garbage) == compactBatch {
				next, more = lsn, true
				return kv.ErrStopScan
			}
			cur, parts = lsn, 0
		}
		parts++
		buf = append(buf, v...)
		return nil
	})
	if err == nil && !more {
		err = judge()
	}
	return garbage, next, more, live, err
}

// recordedItem is the stored body of the item a change record wrote,
// unless the record is a delete or the item is gone.
func (t *Tx) recordedItem(c *container, rec *changeRecord) ([]byte, bool, error) {
	if rec.Op == opDelete {
		return nil, false, nil
	}
	key := itemKey(c.db, c.id, rec.PK, rec.ID)
	v, err := t.rd.Get(key)
	if errors.Is(err, kv.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	b, err := itemBody(t.rd, key, v)
	return b, err == nil, err
}

// changeLive reports whether a latest-version reader can be served rec:
// it writes the current version of its item. (An expired item's record
// stays: a container whose time to live is turned off brings it back.)
func (t *Tx) changeLive(c *container, rec *changeRecord) (bool, error) {
	b, ok, err := t.recordedItem(c, rec)
	if err != nil || !ok {
		return false, err
	}
	props, err := pickProperties(b, []string{"_etag"})
	if err != nil {
		return false, err
	}
	etag, _ := props["_etag"].(string)
	return etag == rec.ETag, nil
}
