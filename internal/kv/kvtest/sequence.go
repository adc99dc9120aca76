package kvtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// logKey is the key of part i of number n of the test log.
func logKey(n uint64, i int) []byte { return fmt.Appendf(nil, "log/%016x/%d", n, i) }

// logNumbers scans the test log and returns its numbers in key order,
// each once.
func logNumbers(t *testing.T, r kv.Reader) []uint64 {
	t.Helper()
	var out []uint64
	err := r.Scan([]byte("log/"), []byte("log0"), func(k, _ []byte) error {
		var n uint64
		var i int
		if _, err := fmt.Sscanf(string(k), "log/%016x/%d", &n, &i); err != nil {
			return fmt.Errorf("key %q: %w", k, err)
		}
		if len(out) == 0 || out[len(out)-1] != n {
			out = append(out, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// settleLog numbers what was appended to the test log (kv.Settle).
func settleLog(t *testing.T, s kv.Store) {
	t.Helper()
	if err := kv.Settle(context.Background(), s, []byte("seq"), logKey); err != nil {
		t.Error(err)
	}
}

// logValues settles and reads the test log: the part-0 value of each
// number, from 1, failing on a gap.
func logValues(t *testing.T, s kv.Store) []string {
	t.Helper()
	settleLog(t, s)
	var out []string
	err := s.View(context.Background(), func(r kv.Reader) error {
		last, err := kv.SequenceValue(r.Get([]byte("seq")))
		if err != nil {
			return err
		}
		out = make([]string, 0, last)
		for n := uint64(1); n <= last; n++ {
			v0, err := r.Get(logKey(n, 0))
			if err != nil {
				return fmt.Errorf("number %d of %d: %w", n, last, err)
			}
			if v1, err := r.Get(logKey(n, 1)); err != nil || string(v1) != "second part" {
				return fmt.Errorf("number %d, part 1: %q (%w)", n, v1, err)
			}
			out = append(out, string(v0))
		}
		if nums := logNumbers(t, r); len(nums) != int(last) {
			return fmt.Errorf("the log holds numbers %v, the sequence %d", nums, last)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// testAppendInCommitOrder: sixteen writers append to one sequence, while
// readers settle and read the log. The numbers are 1 to N without a gap
// or a repeat, every append is under exactly one number, each writer's
// appends (each committed before its next began) are numbered in the
// order it made them, an engine that reports numbers (Took) reports the
// ones its values lie under, and no reader ever sees a number without
// every number below it — the rule a change feed that resumes after a
// number relies on.
func testAppendInCommitOrder(t *testing.T, o Opener) {
	s := o.Open(t)
	const workers, each = 16, 20
	var mu sync.Mutex
	took := map[uint64]string{}
	var writers, readers sync.WaitGroup
	stop := make(chan struct{})
	for r := range 2 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if r == 0 {
					settleLog(t, s)
				}
				_ = s.View(context.Background(), func(r kv.Reader) error {
					nums := logNumbers(t, r)
					for i, n := range nums {
						if n != uint64(i+1) {
							t.Errorf("a reader saw numbers %v: %d without the ones below it", nums, n)
							break
						}
					}
					return nil
				})
			}
		})
	}
	for w := range workers {
		writers.Go(func() {
			for i := range each {
				val := fmt.Sprintf("w%02d-%02d", w, i)
				err := s.Update(context.Background(), func(tx kv.Txn) error {
					return tx.Append(kv.Sequenced{Seq: []byte("seq"), Key: logKey, Values: [][]byte{[]byte(val), []byte("second part")},
						Took: func(n uint64) {
							mu.Lock()
							defer mu.Unlock()
							if prev, dup := took[n]; dup {
								t.Errorf("number %d taken by %s and %s", n, prev, val)
							}
							took[n] = val
						}})
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	writers.Wait()
	close(stop)
	readers.Wait()
	checkLog(t, logValues(t, s), workers, each)
	for n, v := range took {
		if got := logValues(t, s); n == 0 || n > uint64(len(got)) || got[n-1] != v {
			t.Fatalf("Took told %s number %d, which does not hold it", v, n)
		}
	}
}

// checkLog checks that the log holds each writer's appends once each, in
// the order the writer made them.
func checkLog(t *testing.T, log []string, workers, each int) {
	t.Helper()
	if len(log) != workers*each {
		t.Fatalf("the log holds %d appends, want %d", len(log), workers*each)
	}
	next := make([]int, workers)
	for n, v := range log {
		var w, i int
		if _, err := fmt.Sscanf(v, "w%02d-%02d", &w, &i); err != nil || w >= workers {
			t.Fatalf("number %d holds %q", n+1, v)
		}
		if i != next[w] {
			t.Fatalf("number %d holds %q, want writer %d's append %d next: a writer's appends out of order, lost or repeated", n+1, v, w, next[w])
		}
		next[w]++
	}
}

// testAppendersDoNotConflict: sixteen writers that only append to one
// sequence never retry, on every engine (the reason Append exists), and
// a Settle afterwards numbers every append in each writer's order.
func testAppendersDoNotConflict(t *testing.T, o Opener) {
	s := o.Open(t)
	conflicts := testkit.ObserveConflicts(t, s)
	const workers, each = 16, 10
	var writers sync.WaitGroup
	for w := range workers {
		writers.Go(func() {
			for i := range each {
				err := s.Update(context.Background(), func(tx kv.Txn) error {
					return tx.Append(kv.Sequenced{Seq: []byte("seq"), Key: logKey,
						Values: [][]byte{fmt.Appendf(nil, "w%02d-%02d", w, i), []byte("second part")}})
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	writers.Wait()
	if n := conflicts.Count(); n != 0 {
		t.Errorf("%d conflicts among writers that only append to one sequence", n)
	}
	checkLog(t, logValues(t, s), workers, each)
}

// testSettleBacklog: a backlog of appends larger than one Settle numbers
// (kv.SettleBatch), some of more values than that, is numbered whole by kv.Settle,
// in order.
func testSettleBacklog(t *testing.T, o Opener) {
	s := o.Open(t)
	ctx := context.Background()
	const txns, each = 3, kv.SettleBatch/2 + 7
	for x := range txns {
		err := s.Update(ctx, func(tx kv.Txn) error {
			for i := range each {
				vals := [][]byte{fmt.Appendf(nil, "w%02d-%02d", x, i), []byte("second part")}
				if i%50 == 0 {
					for range kv.SettleBatch + 1 { // an append of more values than a Settle reads at once
						vals = append(vals, []byte("more"))
					}
				}
				if err := tx.Append(kv.Sequenced{Seq: []byte("seq"), Key: logKey, Values: vals}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	log := logValues(t, s)
	if len(log) != txns*each {
		t.Fatalf("the log holds %d appends, want %d", len(log), txns*each)
	}
	for n, v := range log {
		if want := fmt.Sprintf("w%02d-%02d", n/each, n%each); v != want {
			t.Fatalf("number %d holds %q, want %q", n+1, v, want)
		}
	}
}

// testAppendRules: one transaction's appends to a sequence take
// consecutive numbers in call order, and appends to another sequence
// count apart; a rolled-back transaction takes no number; a sequence's
// number survives a reopen; settling twice numbers nothing twice; a
// transaction that settles and deletes a sequence takes every append
// committed before it with it, and the next append takes number 1.
func testAppendRules(t *testing.T, o Opener) {
	s := o.Open(t)
	ctx := context.Background()
	keyOf := func(seq string) func(n uint64, i int) []byte {
		return func(n uint64, i int) []byte { return fmt.Appendf(nil, "%s/%016x", seq, n) }
	}
	appendTo := func(tx kv.Txn, seq, val string) error {
		return tx.Append(kv.Sequenced{Seq: []byte(seq), Key: keyOf(seq), Values: [][]byte{[]byte(val)}})
	}
	settle := func(seqs ...string) {
		t.Helper()
		for _, seq := range seqs {
			if err := kv.Settle(ctx, s, []byte(seq), keyOf(seq)); err != nil {
				t.Fatal(err)
			}
		}
	}
	err := s.Update(ctx, func(tx kv.Txn) error {
		for _, v := range []string{"a", "b", "c"} {
			if err := appendTo(tx, "one", v); err != nil {
				return err
			}
		}
		return appendTo(tx, "two", "x")
	})
	if err != nil {
		t.Fatal(err)
	}
	settle("one", "two", "one")
	equal(t, "sequence two", scanStore(t, s, "two", "two0"), []string{"two=\x00\x00\x00\x00\x00\x00\x00\x01", "two/0000000000000001=x"})
	boom := errors.New("boom")
	if err := s.Update(ctx, func(tx kv.Txn) error {
		if err := appendTo(tx, "one", "rolled back"); err != nil {
			return err
		}
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("rolled back: %v", err)
	}
	if err := s.Update(ctx, func(tx kv.Txn) error { return appendTo(tx, "one", "d") }); err != nil {
		t.Fatal(err)
	}
	if o.Reopen != nil {
		s = o.Reopen(t, s)
		if err := s.Update(ctx, func(tx kv.Txn) error { return appendTo(tx, "one", "e") }); err != nil {
			t.Fatal(err)
		}
	}
	settle("one")
	want := []string{"one/0000000000000001=a", "one/0000000000000002=b", "one/0000000000000003=c", "one/0000000000000004=d"}
	if o.Reopen != nil {
		want = append(want, "one/0000000000000005=e")
	}
	equal(t, "the log", scanStore(t, s, "one/", "one0"), want)
	err = s.View(ctx, func(r kv.Reader) error {
		v, err := r.Get([]byte("one"))
		if err != nil || len(v) != 8 || !bytes.Equal(v, binary.BigEndian.AppendUint64(nil, uint64(len(want)))) {
			return fmt.Errorf("sequence one holds %x (%w)", v, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Deleting a sequence with an append not yet settled.
	if err := s.Update(ctx, func(tx kv.Txn) error { return appendTo(tx, "one", "before the deletion") }); err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx kv.Txn) error {
		if err := kv.SettleAll(tx, []byte("one"), keyOf("one")); err != nil {
			return err
		}
		return kv.DeletePrefixes(tx, []byte("one"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, func(tx kv.Txn) error { return appendTo(tx, "one", "after") }); err != nil {
		t.Fatal(err)
	}
	settle("one")
	equal(t, "the log after its deletion", scanStore(t, s, "one", "one0"),
		[]string{"one=\x00\x00\x00\x00\x00\x00\x00\x01", "one/0000000000000001=after"})
}
