package occ

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// mapEngine is the smallest Engine: a map copied into each snapshot.
type mapEngine struct {
	mu   sync.Mutex
	data map[string][]byte
}

type mapSnapshot map[string][]byte

func (s mapSnapshot) Get(key []byte) ([]byte, error) {
	v, ok := s[string(key)]
	if !ok {
		return nil, kv.ErrNotFound
	}
	return bytes.Clone(v), nil
}

func (s mapSnapshot) Scan(start, end []byte, fn func(key, value []byte) error) error {
	var keys []string
	for k := range s {
		if k >= string(start) && (end == nil || k < string(end)) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := fn([]byte(k), s[k]); err != nil {
			return err
		}
	}
	return nil
}

func (mapSnapshot) Release() {}

func (e *mapEngine) Snapshot() Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := make(mapSnapshot, len(e.data))
	for k, v := range e.data {
		s[k] = v
	}
	return s
}

func (e *mapEngine) Apply(w *WriteSet) (func() error, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range w.Ranges() {
		for k := range e.data {
			if r.contains([]byte(k)) {
				delete(e.data, k)
			}
		}
	}
	w.Points(func(p Write) {
		if p.Delete {
			delete(e.data, string(p.Key))
		} else {
			e.data[string(p.Key)] = bytes.Clone(p.Value)
		}
	})
	return nil, nil
}

func (*mapEngine) LoadVersion() (uint64, error) { return 0, nil }
func (*mapEngine) SaveVersion(uint64) error     { return nil }

func newMapManager(t *testing.T) *Manager {
	m, err := New(&mapEngine{data: map[string][]byte{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func sharedGet(t *testing.T, r kv.Reader, key string) string {
	t.Helper()
	v, err := kv.GetShared(r, []byte(key))
	if errors.Is(err, kv.ErrNotFound) {
		return "<absent>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(v)
}

// TestSharedFollowsWrites: a record read with GetShared is the one the
// snapshot holds after sets, deletes and range deletions, in Updates and
// Views alike, and a transaction that read it still conflicts with a
// concurrent write of it.
func TestSharedFollowsWrites(t *testing.T) {
	m := newMapManager(t)
	ctx := context.Background()
	set := func(k, v string) {
		if err := m.Update(ctx, func(tx kv.Txn) error { return tx.Set([]byte(k), []byte(v)) }); err != nil {
			t.Fatal(err)
		}
	}
	view := func(k string) (got string) {
		if err := m.View(ctx, func(r kv.Reader) error { got = sharedGet(t, r, k); return nil }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := view("c/1"); got != "<absent>" {
		t.Fatalf("before any write: %s", got)
	}
	set("c/1", "one")
	if got := view("c/1"); got != "one" {
		t.Fatalf("after the set: %s", got)
	}
	set("c/1", "two")
	if got := view("c/1"); got != "two" {
		t.Fatalf("after the second set: %s", got)
	}
	if err := m.Update(ctx, func(tx kv.Txn) error { return tx.DeleteRange([]byte("c/"), []byte("c0")) }); err != nil {
		t.Fatal(err)
	}
	if got := view("c/1"); got != "<absent>" {
		t.Fatalf("after the range deletion: %s", got)
	}
	set("c/1", "three")
	if err := m.Update(ctx, func(tx kv.Txn) error { return tx.Delete([]byte("c/1")) }); err != nil {
		t.Fatal(err)
	}
	if got := view("c/1"); got != "<absent>" {
		t.Fatalf("after the delete: %s", got)
	}
	set("c/1", "four")

	// A transaction whose snapshot predates a write sees the old value
	// and loses at commit.
	attempts := 0
	read, proceed := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- m.Update(ctx, func(tx kv.Txn) error {
			attempts++
			got := sharedGet(t, tx, "c/1")
			if attempts == 1 {
				if got != "four" {
					return fmt.Errorf("first attempt read %s", got)
				}
				close(read)
				<-proceed
				if again := sharedGet(t, tx, "c/1"); again != "four" {
					return fmt.Errorf("the snapshot changed: %s", again)
				}
			} else if got != "five" {
				return fmt.Errorf("retry read %s", got)
			}
			return tx.Set([]byte("other"), []byte(got))
		})
	}()
	<-read
	set("c/1", "five")
	if got := view("c/1"); got != "five" {
		t.Fatalf("after the concurrent set: %s", got)
	}
	close(proceed)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if attempts != 2 {
		t.Fatalf("%d attempts: the stale read did not conflict", attempts)
	}
}

// TestSharedMatchesSnapshots: under concurrent writers (sets, deletes,
// range deletions) and readers (Updates and Views), every GetShared
// answers what the reader's own snapshot holds.
func TestSharedMatchesSnapshots(t *testing.T) {
	m := newMapManager(t)
	ctx := context.Background()
	keys := []string{"k/a", "k/b", "k/c", "k/d"}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 3 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for i := range 400 {
				err := m.Update(ctx, func(tx kv.Txn) error {
					k := []byte(keys[r.IntN(len(keys))])
					switch r.IntN(6) {
					case 0:
						return tx.Delete(k)
					case 1:
						return tx.DeleteRange([]byte("k/b"), []byte("k/d"))
					default:
						return tx.Set(k, fmt.Appendf(nil, "%d-%d", w, i))
					}
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	compare := func(snap Snapshot, seq uint64, k string) error {
		want, werr := snap.Get([]byte(k))
		got, gerr := m.getShared(snap, seq, []byte(k))
		if !bytes.Equal(got, want) || errors.Is(gerr, kv.ErrNotFound) != errors.Is(werr, kv.ErrNotFound) {
			return fmt.Errorf("%s at %d: shared %q (err %s), snapshot %q (err %s)", k, seq, got, fmt.Sprint(gerr), want, fmt.Sprint(werr))
		}
		return nil
	}
	for rd := range 3 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(rd), 2))
			for range 600 {
				k := keys[r.IntN(len(keys))]
				var err error
				if r.IntN(2) == 0 {
					snap, seq := m.trackedSnapshot()
					err = compare(snap, seq, k)
					m.track(seq, -1)
					snap.Release()
				} else {
					snap, seq := m.snapshot()
					err = compare(snap, seq, k)
					snap.Release()
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestSharedNotKeptFromAnOldView: a View's snapshot is not tracked, so
// the commits after it may be pruned from the log before it reads; what
// it read then is not kept, or later readers would see a value a commit
// has since replaced.
func TestSharedNotKeptFromAnOldView(t *testing.T) {
	m := newMapManager(t)
	ctx := context.Background()
	if err := m.Update(ctx, func(tx kv.Txn) error { return tx.Set([]byte("q"), []byte("old")) }); err != nil {
		t.Fatal(err)
	}
	snap, seq := m.snapshot()
	defer snap.Release()
	if err := m.Update(ctx, func(tx kv.Txn) error { return tx.Set([]byte("q"), []byte("new")) }); err != nil {
		t.Fatal(err)
	}
	// An unrelated commit prunes the log of what no transaction needs.
	if err := m.Update(ctx, func(tx kv.Txn) error { return tx.Set([]byte("unrelated"), nil) }); err != nil {
		t.Fatal(err)
	}
	if v, err := m.getShared(snap, seq, []byte("q")); err != nil || string(v) != "old" {
		t.Fatalf("the old view read %q, %v", v, err)
	}
	if err := m.View(ctx, func(r kv.Reader) error {
		if got := sharedGet(t, r, "q"); got != "new" {
			return fmt.Errorf("a later view read %s", got)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
