package pebble_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/pebble"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// virtualVolume is a volume of capacity bytes holding only dir: its free
// space is what dir's files leave of it, blocks allocated ahead
// (preallocated logs) included, as statfs would say of a real one.
func virtualVolume(dir string, capacity int64) func() (uint64, error) {
	return func() (uint64, error) {
		used, _, err := testkit.DiskUsage(dir)
		if err != nil {
			return 0, err
		}
		return uint64(max(capacity-used, 0)), nil
	}
}

// putObject writes object i: ten values of 100 KB that do not compress.
func putObject(ctx context.Context, s kv.Store, i int) error {
	r := rand.New(rand.NewPCG(uint64(i), 1))
	return s.Update(ctx, func(tx kv.Txn) error {
		for c := range 10 {
			v := make([]byte, 100_000)
			for j := 0; j < len(v); j += 8 {
				x := r.Uint64()
				for k := j; k < min(j+8, len(v)); k++ {
					v[k] = byte(x)
					x >>= 8
				}
			}
			if err := tx.Set(fmt.Appendf(nil, "obj/%05d/%02d", i, c), v); err != nil {
				return err
			}
		}
		return nil
	})
}

func deleteObject(ctx context.Context, s kv.Store, i int) error {
	return s.Update(ctx, func(tx kv.Txn) error {
		p := fmt.Appendf(nil, "obj/%05d/", i)
		return tx.DeleteRange(p, kv.PrefixEnd(p))
	})
}

// TestDeletingGivesSpaceBack fills a 96 MiB volume until writes are
// refused, deletes every other object and expects writes to resume by
// themselves: the store compacts the deleted ranges away instead of
// leaving their tombstones for later.
func TestDeletingGivesSpaceBack(t *testing.T) {
	// The reserve sets the size of the store's tables (a 32nd of it,
	// from 1 MiB), and so that of its compactions.
	for _, c := range []struct{ capacity, reserve int64 }{{96 << 20, 12 << 20}, {256 << 20, 96 << 20}, {640 << 20, 256 << 20}} {
		t.Run(fmt.Sprintf("%dMiB-reserve", c.reserve>>20), func(t *testing.T) {
			if (testing.Short() || raceEnabled) && c.capacity > 100<<20 {
				t.Skip("writes hundreds of MiB (run without -short and -race)")
			}
			deletingGivesSpaceBack(t, c.capacity, c.reserve)
		})
	}
}

func deletingGivesSpaceBack(t *testing.T, capacity, reserve int64) {
	dir := t.TempDir()
	s, err := pebble.Open(dir, pebble.Options{MinFreeBytes: uint64(reserve), FreeSpace: virtualVolume(dir, capacity),
		FreeSpaceInterval: 20 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()
	s.EndStartup()
	ctx := context.Background()
	n := 0
	for ; ; n++ {
		err := putObject(ctx, s, n)
		if errors.Is(err, kv.ErrNoSpace) {
			if !strings.Contains(err.Error(), pebble.ReserveFlag) {
				t.Errorf("the refusal does not name the setting of the reserve: %v", err)
			}
			break
		}
		if err != nil {
			t.Fatalf("object %d: %v", n, err)
		}
		if int64(n) > capacity>>20 {
			t.Fatalf("%d MiB written to a %d MiB volume without a refusal", n, capacity>>20)
		}
	}
	if int64(n) < (capacity-reserve)>>20*6/10 {
		t.Errorf("refused after %d MiB on a %d MiB volume with %d MiB kept free", n, capacity>>20, reserve>>20)
	}
	for i := 0; i < n; i += 2 {
		if err := deleteObject(ctx, s, i); err != nil {
			t.Fatalf("delete %d on a full volume: %v", i, err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := putObject(ctx, s, n)
		if err == nil {
			break
		}
		if !errors.Is(err, kv.ErrNoSpace) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("writes still refused 30 s after half the data was deleted")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// What was kept reads back whole.
	if err := s.View(ctx, func(r kv.Reader) error {
		for i := 1; i < n; i += 2 {
			for c := range 10 {
				if _, err := r.Get(fmt.Appendf(nil, "obj/%05d/%02d", i, c)); err != nil {
					return fmt.Errorf("object %d chunk %d: %w", i, c, err)
				}
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestStartupUsesTheEmergencyMargin: until EndStartup, a nearly full
// volume still takes writes while 128 KiB is free (what a server writes
// as it starts); afterwards it refuses them, and below the margin so
// does the start.
func TestStartupUsesTheEmergencyMargin(t *testing.T) {
	const reserve = 64 << 20
	var free atomic.Uint64
	free.Store(200 << 10)
	s, err := pebble.Open(t.TempDir(), pebble.Options{MinFreeBytes: reserve, FreeSpace: func() (uint64, error) { return free.Load(), nil },
		FreeSpaceInterval: 10 * time.Millisecond,
		Logger:            slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	ctx := context.Background()
	write := func() error {
		return s.Update(ctx, func(tx kv.Txn) error { return tx.Set([]byte("k"), []byte("v")) })
	}
	if err := write(); err != nil {
		t.Fatalf("a start-up write with 200 KiB free: %v", err)
	}
	free.Store(100 << 10)
	time.Sleep(50 * time.Millisecond) // a few readings
	if err := write(); !errors.Is(err, kv.ErrNoSpace) {
		t.Fatalf("a start-up write with 100 KiB free: %v, want ErrNoSpace", err)
	}
	free.Store(200 << 10)
	time.Sleep(50 * time.Millisecond)
	s.EndStartup()
	if err := write(); !errors.Is(err, kv.ErrNoSpace) {
		t.Fatalf("a write after start-up with 200 KiB free: %v, want ErrNoSpace", err)
	}
	// Deleting is how space comes back: always admitted, with the record
	// that registers what it deletes after its commit.
	if err := s.Update(ctx, func(tx kv.Txn) error { return tx.Delete([]byte("k")) }); err != nil {
		t.Fatalf("a deletion on a full volume: %v", err)
	}
	err = s.Update(ctx, func(tx kv.Txn) error {
		if err := tx.DeleteRange([]byte("obj/"), []byte("obj0")); err != nil {
			return err
		}
		return kv.SetReclaiming(tx, []byte("dropped/1"), []byte("obj/..obj0"))
	})
	if err != nil {
		t.Fatalf("a deletion with its bookkeeping on a full volume: %v", err)
	}
}

func TestDefaultReserve(t *testing.T) {
	for _, c := range []struct{ volume, want uint64 }{
		{128 << 20, 6710886}, // 5%
		{400 << 20, 20 << 20},
		{5 << 30, 256 << 20},
		{1 << 40, 256 << 20}, // bounded
	} {
		if got := pebble.DefaultReserve(c.volume); got != c.want {
			t.Errorf("DefaultReserve(%d) = %d, want %d", c.volume, got, c.want)
		}
	}
}
