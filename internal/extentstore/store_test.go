package extentstore

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azbody"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/chunk"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// owner names a test owner of data objects.
type owner string

type stagedRec struct {
	Owner   string
	Created time.Time
	Process string
}

type freedRec struct {
	Owner string
	IDs   []uint64
}

type testRegistrations struct{}

func (testRegistrations) Staged(o owner, s Staging) any {
	return stagedRec{Owner: string(o), Created: s.Created, Process: s.Process}
}

func (testRegistrations) ParseStaged(v []byte) (owner, Staging, error) {
	var r stagedRec
	err := record.Decode(v, &r)
	return owner(r.Owner), Staging{Created: r.Created, Process: r.Process}, err
}

func (testRegistrations) Freed(o owner, ids []uint64) any {
	return freedRec{Owner: string(o), IDs: ids}
}

func (testRegistrations) ParseFreed(v []byte) (owner, []uint64, error) {
	var r freedRec
	err := record.Decode(v, &r)
	return owner(r.Owner), r.IDs, err
}

var testLayout = &Layout[owner]{
	Name:          "test",
	Objects:       func(o owner) tuple.Key { return tuple.New("Xd").Str(string(o)) },
	Staged:        tuple.New("Xs"),
	Freed:         tuple.New("Xg"),
	Registrations: testRegistrations{},
}

func newStore(t *testing.T) *Store[owner] {
	t.Helper()
	kvs := memory.Open()
	t.Cleanup(func() { _ = kvs.Close() })
	return New(kvs, testLayout, time.Now, slog.New(slog.DiscardHandler))
}

// left fails the test when a key under prefix is left, naming it.
func left(t *testing.T, s kv.Store, prefix []byte, after string) {
	t.Helper()
	var key []byte
	scanErr := s.View(t.Context(), func(r kv.Reader) error {
		return r.Scan(prefix, kv.PrefixEnd(prefix), func(k, _ []byte) error { key = append(key, k...); return kv.ErrStopScan })
	})
	switch {
	case scanErr != nil:
		t.Fatal(scanErr)
	case key != nil:
		t.Fatalf("key %q left after %s", key, after)
	}
}

// check runs the Checker over the whole test keyspace, the objects
// referenced by refs (id -> bytes needed) of owner "o".
func check(t *testing.T, s *Store[owner], refs map[uint64]int64) error {
	t.Helper()
	c := NewChecker(testLayout)
	return c.Run(t.Context(), s, tuple.New("Xd"), func(k, v []byte) error {
		rd, err := tuple.NewReader(k, len("Xd"))
		if err != nil {
			return err
		}
		f := rd.Fields()
		o, id, idx := f.Str(), f.Uint(), f.Uint()
		c.Chunk(owner(o), id, idx, len(v))
		return f.Err()
	}, func() {
		for id, need := range refs {
			c.Ref("o", id, fmt.Sprintf("ref %d", id), need)
		}
	})
}

