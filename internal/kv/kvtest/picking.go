package kvtest

import (
	"context"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// testScanPicking: a transaction that scans a range with kv.ScanPicking
// and takes the one key it picks (deletes it, as a queue consumer takes a
// message) runs again when a concurrent transaction took it first, and,
// on an engine that implements kv.PickingScanner, not for a writer of
// another key in the range or of a key added to it (on any other engine
// the range is read as by Scan, and such a writer may make it run
// again). What it visits is what Scan visits.
func testScanPicking(t *testing.T, o Opener) {
	s := o.Open(t)
	ctx := context.Background()
	set(t, s, "q/1", "a", "q/2", "b", "q/3", "c")
	run := func(concurrent func(kv.Txn) error) (attempts int, picking bool, visited []string) {
		err := s.Update(ctx, func(tx kv.Txn) error {
			attempts++
			_, picking = tx.(kv.PickingScanner)
			visited = visited[:0]
			err := kv.ScanPicking(tx, []byte("q/"), []byte("q0"), func(k, _ []byte) (bool, error) {
				visited = append(visited, string(k))
				return string(k) == "q/2", nil
			})
			if err != nil {
				return err
			}
			if attempts == 1 {
				// Another transaction commits between this one's read
				// and its commit.
				if err := s.Update(ctx, concurrent); err != nil {
					return err
				}
			}
			return tx.Delete([]byte("q/2"))
		})
		if err != nil {
			t.Fatal(err)
		}
		return attempts, picking, visited
	}
	attempts, picking, visited := run(func(tx kv.Txn) error {
		if err := tx.Delete([]byte("q/1")); err != nil {
			return err
		}
		return tx.Set([]byte("q/4"), []byte("d"))
	})
	if picking == o.ScansRead {
		t.Fatalf("the engine's transactions implement kv.PickingScanner: %v", picking)
	}
	if picking && attempts != 1 {
		t.Errorf("writers of keys not picked made the scan run %d times", attempts)
	}
	want := []string{"q/1", "q/2", "q/3"}
	if attempts > 1 {
		want = []string{"q/2", "q/3", "q/4"}
	}
	equal(t, "keys visited", visited, want)
	set(t, s, "q/2", "b")
	attempts, _, visited = run(func(tx kv.Txn) error { return tx.Delete([]byte("q/2")) })
	if attempts != 2 {
		t.Errorf("a taker of the picked key: the scan ran %d times, want 2", attempts)
	}
	equal(t, "keys visited after the picked key was taken", visited, []string{"q/3", "q/4"})
}
