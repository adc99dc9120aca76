package pebble

import (
	"testing"
	"time"
)

// TestSyncDelayWaitsOnlyForSiblings: a sync is held back only while at
// least two transactions still run toward their commits; a lone writer,
// or writers that have all reached the log, are synced at once.
func TestSyncDelayWaitsOnlyForSiblings(t *testing.T) {
	for running, want := range map[int]time.Duration{0: 0, 1: 0, 2: groupCommitDelay, 16: groupCommitDelay} {
		if got := syncDelay(func() int { return running }); got != want {
			t.Errorf("%d running: delay %v, want %v", running, got, want)
		}
	}
	if got := syncDelay(nil); got != 0 {
		t.Errorf("before the manager exists: delay %v", got)
	}
}
