package kvtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
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

// testAppendInCommitOrder: sixteen writers append to one sequence, while
// readers watch the log. Every commit takes a number: the numbers are 1 to
// N without a gap or a repeat, each append's values lie under the number
// its Took reported, and no reader ever sees a number without every
// number below it — the rule a change feed that resumes after a number
// relies on. Writers on the embedded engines never retry through the
// sequence (appends do not read it).
func testAppendInCommitOrder(t *testing.T, o Opener) {
	s := o.Open(t)
	const workers, each = 16, 20
	var mu sync.Mutex
	took := map[uint64]string{}
	var writers, readers sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
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
				val := fmt.Sprintf("w%d-%d", w, i)
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
	const total = workers * each
	if len(took) != total {
		t.Fatalf("Took reported %d numbers, want %d", len(took), total)
	}
	err := s.View(context.Background(), func(r kv.Reader) error {
		last, err := kv.SequenceValue(r.Get([]byte("seq")))
		if err != nil || last != total {
			return fmt.Errorf("the sequence holds %d (%w), want %d", last, err, total)
		}
		for n := uint64(1); n <= total; n++ {
			v0, err := r.Get(logKey(n, 0))
			if err != nil || string(v0) != took[n] {
				return fmt.Errorf("number %d holds %q (%w), Took said %q", n, v0, err, took[n])
			}
			if v1, err := r.Get(logKey(n, 1)); err != nil || string(v1) != "second part" {
				return fmt.Errorf("number %d, part 1: %q (%w)", n, v1, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testAppendRules: one transaction's appends to a sequence take
// consecutive numbers in call order, and appends to another sequence
// count apart; a rolled-back transaction takes no number; a sequence's
// number survives a reopen.
func testAppendRules(t *testing.T, o Opener) {
	s := o.Open(t)
	ctx := context.Background()
	var got []uint64
	appendTo := func(tx kv.Txn, seq, val string) error {
		return tx.Append(kv.Sequenced{Seq: []byte(seq), Key: func(n uint64, i int) []byte { return fmt.Appendf(nil, "%s/%016x", seq, n) },
			Values: [][]byte{[]byte(val)}, Took: func(n uint64) { got = append(got, n) }})
	}
	err := s.Update(ctx, func(tx kv.Txn) error {
		got = got[:0]
		for _, v := range []string{"a", "b", "c"} {
			if err := appendTo(tx, "one", v); err != nil {
				return err
			}
		}
		return appendTo(tx, "two", "x")
	})
	if err != nil || !slices.Equal(got, []uint64{1, 2, 3, 1}) {
		t.Fatalf("numbers %v (%v), want [1 2 3 1]", got, err)
	}
	boom := errors.New("boom")
	if err := s.Update(ctx, func(tx kv.Txn) error {
		if err := appendTo(tx, "one", "rolled back"); err != nil {
			return err
		}
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("rolled back: %v", err)
	}
	if err := s.Update(ctx, func(tx kv.Txn) error { got = got[:0]; return appendTo(tx, "one", "d") }); err != nil || !slices.Equal(got, []uint64{4}) {
		t.Fatalf("after a rollback: %v (%v), want [4]", got, err)
	}
	if o.Reopen != nil {
		s = o.Reopen(t, s)
		if err := s.Update(ctx, func(tx kv.Txn) error { got = got[:0]; return appendTo(tx, "one", "e") }); err != nil || !slices.Equal(got, []uint64{5}) {
			t.Fatalf("after a reopen: %v (%v), want [5]", got, err)
		}
	}
	equal(t, "the log", scanStore(t, s, "one/", "one0")[:4], []string{
		"one/0000000000000001=a", "one/0000000000000002=b", "one/0000000000000003=c", "one/0000000000000004=d"})
	err = s.View(ctx, func(r kv.Reader) error {
		v, err := r.Get([]byte("one"))
		if err != nil || len(v) != 8 || !bytes.Equal(v, binary.BigEndian.AppendUint64(nil, map[bool]uint64{true: 5, false: 4}[o.Reopen != nil])) {
			return fmt.Errorf("sequence one holds %x (%w)", v, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
