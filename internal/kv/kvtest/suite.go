package kvtest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// Opener opens a fresh, empty store for one test. Reopen, when set, closes a
// store and opens it again on the same data (durable engines only).
type Opener struct {
	Open   func(t *testing.T) kv.Store
	Reopen func(t *testing.T, s kv.Store) kv.Store
	// AddsConflict says that concurrent adds to one key may conflict
	// (PostgreSQL's row locks); Txn.Add's other rules hold all the same.
	AddsConflict bool
	// ScansRead says that the engine's scans read every key they visit
	// (it is no kv.PickingScanner: PostgreSQL, whose serializable
	// transactions track what they read themselves).
	ScansRead bool
}

// Run runs the whole suite.
func Run(t *testing.T, o Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"GetSetDelete", testGetSetDelete},
		{"ScanOrderAndBounds", testScan},
		{"ScanStop", testScanStop},
		{"ScanError", testScanError},
		{"DeleteRange", testDeleteRange},
		{"ReadYourWrites", testReadYourWrites},
		{"WritesInOrder", testWritesInOrder},
		{"CreateRules", testCreateRules},
		{"CreatorsDoNotConflict", testCreatorsDoNotConflict},
		{"InsertOwned", testInsertOwned},
		{"RepeatedReads", testRepeatedReads},
		{"RollbackOnError", testRollbackOnError},
		{"RollbackOnPanic", testRollbackOnPanic},
		{"OnCommit", testOnCommit},
		{"OnCommitNotOnError", testOnCommitNotOnError},
		{"OnCommitOnceAfterRetry", testOnCommitOnceAfterRetry},
		{"SnapshotIsolation", testSnapshotIsolation},
		{"NoLostUpdate", testNoLostUpdate},
		{"NoPhantoms", testNoPhantoms},
		{"AtomicVisibility", testAtomicVisibility},
		{"Versions", testVersions},
		{"Limits", testLimits},
		{"Durability", testDurability},
		{"AppendInCommitOrder", testAppendInCommitOrder},
		{"AppendersDoNotConflict", testAppendersDoNotConflict},
		{"AppendRules", testAppendRules},
		{"SettleBacklog", testSettleBacklog},
		{"AddConcurrently", testAddConcurrently},
		{"AddRules", testAddRules},
		{"AddConflictsWithReader", testAddConflictsWithReader},
		{"ScanPicking", testScanPicking},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, o) })
	}
}

