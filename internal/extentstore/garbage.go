package extentstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// Deleting a data object is a range delete whose two keys carry its
// owner's name, so a commit that drops 50,000 blocks cannot also delete
// their data: it would write 50,000 pairs of ~1 kB keys. A transaction
// that frees more than inlineFrees data objects registers them instead,
// in pages under Freed <its version>, and Update deletes them after it
// commits, in transactions of bounded size. A crash before then leaves
// the pages to the sweep, so nothing leaks. Registered data objects are
// unreferenced for good: a service frees an object only once nothing
// references it, and nothing copies a reference from an object its owner
// no longer references.
const (
	// inlineFrees is how many data objects a transaction deletes itself.
	inlineFrees = 32
	// freedPerPage bounds a page of freed objects below kv.MaxValueSize:
	// up to 21 bytes of JSON per id, plus the owner's names.
	freedPerPage = 2048
	// collectTxnBytes bounds the range-delete keys one collecting
	// transaction writes.
	collectTxnBytes = 1 << 20
)

// Free deletes the data objects of o that tx made unreferenced, or, when
// there are many and the layout has a Freed registry, registers them to
// be deleted once tx has committed.
func (l *Layout[O]) Free(tx kv.Txn, o O, doomed map[uint64]bool) error {
	sized := make(map[uint64]int64, len(doomed))
	for id := range doomed {
		sized[id] = -1
	}
	return l.FreeSized(tx, o, sized)
}

