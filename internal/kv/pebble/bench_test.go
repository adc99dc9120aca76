package pebble_test

import (
	"context"
	"encoding/binary"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/pebble"
)

// BenchmarkCommitWithCounts is the commit every small durable write makes:
// one new key, and the three stored-bytes counts of its service
// (kv.Txn.Add), from concurrent writers, each commit synced.
//
// "disk" syncs to the test's directory; "memory" runs on pebble's memory
// file system with one writer, so that the time per commit is the CPU the
// commit path costs, without the waits. "memory-one-count" adds to one
// count instead of three: what keeping a service's counts under one key
// would save.
func BenchmarkCommitWithCounts(b *testing.B) {
	b.Run("disk", func(b *testing.B) { benchmarkCommitWithCounts(b, pebble.Options{}, 8, 3) })
	b.Run("memory", func(b *testing.B) { benchmarkCommitWithCounts(b, pebble.Options{FS: vfs.NewMem()}, 0, 3) })
	b.Run("memory-one-count", func(b *testing.B) { benchmarkCommitWithCounts(b, pebble.Options{FS: vfs.NewMem()}, 0, 1) })
}

// benchmarkCommitWithCounts runs the commits, each adding to ncounts
// counts, from parallelism × GOMAXPROCS writers, or from one when
// parallelism is 0.
func benchmarkCommitWithCounts(b *testing.B, o pebble.Options, parallelism, ncounts int) {
	s, err := pebble.Open(b.TempDir(), o)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			b.Error(err)
		}
	}()
	ctx := context.Background()
	value := make([]byte, 1024)
	counts := [][]byte{[]byte("counts/bytes"), []byte("counts/records"), []byte("counts/objects")}[:ncounts]
	var next atomic.Uint64
	commit := func() error {
		k := binary.BigEndian.AppendUint64([]byte("data/"), next.Add(1))
		return s.Update(ctx, func(tx kv.Txn) error {
			if err := kv.Insert(tx, k, value); err != nil {
				return err
			}
			for i, c := range counts {
				if err := tx.Add(c, int64(len(value)+i)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	if parallelism == 0 {
		for b.Loop() {
			if err := commit(); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		b.SetParallelism(parallelism) // 16 writers on two cores, as cerulean-bench runs
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := commit(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.StopTimer()
	// The process's CPU (pebble's log writer and flushes included) per
	// commit: on a machine shared with other work, a steadier measure
	// than the time per commit, which mostly waits for syncs.
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
}

func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
