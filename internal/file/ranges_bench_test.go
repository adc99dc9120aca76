package file

import (
	"bytes"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/pebble"
	kvusage "github.com/cerulean-db/cerulean/internal/kv/usage"
)

// BenchmarkPutRangeOverwrite measures a 4 KiB Put Range over a page of a
// 4 MiB file that every page of is written already (as cerulean-bench's
// file-put-range reaches), on a pebble store in memory that counts
// stored bytes as the server's does: the CPU of the write path without
// HTTP or the disk.
func BenchmarkPutRangeOverwrite(b *testing.B) {
	engine, err := pebble.Open(b.TempDir(), pebble.Options{FS: vfs.NewMem()})
	if err != nil {
		b.Fatal(err)
	}
	counted, err := kvusage.Open(b.Context(), engine, []kvusage.Space{{Name: "file", Prefix: []byte(keyspace.FileSpace), Object: ObjectKey}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = counted.Close() })
	s := New(Config{Store: counted})
	ctx := b.Context()
	if _, err := s.CreateShare(ctx, ShareRef{Account: testAcct, Share: "s"}, ShareSpec{}); err != nil {
		b.Fatal(err)
	}
	const size, page = 4 << 20, 4096
	ref := Ref{Account: testAcct, Share: "s", Path: "f"}
	if _, err := s.CreateFile(ctx, ref, CreateFileOptions{Size: size}); err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat([]byte{'x'}, page)
	write := func(off int64) {
		if _, err := s.PutRange(ctx, ref, off, Content{Body: bytes.NewReader(data), Length: page}, Preconditions{}); err != nil {
			b.Fatal(err)
		}
	}
	for off := int64(0); off < size; off += page {
		write(off)
	}
	r := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	before := processCPU(b)
	for b.Loop() {
		write(int64(r.IntN(size/page)) * page)
	}
	b.ReportMetric(float64((processCPU(b)-before).Microseconds())/float64(b.N), "cpu-µs/op")
}

// processCPU is the CPU time the process has used: on a shared machine
// a steadier figure than the wall time.
func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
