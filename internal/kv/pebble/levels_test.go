package pebble

import (
	"context"
	"fmt"
	"testing"

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
