package extentstore

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/chunk"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/kv/usage"
)

// dropLayout is testLayout with a registry of dropped ranges.
var dropLayout = &Layout[owner]{
	Name:          "test",
	Objects:       testLayout.Objects,
	Staged:        testLayout.Staged,
	Freed:         testLayout.Freed,
	Registrations: testRegistrations{},
	Dropped:       tuple.New("Xr"),
}

// meter is a kv.Store that records the most bytes (keys and values) one
// transaction attempt read: what a delete costs where the store counts
// stored bytes.
type meter struct {
	kv.Store
	mu      sync.Mutex
	maxRead int
}

func (m *meter) Update(ctx context.Context, fn func(kv.Txn) error) error {
	return m.Store.Update(ctx, func(tx kv.Txn) error {
		t := &meteredTxn{Txn: tx}
		err := fn(t)
		m.mu.Lock()
		m.maxRead = max(m.maxRead, t.read)
		m.mu.Unlock()
		return err
	})
}

// most returns the most one transaction read since the last call.
func (m *meter) most() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.maxRead
	m.maxRead = 0
	return n
}

type meteredTxn struct {
	kv.Txn
	read int
}

func (t *meteredTxn) Get(key []byte) ([]byte, error) {
	v, err := t.Txn.Get(key)
	t.read += len(key) + len(v)
	return v, err
}

func (t *meteredTxn) Scan(start, end []byte, fn func(k, v []byte) error) error {
	return t.Txn.Scan(start, end, func(k, v []byte) error {
		t.read += len(k) + len(v)
		return fn(k, v)
	})
}

// countedStore is a content store over a store that counts stored bytes
// (kv/usage) over a meter.
func countedStore(t *testing.T) (*Store[owner], *usage.Store, *meter) {
	t.Helper()
	m := &meter{Store: memory.Open()}
	all := func([]byte) bool { return false }
	counted, err := usage.Open(t.Context(), m, []usage.Space{{Name: "test", Prefix: []byte("X"), Object: all}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = counted.Close() })
	return New[owner](counted, dropLayout, time.Now, slog.New(slog.DiscardHandler)), counted, m
}

// readBound is the most a transaction that deletes data objects may read:
// a piece of a collection, or what FreeSized sizes inline, and a chunk's
// key and value over.
const readBound = max(dropTxnBytes, inlineReadChunks*chunk.Size, inlineDeleteChunks*chunk.Size) + 2*chunk.Size