func read(t *testing.T, s *Store[owner], o owner, id uint64, from, n int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.View(t.Context(), func(r kv.Reader) error { return testLayout.Read(r, o, id, from, n, &buf) }); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReceiveVerifiesAndPlaces(t *testing.T) {
	for _, size := range []int{100, InlineLimit + 3*chunk.Size + 7} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			s := newStore(t)
			data := bytes.Repeat([]byte("abcdefg"), size/7+1)[:size]
			sum := md5.Sum(data)
			bad := append([]byte(nil), sum[:]...)
			bad[0] ^= 1
			_, err := s.Receive(t.Context(), "o", Upload{Body: bytes.NewReader(data), Length: int64(size), MD5: bad})
			if !errors.Is(err, azerr.ErrMd5Mismatch) {
				t.Fatalf("bad MD5: %v", err)
			}
			_, err = s.Receive(t.Context(), "o", Upload{Body: bytes.NewReader(data), Length: int64(size), CRC64: []byte{1, 2, 3, 4, 5, 6, 7, 8}})
			if !errors.Is(err, azerr.ErrCrc64Mismatch) {
				t.Fatalf("bad CRC64: %v", err)
			}
			// Both sums named, as Azure names them (@azure/storage-blob's
			// recording "stageBlock with invalid CRC64 should fail").
			crc := azbody.NewCRC64()
			crc.Write(data)
			if e, _ := errors.AsType[*azerr.Error](err); e.Detail("UserSpecifiedCrc") != "AQIDBAUGBwg=" || e.Detail("ServerCalculatedCrc") != base64.StdEncoding.EncodeToString(azbody.CRC64Bytes(crc.Sum64())) {
				t.Errorf("bad CRC64's details: %v", e.Details)
			}
			_, err = s.Receive(t.Context(), "o", Upload{Body: bytes.NewReader(data[:size-1]), Length: int64(size)})
			if !errors.Is(err, azerr.ErrInvalidInput) {
				t.Fatalf("short body: %v", err)
			}
			framing := errors.New("framing")
			_, err = s.Receive(t.Context(), "o", Upload{Body: bytes.NewReader(data), Length: int64(size), Done: func() error { return framing }})
			if !errors.Is(err, framing) {
				t.Fatalf("failed framing: %v", err)
			}
			left(t, s, tuple.New("X"), "rejected uploads")
			p, err := s.Receive(t.Context(), "o", Upload{Body: bytes.NewReader(data), Length: int64(size), MD5: sum[:], CRC64: azbody.CRC64(data)})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(p.MD5, sum[:]) || !bytes.Equal(p.CRC64, azbody.CRC64(data)) {
				t.Fatal("the payload's digests are not the content's")
			}
			if err := s.Update(t.Context(), func(tx kv.Txn) error { return p.Place(tx, tx.Version()) }); err != nil {
				t.Fatal(err)
			}
			if got := read(t, s, "o", p.ID(), 0, int64(size)); !bytes.Equal(got, data) {
				t.Fatal("read back other bytes")
			}
			if got := read(t, s, "o", p.ID(), 5, 10); !bytes.Equal(got, data[5:15]) {
				t.Fatal("a range reads other bytes")
			}
			left(t, s, testLayout.Staged, "placing")
			if err := check(t, s, map[uint64]int64{p.ID(): int64(size)}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestDiscardAndSweep(t *testing.T) {
	s := newStore(t)
	data := bytes.Repeat([]byte{7}, InlineLimit+1)
	p, err := s.Stage(t.Context(), "o", bytes.NewReader(data), int64(len(data)), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := check(t, s, nil); err != nil {
		t.Fatalf("a staged object is not a violation: %v", err)
	}
	s.Discard(t.Context(), p)
	left(t, s, tuple.New("X"), "Discard")
	// What a crash leaves staged goes with the sweep.
	if _, err := s.Stage(t.Context(), "o", bytes.NewReader(data), int64(len(data)), false); err != nil {
		t.Fatal(err)
	}
	if n, err := s.SweepStaged(t.Context()); err != nil || n != 1 {
		t.Fatalf("sweep: %d, %v", n, err)
	}
	left(t, s, tuple.New("X"), "the sweep")
	// A staged object the sweep reclaimed cannot be committed.
	p, err = s.Stage(t.Context(), "o", bytes.NewReader(data), int64(len(data)), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepStaged(t.Context()); err != nil {
		t.Fatal(err)
	}
	err = s.Update(t.Context(), func(tx kv.Txn) error { return p.Place(tx, tx.Version()) })
	if !errors.Is(err, azerr.ErrServerBusy) {
		t.Fatalf("placing reclaimed data: %v", err)
	}
}

func TestFreeCollectsAfterCommit(t *testing.T) {
	s := newStore(t)
	for _, n := range []int{3, 3 * inlineFrees} {
		doomed := map[uint64]bool{}
		err := s.Update(t.Context(), func(tx kv.Txn) error {
			for i := range n {
				if err := testLayout.Write(tx, "o", uint64(i+1), []byte("x")); err != nil {
					return err
				}
				doomed[uint64(i+1)] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var registered int
		err = s.Update(t.Context(), func(tx kv.Txn) error {
			if err := testLayout.Free(tx, "o", doomed); err != nil {
				return err
			}
			p := testLayout.Freed
			return tx.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { registered++; return nil })
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := n > inlineFrees; (registered > 0) != want {
			t.Errorf("%d objects: registered %d pages", n, registered)
		}
		left(t, s, tuple.New("X"), fmt.Sprintf("freeing %d objects", n))
	}
}

// TestLargeObjectFreedInPieces: a registered object of more than
// inlineDeleteChunks chunks is collected a piece per transaction
// (deleting reads what it deletes where the store counts stored bytes),
// so no collecting transaction reads a whole large object.
func TestLargeObjectFreedInPieces(t *testing.T) {
	kvs := memory.Open()
	t.Cleanup(func() { _ = kvs.Close() })
	counted := &countingStore{Store: kvs}
	s := New[owner](counted, testLayout, time.Now, slog.New(slog.DiscardHandler))
	large := bytes.Repeat([]byte("x"), (2*inlineDeleteChunks+5)*chunk.Size)
	err := s.Update(t.Context(), func(tx kv.Txn) error {
		if err := testLayout.Write(tx, "o", 1, large); err != nil {
			return err
		}
		for id := uint64(2); id <= inlineFrees+2; id++ {
			if err := testLayout.Write(tx, "o", id, []byte("small")); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	before := counted.updates.Load()
	var registered int
	err = s.Update(t.Context(), func(tx kv.Txn) error {
		doomed := map[uint64]bool{}
		for id := uint64(1); id <= inlineFrees+2; id++ {
			doomed[id] = true
		}
		if err := testLayout.Free(tx, "o", doomed); err != nil {
			return err
		}
		p := testLayout.Freed
		return tx.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { registered++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	if registered != 1 {
		t.Fatalf("%d pages registered, want one", registered)
	}
	if n := counted.updates.Load() - before; n < 4 {
		t.Errorf("%d transactions, want the freeing one and three pieces at least", n)
	}
	left(t, s, tuple.New("X"), "freeing a large object and small ones")
}

// countingStore counts Update calls.
type countingStore struct {
	kv.Store
	updates atomic.Int64
}

func (c *countingStore) Update(ctx context.Context, fn func(kv.Txn) error) error {
	c.updates.Add(1)
	return c.Store.Update(ctx, fn)
}

func TestStreamReadsGapsAsZeros(t *testing.T) {
	s := newStore(t)
	err := s.Update(t.Context(), func(tx kv.Txn) error {
		return errors.Join(testLayout.Write(tx, "o", 1, []byte("0123456789")), testLayout.Write(tx, "o", 2, []byte("abcdef")))
	})
	if err != nil {
		t.Fatal(err)
	}
	exts := []span{{Span{Data: 1, DataOff: 2, Offset: 3, Size: 4}}, {Span{Data: 2, Offset: 10, Size: 6}}}
	var buf bytes.Buffer
	if err := s.View(t.Context(), func(r kv.Reader) error { return Stream(testLayout, r, "o", exts, 1, 18, &buf) }); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "\x00\x002345\x00\x00\x00abcdef\x00\x00\x00"; got != want {
		t.Fatalf("Stream = %q, want %q", got, want)
	}
}

type span struct{ s Span }

func (e span) Span() Span { return e.s }

func TestCheckerFindsViolations(t *testing.T) {
	s := newStore(t)
	err := s.Update(t.Context(), func(tx kv.Txn) error {
		return errors.Join(
			testLayout.Write(tx, "o", 1, bytes.Repeat([]byte{1}, chunk.Size+10)),
			testLayout.Write(tx, "o", 2, []byte("orphan")),
			tx.Delete(chunk.Key(testLayout.Objects("o").Uint(1), 0)),
		)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = check(t, s, map[uint64]int64{1: chunk.Size + 10, 3: 5})
	for _, want := range []string{"test invariants: 3 violations", "ref 1: data object 1 has chunks", "ref 3: data object 3 is missing", "o: data object 2 is referenced by nothing"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("check = %v, want it to mention %q", err, want)
		}
	}
	c := NewChecker(testLayout)
	c.Chunk("o", 1, 0, 10)
	c.RefSized("o", 1, "sized", 11)
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "want 11 bytes in 1") {
		t.Errorf("a data object of the wrong size: %v", err)
	}
}
