package testkit

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/pebble"
)

// MemPebble opens the Pebble engine on an in-memory file system, closed at
// cleanup: the LSM's work (memtables, flushes, compactions, tombstones)
// without the disk's fsync latency, for benchmarks of how cost grows.
func MemPebble(tb testing.TB) kv.Store {
	tb.Helper()
	store, err := pebble.Open("", pebble.Options{FS: vfs.NewMem()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := store.Close(); err != nil {
			tb.Error(err)
		}
	})
	return store
}