// TestLargeDeletesReadBoundedPieces: however large the data objects, no
// transaction that deletes them reads more than readBound where the
// store counts stored bytes — it reads what a range deletion deletes, and
// a transaction must commit within kv.MaxTxnDuration — and the counts
// stay equal to a recount. Objects are deleted wholesale (DropObjects,
// the objects of an owner whose name is used again after the commit
// spared), freed with their size unknown (Free) or known (DeleteSized),
// or discarded after staging.
func TestLargeDeletesReadBoundedPieces(t *testing.T) {
	s, counted, m := countedStore(t)
	large := bytes.Repeat([]byte("x"), 2*readBound+5)
	write := func(o owner) (id uint64) {
		t.Helper()
		err := s.Update(t.Context(), func(tx kv.Txn) error {
			id = tx.Version()
			return dropLayout.Write(tx, o, id, large[:StageTxnBytes])
		})
		if err != nil {
			t.Fatal(err)
		}
		// The rest in transactions of their own, as Stage writes.
		for off := int64(StageTxnBytes); off < int64(len(large)); off += StageTxnBytes {
			err := s.Update(t.Context(), func(tx kv.Txn) error {
				return chunk.Write(tx, dropLayout.object(o, id), off, large[off:min(off+StageTxnBytes, int64(len(large)))])
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		return id
	}
	bounded := func(what string) {
		t.Helper()
		if n := m.most(); n > readBound {
			t.Errorf("%s: one transaction read %d bytes, want at most %d", what, n, readBound)
		}
		if err := counted.Check(t.Context()); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}

	// Wholesale: an owner's objects, registered by a transaction that
	// does not collect them (the sweep does), and one written under the
	// owner's name after that commit, which survives. Until collected,
	// the checker takes the dropped objects for garbage, not for leaks.
	write("a")
	write("a")
	err := counted.Update(t.Context(), func(tx kv.Txn) error {
		return dropLayout.DropObjects(tx, dropLayout.Objects("a"), tx.Version())
	})
	if err != nil {
		t.Fatal(err)
	}
	survivor := write("a")
	if err := checkLayout(t, s, dropLayout, "a", map[uint64]int64{survivor: int64(len(large))}); err != nil {
		t.Errorf("registered dropped objects: %v", err)
	}
	m.most()
	if _, err := s.CollectGarbage(t.Context()); err != nil {
		t.Fatal(err)
	}
	bounded("collecting an owner's dropped objects")
	if got := read(t, s, "a", survivor, 0, int64(len(large))); !bytes.Equal(got, large) {
		t.Errorf("the object written under the name after the drop lost bytes: %d left", len(got))
	}
	left(t, s, dropLayout.Dropped, "collecting")
	err = s.View(t.Context(), func(r kv.Reader) error {
		from := dropLayout.Objects("a")
		return r.Scan(from, from.Uint(survivor), func(k, _ []byte) error {
			return fmt.Errorf("key %q of a dropped object left", k)
		})
	})
	if err != nil {
		t.Error(err)
	}
	if err := s.Update(t.Context(), func(tx kv.Txn) error { return dropLayout.Delete(tx, "a", survivor) }); err != nil {
		t.Fatal(err)
	}

	// Several owners under one prefix (a container's): Update deletes
	// them once its commit is done.
	write("b1")
	write("b2")
	m.most()
	err = s.Update(t.Context(), func(tx kv.Txn) error {
		return dropLayout.DropObjects(tx, tuple.New("Xd"), tx.Version())
	})
	if err != nil {
		t.Fatal(err)
	}
	bounded("dropping a prefix of several owners")
	left(t, s, tuple.New("X"), "dropping a prefix of several owners")

	// Freed with the size unknown, and with it known.
	for _, sized := range []bool{false, true} {
		id := write("c")
		m.most()
		err := s.Update(t.Context(), func(tx kv.Txn) error {
			if sized {
				return dropLayout.DeleteSized(tx, "c", id, int64(len(large)))
			}
			return dropLayout.Free(tx, "c", map[uint64]bool{id: true})
		})
		if err != nil {
			t.Fatal(err)
		}
		bounded(fmt.Sprintf("freeing a large object (size known: %v)", sized))
		left(t, s, tuple.New("X"), "freeing a large object")
	}

	// Staged, then discarded.
	p, err := s.Stage(t.Context(), "d", bytes.NewReader(large), int64(len(large)), false)
	if err != nil {
		t.Fatal(err)
	}
	m.most()
	s.Discard(t.Context(), p)
	bounded("discarding a large staged upload")
	left(t, s, tuple.New("X"), "discarding a staged upload")
}

// checkLayout runs the Checker of layout over the test keyspace, with
// refs the objects of owner o referenced (id -> bytes needed).
func checkLayout(t *testing.T, s kv.Store, layout *Layout[owner], o owner, refs map[uint64]int64) error {
	t.Helper()
	c := NewChecker(layout)
	return c.Run(t.Context(), s, tuple.New("Xd"), func(k, v []byte) error {
		rd, err := tuple.NewReader(k, len("Xd"))
		if err != nil {
			return err
		}
		f := rd.Fields()
		name, id, idx := f.Str(), f.Uint(), f.Uint()
		c.Chunk(owner(name), id, idx, len(v))
		return f.Err()
	}, func() {
		for id, need := range refs {
			c.Ref(o, id, fmt.Sprintf("ref %d", id), need)
		}
	})
}

// TestCollectLaterAnswersFirst: with CollectLater, Update returns once
// the commit that dropped objects (or freed a large one) is done, the
// objects still stored and registered (as garbage to the checker, and
// counted), and the work it handed on deletes them; a stop before that
// work runs leaves them to the sweep. Azure answers so: its REST
// reference for Delete Blob (and the .NET SDK's BlobBaseClient.Delete)
// documents that the blob is only marked for deletion and its data goes
// later, in garbage collection.
func TestCollectLaterAnswersFirst(t *testing.T) {
	s, counted, _ := countedStore(t)
	var later []func(context.Context)
	s.CollectLater(func(work func(context.Context)) { later = append(later, work) })
	data := bytes.Repeat([]byte("y"), 3*chunk.Size)
	drop := func(o owner) {
		t.Helper()
		err := s.Update(t.Context(), func(tx kv.Txn) error { return dropLayout.Write(tx, o, tx.Version(), data) })
		if err != nil {
			t.Fatal(err)
		}
		err = s.Update(t.Context(), func(tx kv.Txn) error {
			return dropLayout.DropObjects(tx, dropLayout.Objects(o), tx.Version())
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	stored := func(o owner) bool {
		t.Helper()
		found := false
		err := s.View(t.Context(), func(r kv.Reader) error {
			p := dropLayout.Objects(o)
			return r.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { found = true; return kv.ErrStopScan })
		})
		if err != nil {
			t.Fatal(err)
		}
		return found
	}

	drop("a")
	if len(later) != 1 {
		t.Fatalf("%d collections handed on, want 1", len(later))
	}
	if !stored("a") {
		t.Fatal("the dropped data was deleted before Update returned")
	}
	if err := checkLayout(t, s, dropLayout, "a", nil); err != nil {
		t.Errorf("dropped data awaiting collection: %v", err)
	}
	if err := counted.Check(t.Context()); err != nil {
		t.Errorf("counts while the collection waits: %v", err)
	}
	later[0](t.Context())
	if stored("a") {
		t.Error("the collection handed on left the dropped data")
	}
	left(t, s, dropLayout.Dropped, "the collection handed on")

	// Stopped before it ran: the sweep collects it.
	drop("b")
	stopped, cancel := context.WithCancel(t.Context())
	cancel()
	later[1](stopped)
	if !stored("b") {
		t.Fatal("a stopped collection deleted the data")
	}
	if _, err := s.CollectGarbage(t.Context()); err != nil {
		t.Fatal(err)
	}
	if stored("b") {
		t.Error("the sweep left the data of a stopped collection")
	}
	left(t, s, dropLayout.Dropped, "the sweep")
	if err := counted.Check(t.Context()); err != nil {
		t.Errorf("counts after collecting: %v", err)
	}

	// A large object an overwrite freed (its size unknown) goes the same
	// way.
	large := bytes.Repeat([]byte("z"), (inlineReadChunks+2)*chunk.Size)
	var id uint64
	for off := 0; off < len(large); off += StageTxnBytes {
		err := s.Update(t.Context(), func(tx kv.Txn) error {
			if off == 0 {
				id = tx.Version()
			}
			return chunk.Write(tx, dropLayout.object("c", id), int64(off), large[off:min(off+StageTxnBytes, len(large))])
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	err := s.Update(t.Context(), func(tx kv.Txn) error { return dropLayout.Free(tx, "c", map[uint64]bool{id: true}) })
	if err != nil {
		t.Fatal(err)
	}
	if len(later) != 3 || !stored("c") {
		t.Fatalf("a large freed object: %d collections handed on, stored %v; want 3 and the data still there", len(later), stored("c"))
	}
	later[2](t.Context())
	if stored("c") {
		t.Error("the collection handed on left the freed object")
	}
	left(t, s, dropLayout.Freed, "collecting a freed object")
}
