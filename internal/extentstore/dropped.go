package extentstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// Deleting every data object of a blob, a container or a share is one
// range deletion for the engine, but not for a store that counts stored
// bytes (kv/usage): it reads what the range holds to subtract it, about a
// second per few hundred megabytes, and a transaction must commit within
// kv.MaxTxnDuration. So the commit that deletes them only registers the
// range (DropObjects), and Store.Update deletes it once the commit is
// done, in transactions that each read at most dropTxnBytes. Until then
// the objects are unreferenced (the commit dropped what referenced them)
// and still counted, as they are still stored; a crash leaves the
// registration to the sweep.

// dropTxnBytes bounds the chunks one collecting transaction reads.
const dropTxnBytes = 4 << 20

// dropped is a registered range of data objects: every chunk under
// [From, To) of a data object numbered below Below. The bound spares the
// objects of an owner whose name is used again after the commit (a blob
// written anew under a deleted blob's name): data object numbers come
// from commit versions, so theirs are at least Below.
type dropped struct {
	From, To []byte
	Below    uint64
}

// DropObjects deletes every data object under prefix (Objects(o) of one
// owner, or a prefix of the keys of many, such as a container's) that is
// numbered below below; the caller's commit must leave nothing
// referencing them. With a Dropped registry the range is registered and
// deleted after the commit (see above); without one it is one range
// deletion in tx, below ignored.
func (l *Layout[O]) DropObjects(tx kv.Txn, prefix []byte, below uint64) error {
	if l.Dropped == nil {
		return tx.DeleteRange(prefix, kv.PrefixEnd(prefix))
	}
	// The transaction's registrations so far (its own writes) give the
	// next number.
	p := l.Dropped.Uint(tx.Version())
	n := 0
	if err := tx.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { n++; return nil }); err != nil {
		return err
	}
	// Written as a deletion's bookkeeping: a nearly full volume admits
	// deletions, and this one is how their space comes back.
	return kv.SetReclaiming(tx, p.Uint(uint64(n)), record.Encode(dropped{From: prefix, To: kv.PrefixEnd(prefix), Below: below}))
}

// objectNumber is the number of the data object whose chunk key is k
// (Objects(o).Uint(id).Uint(chunk)).
func objectNumber(k []byte) (uint64, bool) {
	if len(k) < 16 {
		return 0, false
	}
	return binary.BigEndian.Uint64(k[len(k)-16:]), true
}

// collectDropped deletes the ranges registered under prefix, and their
// registrations, a bounded piece per transaction.
func (s *Store[O]) collectDropped(ctx context.Context, prefix []byte) error {
	for {
		done := false
		err := s.Store.Update(ctx, func(tx kv.Txn) error {
			var key, v []byte
			err := tx.Scan(prefix, kv.PrefixEnd(prefix), func(k, val []byte) error {
				key, v = bytes.Clone(k), bytes.Clone(val)
				return kv.ErrStopScan
			})
			if err != nil {
				return err
			}
			if done = key == nil; done {
				return nil
			}
			var d dropped
			if err := record.Decode(v, &d); err != nil {
				return fmt.Errorf("dropped range %x: %w", key, err)
			}
			next, err := dropPiece(tx, &d)
			if err != nil {
				return err
			}
			if next == nil {
				return tx.Delete(key)
			}
			d.From = next
			return kv.SetReclaiming(tx, key, record.Encode(d))
		})
		if err != nil {
			return fmt.Errorf("collect dropped data: %w", err)
		}
		if done {
			return nil
		}
	}
}

// dropPiece deletes the chunks of d's objects among the first
// dropTxnBytes of d's range and returns where the rest begins (nil: the
// range is done). Each run of consecutive chunks to delete goes as one
// range deletion that says what it holds (kv.RemoveRange): the scan has
// just read it, and a concurrent write into it conflicts with that read.
func dropPiece(tx kv.Txn, d *dropped) (next []byte, err error) {
	type run struct {
		from, to     []byte
		keys, nbytes int64
	}
	var runs []run
	var cur *run
	read := 0
	err = tx.Scan(d.From, d.To, func(k, v []byte) error {
		if read >= dropTxnBytes {
			next = bytes.Clone(k)
			return kv.ErrStopScan
		}
		read += len(k) + len(v)
		if id, ok := objectNumber(k); !ok || id >= d.Below {
			if cur != nil {
				cur.to, cur = bytes.Clone(k), nil
			}
			return nil
		}
		if cur == nil {
			runs = append(runs, run{from: bytes.Clone(k)})
			cur = &runs[len(runs)-1]
		}
		cur.keys++
		cur.nbytes += int64(len(k) + len(v))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if cur != nil {
		// The run reaches the end of what was read.
		cur.to = next
		if next == nil {
			cur.to = d.To
		}
	}
	for _, r := range runs {
		if err := kv.RemoveRange(tx, r.from, r.to, r.keys, r.nbytes); err != nil {
			return nil, err
		}
	}
	return next, nil
}

// collectAllDropped deletes every registered range: what crashed or
// failed collections left.
func (s *Store[O]) collectAllDropped(ctx context.Context) error {
	if s.layout.Dropped == nil {
		return nil
	}
	return s.collectDropped(ctx, s.layout.Dropped)
}