// FreeSized is Free for objects whose sizes the caller knows (-1: not
// known): deleted inline, a small one key by key and a large one saying
// what it holds (DeleteSized). An object of unknown size is deleted
// inline only while the chunks read to size such objects stay within
// inlineReadChunks (a store that counts stored bytes would read all of
// it to delete it); the others are registered, as many are.
func (l *Layout[O]) FreeSized(tx kv.Txn, o O, doomed map[uint64]int64) error {
	var ids []uint64
	if len(doomed) <= inlineFrees || l.Freed == nil {
		budget := inlineReadChunks
		for id, size := range doomed {
			if size >= 0 || l.Freed == nil {
				if err := l.DeleteSized(tx, o, id, size); err != nil {
					return err
				}
				continue
			}
			deleted, err := l.deleteWithin(tx, o, id, &budget)
			if err != nil {
				return err
			}
			if !deleted {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return nil
		}
	} else {
		for id := range doomed {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	// One transaction may free the objects of several owners: its pages
	// so far (its own writes) give the next page number.
	p := l.Freed.Uint(tx.Version())
	n := 0
	if err := tx.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { n++; return nil }); err != nil {
		return err
	}
	for len(ids) > 0 {
		k := min(len(ids), freedPerPage)
		// A deletion's bookkeeping: a nearly full volume admits it.
		if err := kv.SetReclaiming(tx, p.Uint(uint64(n)), record.Encode(l.Registrations.Freed(o, ids[:k]))); err != nil {
			return err
		}
		ids = ids[k:]
		n++
	}
	return nil
}

// inlineReadChunks bounds the chunks FreeSized reads to delete objects
// of unknown size in the caller's transaction.
const inlineReadChunks = 4 * inlineDeleteChunks

// deleteWithin deletes object id of o when it has at most *budget
// chunks, saying what they hold (so they are not read twice), and takes
// what it read from *budget; it reports whether it deleted the object.
func (l *Layout[O]) deleteWithin(tx kv.Txn, o O, id uint64, budget *int) (bool, error) {
	obj := l.object(o, id)
	var keys, nbytes int64
	var sizes []int
	whole := true
	err := tx.Scan(obj, kv.PrefixEnd(obj), func(k, v []byte) error {
		if int(keys) == *budget {
			whole = false
			return kv.ErrStopScan
		}
		keys++
		nbytes += int64(len(k) + len(v))
		sizes = append(sizes, len(v))
		return nil
	})
	*budget -= int(keys)
	if err != nil || !whole {
		return false, err
	}
	return true, removeChunks(tx, obj, keys, nbytes, func(i int64) int { return sizes[i] })
}

// inlineDeleteChunks is the most chunks of a data object a collecting
// transaction deletes: deleting reads what it deletes where the store
// counts stored bytes (kv/usage), so a large registered object is
// collected in pieces.
const inlineDeleteChunks = 64

// deletePiece deletes up to inlineDeleteChunks chunks of object id of o,
// from its first, and reports whether the object is gone.
func (l *Layout[O]) deletePiece(tx kv.Txn, o O, id uint64) (bool, error) {
	obj := l.object(o, id)
	var next []byte
	n := 0
	err := tx.Scan(obj, kv.PrefixEnd(obj), func(k, _ []byte) error {
		if n == inlineDeleteChunks {
			next = append([]byte(nil), k...)
			return kv.ErrStopScan
		}
		n++
		return nil
	})
	if err != nil {
		return false, err
	}
	if next == nil {
		return true, l.Delete(tx, o, id)
	}
	return false, tx.DeleteRange(obj, next)
}

// collect deletes the data objects registered as freed under prefix, and
// their registrations, one bounded transaction at a time. It returns how
// many data objects it deleted.
func (s *Store[O]) collect(ctx context.Context, prefix []byte) (int, error) {
	deleted := 0
	for {
		done := false
		var n int
		err := s.Store.Update(ctx, func(tx kv.Txn) error {
			n = 0
			var key []byte
			var page []byte
			err := tx.Scan(prefix, kv.PrefixEnd(prefix), func(k, v []byte) error {
				key, page = append([]byte(nil), k...), append([]byte(nil), v...)
				return kv.ErrStopScan
			})
			if err != nil {
				return err
			}
			if key == nil {
				done = true
				return nil
			}
			o, ids, err := s.layout.Registrations.ParseFreed(page)
			if err != nil {
				return err
			}
			written := 0
			for n < len(ids) && written < collectTxnBytes {
				gone, err := s.layout.deletePiece(tx, o, ids[n])
				if err != nil {
					return err
				}
				if !gone {
					break // the rest of it in the next transaction
				}
				written += 2 * len(s.layout.object(o, ids[n]))
				n++
			}
			if n == len(ids) {
				return tx.Delete(key)
			}
			return kv.SetReclaiming(tx, key, record.Encode(s.layout.Registrations.Freed(o, ids[n:])))
		})
		if err != nil {
			return deleted, fmt.Errorf("collect garbage: %w", err)
		}
		if done {
			return deleted, nil
		}
		deleted += n
	}
}

// CollectGarbage deletes every data object registered as freed: what
// crashed or failed collections left. SweepStaged runs it first.
func (s *Store[O]) CollectGarbage(ctx context.Context) (int, error) {
	if err := s.collectAllDropped(ctx); err != nil {
		return 0, err
	}
	if s.layout.Freed == nil {
		return 0, nil
	}
	return s.collect(ctx, s.layout.Freed)
}

// SweepStaged deletes the staged data objects of uploads whose process is
// gone (see UseProcesses; without it, every staged object: run at
// start-up, a crash interrupted those uploads) and every data object
// registered as freed that a crash or a failure left uncollected. It
// returns how many staged objects it deleted. Front ends sharing a store
// run it periodically.
func (s *Store[O]) SweepStaged(ctx context.Context) (int, error) {
	collected, err := s.CollectGarbage(ctx)
	if err != nil {
		return 0, fmt.Errorf("sweep garbage: %w", err)
	}
	if collected > 0 {
		s.log.Info("deleted "+s.layout.Name+" data left registered as garbage by an interrupted run", slog.Int("count", collected))
	}
	if s.layout.Staged == nil {
		return 0, nil
	}
	type entry struct {
		key   []byte
		id    uint64
		owner O
	}
	var doomed []entry
	err = s.View(ctx, func(r kv.Reader) error {
		p := s.layout.Staged
		return r.Scan(p, kv.PrefixEnd(p), func(k, v []byte) error {
			var reg Staging
			e := entry{key: append([]byte(nil), k...)}
			var err error
			if e.id, err = lastUint(k); err != nil {
				return err
			}
			if e.owner, reg, err = s.layout.Registrations.ParseStaged(v); err != nil {
				return err
			}
			if s.processes != nil {
				if alive, err := s.processes.Alive(r, reg.Process); err != nil || alive {
					return err
				}
			}
			doomed = append(doomed, e)
			return nil
		})
	})
	if err != nil {
		return 0, fmt.Errorf("sweep staged: %w", err)
	}
	for _, e := range doomed {
		var err error
		for gone := false; !gone && err == nil; {
			err = s.Store.Update(ctx, func(tx kv.Txn) error {
				// The upload may have committed since the scan.
				if _, err := tx.Get(e.key); errors.Is(err, kv.ErrNotFound) {
					gone = true
					return nil
				} else if err != nil {
					return err
				}
				var err error
				if gone, err = s.layout.deletePiece(tx, e.owner, e.id); err != nil || !gone {
					return err
				}
				return tx.Delete(e.key)
			})
		}
		if err != nil {
			return 0, fmt.Errorf("sweep staged %d: %w", e.id, err)
		}
	}
	if len(doomed) > 0 {
		s.log.Info("swept staged uploads left by an interrupted run", slog.Int("count", len(doomed)))
	}
	return len(doomed), nil
}
