package pebble

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/cerulean-db/cerulean/internal/kv/occ"
)

// maxDeletedSpans bounds the deleted ranges remembered between two
// reclaims; past it they are merged into the one range covering them
// (one larger compaction instead of many small ones).
const maxDeletedSpans = 256

// reclaimTimeout bounds one reclaim pass, so that closing the store never
// waits long behind it.
const reclaimTimeout = time.Minute

// reclaimSlice is how long one reclaim run starts compactions for.
const reclaimSlice = time.Second

// deletedSpans remembers the user key ranges deletions covered while the
// volume was short of space: deleting data only writes tombstones, and
// the space comes back once a compaction drops what they cover, which
// pebble left to itself may do much later.
type deletedSpans struct {
	mu    sync.Mutex
	spans []occ.Span // nil End: to the end of the keyspace
}

// note records w's deletions.
func (d *deletedSpans) note(w *occ.WriteSet) {
	var add []occ.Span
	for _, r := range w.Ranges() {
		add = append(add, occ.Span{Start: bytes.Clone(r.Start), End: bytes.Clone(r.End)})
	}
	w.Points(func(p occ.Write) {
		if p.Delete {
			k := bytes.Clone(p.Key)
			add = append(add, occ.Span{Start: k, End: append(bytes.Clone(k), 0)})
		}
	})
	if len(add) == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.spans = append(d.spans, add...)
	if len(d.spans) > maxDeletedSpans {
		d.spans = merge(d.spans)
		if len(d.spans) > maxDeletedSpans {
			d.spans = []occ.Span{{Start: d.spans[0].Start, End: d.spans[len(d.spans)-1].End}}
		}
	}
}

// take returns the ranges recorded so far, merged, and forgets them.
func (d *deletedSpans) take() []occ.Span {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := merge(d.spans)
	d.spans = nil
	return s
}

// putBack returns spans a failed reclaim did not finish.
func (d *deletedSpans) putBack(s []occ.Span) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.spans = append(d.spans, s...)
}

// merge sorts spans and joins the overlapping and adjacent ones.
func merge(spans []occ.Span) []occ.Span {
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(a, b occ.Span) int { return bytes.Compare(a.Start, b.Start) })
	out := []occ.Span{spans[0]}
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if last.End != nil && bytes.Compare(s.Start, last.End) > 0 {
			out = append(out, s)
			continue
		}
		if last.End != nil && (s.End == nil || bytes.Compare(s.End, last.End) > 0) {
			last.End = s.End
		}
	}
	return out
}

// reclaimer compacts the ranges deletions covered, so that pebble drops
// the deleted data (and the write-ahead log that held the tombstones is
// released by the flush the compaction starts).
type reclaimer struct {
	db      *pebble.DB
	deleted deletedSpans
	ctx     context.Context
	cancel  context.CancelFunc
}

func newReclaimer(db *pebble.DB) *reclaimer {
	ctx, cancel := context.WithCancel(context.Background())
	return &reclaimer{db: db, ctx: ctx, cancel: cancel}
}

// run compacts the ranges deleted since the last run, for about
// reclaimSlice: what it has not reached is left for the next run, so
// that the free space is read again (and writes let through) in between.
func (r *reclaimer) run() error {
	spans := r.deleted.take()
	if len(spans) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(r.ctx, reclaimTimeout)
	defer cancel()
	began := time.Now()
	for i, s := range spans {
		if time.Since(began) > reclaimSlice {
			r.deleted.putBack(spans[i:])
			return nil
		}
		if s.End != nil && bytes.Compare(s.Start, s.End) >= 0 {
			continue // an empty range deleted nothing
		}
		if err := r.db.Compact(ctx, userKey(s.Start), userBound(s.End), false); err != nil {
			if errors.Is(err, context.Canceled) && r.ctx.Err() != nil {
				return nil // the store is closing
			}
			// Out of room or out of time, the range is tried again
			// later; a range pebble will not compact is not.
			if errors.Is(err, syscall.ENOSPC) || errors.Is(err, context.DeadlineExceeded) {
				r.deleted.putBack(spans[i:])
			} else {
				r.deleted.putBack(spans[i+1:])
			}
			return err
		}
	}
	return nil
}
