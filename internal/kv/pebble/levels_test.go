package pebble

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// TestL0Threshold: level 0 gathers sixteen sublevels before it is
// compacted on a volume with the largest reserve (or none), and fewer on
// small volumes, where what one compaction takes from it must stay well
// within the reserve.
func TestL0Threshold(t *testing.T) {
	for reserve, want := range map[uint64]int{
		0:              16,
		256 << 20:      16, // the default reserve from 5 GiB volumes up
		128 << 20:      8,
		20 << 20:       4, // a 400 MiB volume
		6_710_886:      4, // a 128 MiB volume
		1 << 40:        16,
		(64 << 20) + 1: 4,
	} {
		got := l0Threshold(reserve)
		if got != want {
			t.Errorf("l0Threshold(%d) = %d, want %d", reserve, got, want)
		}
		// Compactions start at half the threshold's sublevels; above
		// pebble's own 4, that must stay within an eighth of the reserve.
		if reserve > 0 && got > 4 && uint64(got/2)*memTableSize > reserve/8 {
			t.Errorf("reserve %d: %d sublevels of %d B memtables exceed an eighth of it", reserve, got/2, memTableSize)
		}
	}
}

// TestLevelZeroGathersBeforeCompacting: flushes that each span the whole
// keyspace stay in level 0 as sublevels until half the threshold (where
// pebble starts compacting it), rather than rewriting the level below
// after every second one.
func TestLevelZeroGathersBeforeCompacting(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	const flushes = 16/2 - 1
	for f := range flushes {
		err := s.Update(context.Background(), func(tx kv.Txn) error {
			// Keys from one end of the keyspace to the other, as new
			// blobs' and entities' names are.
			for i := range 64 {
				if err := tx.Set(fmt.Appendf(nil, "k%03d-%02d", i, f), make([]byte, 512)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.db.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	m := s.db.Metrics()
	if got := m.Levels[0].Sublevels; got != flushes {
		t.Errorf("level 0 has %d sublevels after %d flushes, want all %d (compactions %d)", got, flushes, flushes, m.Compact.Count)
	}
	if m.Compact.Count != 0 {
		t.Errorf("%d compactions before level 0 reached its threshold", m.Compact.Count)
	}
}

// TestLevelTableSize: flushes write tables of at most levelZeroTableSize
// whatever the reserve, and the levels below follow the reserve.
func TestLevelTableSize(t *testing.T) {
	for _, reserve := range []uint64{0, 20 << 20, 128 << 20, 256 << 20, 1 << 40} {
		if got := levelTableSize(0, reserve); got > levelZeroTableSize {
			t.Errorf("reserve %d: level-0 tables of %d B, want at most %d", reserve, got, levelZeroTableSize)
		}
		for level := 1; level < 7; level++ {
			if got, want := levelTableSize(level, reserve), tableSize(reserve); got != want {
				t.Errorf("reserve %d: level-%d tables of %d B, want %d", reserve, level, got, want)
			}
		}
	}
}

// BenchmarkLargeContentCompaction measures what compactions write for new
// large content: eight writers each stage 8 MiB objects of incompressible
// 64 KiB chunks under keys past every existing one, then commit a record
// elsewhere in the keyspace, as concurrent uploads do. It reports the
// bytes compactions wrote per byte of content (levelZeroTableSize).
func BenchmarkLargeContentCompaction(b *testing.B) {
	var compacted, total uint64
	for b.Loop() {
		c, n := largeContent(b)
		compacted += c
		total += n
	}
	b.ReportMetric(float64(compacted)/float64(total), "compacted/content")
	b.SetBytes(int64(total / uint64(b.N)))
}

// largeContent writes the uploads of BenchmarkLargeContentCompaction to a
// fresh store and returns what its compactions wrote and how much content
// there was.
func largeContent(b *testing.B) (compacted, content uint64) {
	s, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	const writers, objects, chunks, chunkSize = 8, 32, 128, 64 << 10 // 8 MiB each
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			rng := rand.New(rand.NewChaCha8([32]byte{byte(w)}))
			for o := next.Add(1); o <= objects; o = next.Add(1) {
				stage := func(tx kv.Txn) error {
					if err := tx.Set(fmt.Appendf(nil, "s%06d", o), []byte("staged")); err != nil {
						return err
					}
					for c := range chunks {
						data := make([]byte, chunkSize)
						for i := range data {
							data[i] = byte(rng.Uint32())
						}
						if err := tx.Set(fmt.Appendf(nil, "z%06d-%06d", o, c), data); err != nil {
							return err
						}
					}
					return nil
				}
				commit := func(tx kv.Txn) error {
					if err := tx.Delete(fmt.Appendf(nil, "s%06d", o)); err != nil {
						return err
					}
					return tx.Set(fmt.Appendf(nil, "r%03d-%06d", (o*37)%100, o), make([]byte, 300))
				}
				for _, fn := range []func(kv.Txn) error{stage, commit} {
					if err := s.Update(context.Background(), fn); err != nil {
						b.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	// Compactions run in the background: let them settle.
	deadline := time.Now().Add(30 * time.Second)
	for s.db.Metrics().Compact.NumInProgress > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return s.db.Metrics().Total().TableBytesCompacted, objects * chunks * chunkSize
}