func set(t *testing.T, s kv.Store, kvs ...string) {
	t.Helper()
	err := s.Update(context.Background(), func(tx kv.Txn) error {
		for i := 0; i+1 < len(kvs); i += 2 {
			if err := tx.Set([]byte(kvs[i]), []byte(kvs[i+1])); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("set: %v", err)
	}
}

func get(t *testing.T, s kv.Store, key string) (string, bool) {
	t.Helper()
	var v []byte
	err := s.View(context.Background(), func(r kv.Reader) error {
		var err error
		v, err = r.Get([]byte(key))
		return err
	})
	if errors.Is(err, kv.ErrNotFound) {
		return "", false
	}
	if err != nil {
		t.Fatalf("get %q: %v", key, err)
	}
	return string(v), true
}

func scan(t *testing.T, r kv.Reader, start, end string) []string {
	t.Helper()
	var endB []byte
	if end != "" {
		endB = []byte(end)
	}
	var out []string
	if err := r.Scan([]byte(start), endB, func(k, v []byte) error {
		out = append(out, string(k)+"="+string(v))
		return nil
	}); err != nil {
		t.Fatalf("scan: %v", err)
	}
	return out
}

func scanStore(t *testing.T, s kv.Store, start, end string) []string {
	t.Helper()
	var out []string
	if err := s.View(context.Background(), func(r kv.Reader) error {
		out = scan(t, r, start, end)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: got %q, want %q", what, got, want)
	}
}

func testGetSetDelete(t *testing.T, o Opener) {
	s := o.Open(t)
	if _, ok := get(t, s, "a"); ok {
		t.Fatal("empty store has a")
	}
	set(t, s, "a", "1", "b", "2")
	if v, ok := get(t, s, "a"); !ok || v != "1" {
		t.Fatalf("a = %q %v", v, ok)
	}
	set(t, s, "a", "3")
	if v, _ := get(t, s, "a"); v != "3" {
		t.Fatalf("overwrite: a = %q", v)
	}
	if err := s.Update(context.Background(), func(tx kv.Txn) error { return tx.Delete([]byte("a")) }); err != nil {
		t.Fatal(err)
	}
	if _, ok := get(t, s, "a"); ok {
		t.Fatal("deleted key still present")
	}
	if v, _ := get(t, s, "b"); v != "2" {
		t.Fatalf("b = %q", v)
	}
	set(t, s, "empty", "")
	if v, ok := get(t, s, "empty"); !ok || v != "" {
		t.Fatalf("empty value: %q %v", v, ok)
	}
}

func testScan(t *testing.T, o Opener) {
	s := o.Open(t)
	set(t, s, "b", "2", "a", "1", "c", "3", "a\x00", "z", "d\xff", "4")
	equal(t, "full", scanStore(t, s, "", ""), []string{"a=1", "a\x00=z", "b=2", "c=3", "d\xff=4"})
	equal(t, "bounded", scanStore(t, s, "a\x00", "c"), []string{"a\x00=z", "b=2"})
	equal(t, "prefix", scanStore(t, s, "d", string(kv.PrefixEnd([]byte("d")))), []string{"d\xff=4"})
}

func testDeleteRange(t *testing.T, o Opener) {
	s := o.Open(t)
	set(t, s, "a", "1", "b", "2", "b/1", "x", "b/2", "y", "c", "3")
	err := s.Update(context.Background(), func(tx kv.Txn) error {
		return tx.DeleteRange([]byte("b"), []byte("c"))
	})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "after range delete", scanStore(t, s, "", ""), []string{"a=1", "c=3"})
	err = s.Update(context.Background(), func(tx kv.Txn) error { return tx.DeleteRange([]byte("b"), nil) })
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "open-ended range delete", scanStore(t, s, "", ""), []string{"a=1"})
}

func testReadYourWrites(t *testing.T, o Opener) {
	s := o.Open(t)
	set(t, s, "a", "1", "b", "2", "c", "3", "d", "4")
	err := s.Update(context.Background(), func(tx kv.Txn) error {
		_ = tx.Set([]byte("b"), []byte("20"))
		_ = tx.Set([]byte("bb"), []byte("new"))
		_ = tx.Delete([]byte("a"))
		_ = tx.DeleteRange([]byte("c"), []byte("d"))
		_ = tx.Set([]byte("c1"), []byte("after-range"))
		equal(t, "txn scan", scan(t, tx, "", ""), []string{"b=20", "bb=new", "c1=after-range", "d=4"})
		if _, err := tx.Get([]byte("a")); !errors.Is(err, kv.ErrNotFound) {
			t.Errorf("deleted a in txn: %v", err)
		}
		if _, err := tx.Get([]byte("c")); !errors.Is(err, kv.ErrNotFound) {
			t.Errorf("range-deleted c in txn: %v", err)
		}
		if v, err := tx.Get([]byte("bb")); err != nil || string(v) != "new" {
			t.Errorf("bb in txn = %q, %v", v, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "committed", scanStore(t, s, "", ""), []string{"b=20", "bb=new", "c1=after-range", "d=4"})
}

// testWritesInOrder: a transaction's writes take effect in the order it
// made them, however an engine groups them (PostgreSQL sends runs of
// Sets, and of Deletes, as one statement each): a key written twice in a
// run keeps its last value, a Delete after a Set removes it, a Set after
// a Delete restores it, and many keys in a row all land.
func testWritesInOrder(t *testing.T, o Opener) {
	s := o.Open(t)
	set(t, s, "a", "old", "d", "old", "e", "old")
	var want []string
	err := s.Update(context.Background(), func(tx kv.Txn) error {
		for _, w := range [][2]string{
			{"c", "1"}, {"a", "2"}, {"c", "3"}, {"b", "4"}, // one run, c twice
			{"-", "a"}, {"-", "d"}, {"-", "a"}, // a run of deletes, a twice
			{"a", "5"}, {"d", "6"}, // set again after the delete
			{"-", "b"}, {"b", "7"}, {"-", "b"}, // alternating kinds
			{"-", "zz"}, // a key that never existed
		} {
			var err error
			if w[0] == "-" {
				err = tx.Delete([]byte(w[1]))
			} else {
				err = tx.Set([]byte(w[0]), []byte(w[1]))
			}
			if err != nil {
				return err
			}
		}
		for i := range 300 {
			if err := tx.Set(fmt.Appendf(nil, "m%03d", 299-i), fmt.Appendf(nil, "%d", i)); err != nil {
				return err
			}
		}
		want = []string{"a=5", "c=3", "d=6", "e=old"}
		equal(t, "txn scan", scan(t, tx, "", "m"), want)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "committed", scanStore(t, s, "", "m"), want)
	ms := scanStore(t, s, "m", "n")
	if len(ms) != 300 || ms[0] != "m000=299" || ms[299] != "m299=0" {
		t.Fatalf("the run of 300 Sets left %d keys, first %q", len(ms), ms[:min(1, len(ms))])
	}
}

func testRollbackOnError(t *testing.T, o Opener) {
	s := o.Open(t)
	set(t, s, "a", "1")
	boom := errors.New("boom")
	err := s.Update(context.Background(), func(tx kv.Txn) error {
		_ = tx.Set([]byte("a"), []byte("2"))
		_ = tx.Set([]byte("b"), []byte("2"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update returned %v, want boom", err)
	}
	equal(t, "after rollback", scanStore(t, s, "", ""), []string{"a=1"})
}

func testRollbackOnPanic(t *testing.T, o Opener) {
	s := o.Open(t)
	set(t, s, "a", "1")
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic was swallowed")
			}
		}()
		_ = s.Update(context.Background(), func(tx kv.Txn) error {
			_ = tx.Set([]byte("a"), []byte("2"))
			panic("boom")
		})
	}()
	equal(t, "after panic", scanStore(t, s, "", ""), []string{"a=1"})
	set(t, s, "b", "2") // the store still works
	equal(t, "store usable", scanStore(t, s, "", ""), []string{"a=1", "b=2"})
}

func testSnapshotIsolation(t *testing.T, o Opener) {
	s := o.Open(t)
	set(t, s, "a", "1", "b", "1")
	err := s.View(context.Background(), func(r kv.Reader) error {
		set(t, s, "a", "2", "b", "2", "c", "2")
		equal(t, "view after concurrent commit", scan(t, r, "", ""), []string{"a=1", "b=1"})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "later view", scanStore(t, s, "", ""), []string{"a=2", "b=2", "c=2"})
}

func testNoLostUpdate(t *testing.T, o Opener) {
	s := o.Open(t)
	const workers, each = 16, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for range each {
				err := s.Update(context.Background(), func(tx kv.Txn) error {
					n := 0
					v, err := tx.Get([]byte("counter"))
					if err == nil {
						n, _ = strconv.Atoi(string(v))
					} else if !errors.Is(err, kv.ErrNotFound) {
						return err
					}
					return tx.Set([]byte("counter"), []byte(strconv.Itoa(n+1)))
				})
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
	if v, _ := get(t, s, "counter"); v != strconv.Itoa(workers*each) {
		t.Fatalf("counter = %s, want %d", v, workers*each)
	}
}

// testNoPhantoms: each transaction inserts into an empty range only if the
// range is still empty; serializability allows exactly one to succeed.
func testNoPhantoms(t *testing.T, o Opener) {
	s := o.Open(t)
	const workers = 16
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			err := s.Update(context.Background(), func(tx kv.Txn) error {
				n := 0
				if err := tx.Scan([]byte("slot/"), kv.PrefixEnd([]byte("slot/")), func(k, v []byte) error { n++; return nil }); err != nil {
					return err
				}
				if n > 0 {
					return nil
				}
				return tx.Set(fmt.Appendf(nil, "slot/%02d", i), []byte("taken"))
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := scanStore(t, s, "slot/", "slot0"); len(got) != 1 {
		t.Fatalf("write skew: %d slots taken: %q", len(got), got)
	}
}

// testAtomicVisibility: readers never see half of a multi-key commit.
func testAtomicVisibility(t *testing.T, o Opener) {
	s := o.Open(t)
	set(t, s, "x", "0", "y", "0")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		defer close(stop)
		for i := 1; i <= 200; i++ {
			v := strconv.Itoa(i)
			set(t, s, "x", v, "y", v)
		}
	})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = s.View(context.Background(), func(r kv.Reader) error {
					x, _ := r.Get([]byte("x"))
					y, _ := r.Get([]byte("y"))
					if string(x) != string(y) {
						t.Errorf("torn read: x=%s y=%s", x, y)
					}
					return nil
				})
			}
		})
	}
	wg.Wait()
}

func testVersions(t *testing.T, o Opener) {
	s := o.Open(t)
	var last uint64
	for i := range 50 {
		var v uint64
		err := s.Update(context.Background(), func(tx kv.Txn) error {
			v = tx.Version()
			return tx.Set([]byte("k"), []byte(strconv.Itoa(i)))
		})
		if err != nil {
			t.Fatal(err)
		}
		if v <= last {
			t.Fatalf("version %d after %d: not increasing", v, last)
		}
		last = v
	}
	if o.Reopen == nil {
		return
	}
	s = o.Reopen(t, s)
	err := s.Update(context.Background(), func(tx kv.Txn) error {
		if tx.Version() <= last {
			t.Errorf("version %d after reopen, last before was %d", tx.Version(), last)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testLimits(t *testing.T, o Opener) {
	s := o.Open(t)
	big := make([]byte, kv.MaxValueSize+1)
	err := s.Update(context.Background(), func(tx kv.Txn) error { return tx.Set([]byte("big"), big) })
	if !errors.Is(err, kv.ErrTooLarge) {
		t.Fatalf("oversize value: %v, want ErrTooLarge", err)
	}
	err = s.Update(context.Background(), func(tx kv.Txn) error {
		return tx.Set(make([]byte, kv.MaxKeySize+1), nil)
	})
	if !errors.Is(err, kv.ErrTooLarge) {
		t.Fatalf("oversize key: %v, want ErrTooLarge", err)
	}
	err = s.Update(context.Background(), func(tx kv.Txn) error {
		v := make([]byte, kv.MaxValueSize)
		for i := 0; ; i++ {
			if err := tx.Set(fmt.Appendf(nil, "k%06d", i), v); err != nil {
				return err
			}
		}
	})
	if !errors.Is(err, kv.ErrTooLarge) {
		t.Fatalf("oversize transaction: %v, want ErrTooLarge", err)
	}
	if got := scanStore(t, s, "", ""); len(got) != 0 {
		t.Fatalf("rejected transactions left %d keys", len(got))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Update(ctx, func(kv.Txn) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
}

func testDurability(t *testing.T, o Opener) {
	if o.Reopen == nil {
		t.Skip("engine is not durable")
	}
	s := o.Open(t)
	set(t, s, "a", "1", "b", "2")
	_ = s.Update(context.Background(), func(tx kv.Txn) error { return tx.DeleteRange([]byte("b"), nil) })
	s = o.Reopen(t, s)
	equal(t, "after reopen", scanStore(t, s, "", ""), []string{"a=1"})
}
