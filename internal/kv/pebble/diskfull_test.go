package pebble_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/cerulean-db/cerulean/internal/kv/pebble"
)

// fullForTables answers ENOSPC to every write of a table file once
// armed, as a volume full to the last byte does to a flush, and counts
// the attempts.
type fullForTables struct {
	armed    atomic.Bool
	attempts atomic.Int64
}

func (f *fullForTables) String() string { return "ENOSPC on table writes" }

func (f *fullForTables) MaybeError(op errorfs.Op) error {
	if !f.armed.Load() || !strings.HasSuffix(op.Path, ".sst") {
		return nil
	}
	switch op.Kind {
	case errorfs.OpCreate, errorfs.OpFileWrite, errorfs.OpFileWriteAt:
		f.attempts.Add(1)
		return syscall.ENOSPC
	}
	return nil
}

// TestFullVolumeBacksOff: flushes that meet ENOSPC are retried after a
// pause that grows, not at once (pebble alone retried thousands of times
// a minute, a core burnt), the store refuses writes meanwhile, and
// closing it does not wait for the volume to empty.
func TestFullVolumeBacksOff(t *testing.T) {
	inj := &fullForTables{}
	s, err := pebble.Open(t.TempDir(), pebble.Options{FS: errorfs.Wrap(vfs.Default, inj),
		MinFreeBytes: 1 << 20, FreeSpace: func() (uint64, error) { return 1 << 40, nil }, FreeSpaceInterval: time.Hour,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	s.EndStartup()
	ctx := context.Background()
	inj.armed.Store(true)
	// Past one memtable (4 MiB): a flush starts, and fails.
	var refused error
	for i := 0; i < 8 && refused == nil; i++ {
		refused = putObject(ctx, s, i)
	}
	time.Sleep(3 * time.Second)
	if n := inj.attempts.Load(); n == 0 || n > 40 {
		t.Errorf("%d table writes met ENOSPC in about 3 s, want a few (retries paused)", n)
	}
	if err := putObject(ctx, s, 100); err == nil {
		t.Error("a write was accepted after the volume answered ENOSPC")
	}
	closed := make(chan error, 1)
	began := time.Now()
	go func() { closed <- s.Close() }()
	select {
	case <-closed: // its error may report the failed flush
		t.Logf("%d ENOSPC answers; closed in %v", inj.attempts.Load(), time.Since(began).Round(time.Millisecond))
	case <-time.After(10 * time.Second):
		t.Fatal("closing the store on a full volume did not return within 10 s")
	}
}
