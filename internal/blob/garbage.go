package blob

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// Deleting a data object is a range delete whose two keys carry the blob's
// name, so a commit that drops 50,000 blocks cannot also delete their data:
// it would write 50,000 pairs of ~1 kB keys. A transaction that frees more
// than inlineFrees data objects registers them instead, in garbage pages
// under Bg <its version>, and they are deleted after it commits, in
// transactions of bounded size. A crash before then leaves the pages to
// the sweep at start-up, so nothing leaks. Registered data objects are
// unreferenced for good: a data object is referenced only by extents and
// blocks of its own blob, and nothing copies a reference from a data
// object that the blob no longer references.
const (
	// inlineFrees is how many data objects a transaction deletes itself.
	inlineFrees = 32
	// garbagePerPage bounds a garbage page below kv.MaxValueSize: up to
	// 21 bytes of JSON per id, plus the names.
	garbagePerPage = 2048
	// collectTxnBytes bounds the range-delete keys one collecting
	// transaction writes.
	collectTxnBytes = 1 << 20
)

// garbage is one page of data objects of one blob awaiting deletion.
type garbage struct {
	Account, Container, Blob string
	Data                     []uint64
}

// freeData deletes the data objects of a blob that tx made unreferenced,
// or registers them for deletion after the commit when there are many.
func freeData(tx kv.Txn, acct, container, name string, doomed map[uint64]bool) error {
	if len(doomed) <= inlineFrees {
		for data := range doomed {
			if err := deleteData(tx, acct, container, name, data); err != nil {
				return err
			}
		}
		return nil
	}
	ids := make([]uint64, 0, len(doomed))
	for data := range doomed {
		ids = append(ids, data)
	}
	slices.Sort(ids)
	// One transaction may free the data of several blobs or snapshots:
	// its pages so far (its own writes) give the next page number.
	p := garbageVersionPrefix(tx.Version())
	n := 0
	if err := tx.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { n++; return nil }); err != nil {
		return err
	}
	for len(ids) > 0 {
		k := min(len(ids), garbagePerPage)
		page := garbage{Account: acct, Container: container, Blob: name, Data: ids[:k]}
		if err := record.Store(tx, garbageKey(tx.Version(), n), page); err != nil {
			return err
		}
		ids = ids[k:]
		n++
	}
	return nil
}

// collectGarbage deletes the data objects registered under prefix, and
// their registrations, one bounded transaction at a time. It returns how
// many data objects it deleted.
func collectGarbage(ctx context.Context, store kv.Store, prefix []byte) (int, error) {
	deleted := 0
	for {
		done := false
		var n int
		err := store.Update(ctx, func(tx kv.Txn) error {
			n = 0
			var key []byte
			var page garbage
			err := tx.Scan(prefix, kv.PrefixEnd(prefix), func(k, v []byte) error {
				key = append([]byte(nil), k...)
				if err := record.Decode(v, &page); err != nil {
					return err
				}
				return kv.ErrStopScan
			})
			if err != nil {
				return err
			}
			if key == nil {
				done = true
				return nil
			}
			written := 0
			for n < len(page.Data) && written < collectTxnBytes {
				p := dataPrefix(page.Account, page.Container, page.Blob, page.Data[n])
				if err := tx.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
					return err
				}
				written += 2 * len(p)
				n++
			}
			if n == len(page.Data) {
				return tx.Delete(key)
			}
			page.Data = page.Data[n:]
			return record.Store(tx, key, page)
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

// CollectGarbage deletes every data object registered as garbage: what
// crashed or failed collections left. Start-up runs it through
// SweepStaged.
func (s *Service) CollectGarbage(ctx context.Context) (int, error) {
	return collectGarbage(ctx, s.store.Store, garbagePrefix())
}

// collectingStore is the Service's view of the store: an update that
// registers garbage collects it as soon as it has committed (OnCommit),
// so that the deletion never rides in the commit's own transaction and
// every write path gets it without doing anything.
type collectingStore struct {
	kv.Store
	log *slog.Logger
}

func (c collectingStore) Update(ctx context.Context, fn func(kv.Txn) error) error {
	return c.Store.Update(ctx, func(tx kv.Txn) error {
		return fn(&registeringTxn{Txn: tx, collect: func() { c.collect(ctx, tx.Version()) }})
	})
}

// collect deletes the garbage the commit of version registered. The write
// has succeeded whatever happens here: a client that went away must not
// stop the collection, and a failure leaves the pages to the sweep at
// start-up.
func (c collectingStore) collect(ctx context.Context, version uint64) {
	if _, err := collectGarbage(context.WithoutCancel(ctx), c.Store, garbageVersionPrefix(version)); err != nil {
		c.log.Error("collect freed blob data; the sweep at start-up will retry", "version", version, "err", err)
	}
}

// registeringTxn has the garbage a transaction registers collected once
// it commits.
type registeringTxn struct {
	kv.Txn
	collect    func()
	registered bool
}

var garbageTag = []byte(garbagePrefix())

func (t *registeringTxn) Set(key, value []byte) error {
	if !t.registered && bytes.HasPrefix(key, garbageTag) {
		t.registered = true
		t.OnCommit(t.collect)
	}
	return t.Txn.Set(key, value)
}
