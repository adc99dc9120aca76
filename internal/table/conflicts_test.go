package table

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestInsertsOfDistinctEntitiesDoNotConflict: sixteen writers inserting
// entities of their own into one partition never lose a commit to each
// other (the ETag clock, the table record and the partition are read,
// never written, by an insert).
func TestInsertsOfDistinctEntitiesDoNotConflict(t *testing.T) {
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	accts := azauth.NewAccounts(azauth.Account{Name: testAccount, Keys: [][]byte{[]byte("key")}})
	assertInsertsDoNotConflict(t, store, New(Config{Store: store, Accounts: accts}), nil)
}

// TestInsertsDoNotConflictAcrossReservations: the same while the clock
// runs through several ETag reservations (1 ms a write, a reservation
// being a second): raising the watermark never costs a write its commit,
// and the watermark ends ahead of every tick issued.
func TestInsertsDoNotConflictAcrossReservations(t *testing.T) {
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	var mu sync.Mutex
	now := testTime
	s := clockedService(store, &now, &mu)
	advance := func() {
		mu.Lock()
		now = now.Add(time.Millisecond)
		mu.Unlock()
	}
	assertInsertsDoNotConflict(t, store, s, advance)
	mu.Lock()
	elapsed := now.Sub(testTime)
	mu.Unlock()
	if elapsed < 3*time.Duration(etagWindow)*100 {
		t.Fatalf("the clock ran %v, under three reservations", elapsed)
	}
	if err := s.CheckInvariants(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// assertInsertsDoNotConflict runs sixteen writers inserting entities of
// their own into one partition of a new table through s, calling each
// (when not nil) after every write, and fails t if any commit on store
// was lost to another.
func assertInsertsDoNotConflict(t *testing.T, store kv.Store, s *Service, each func()) {
	t.Helper()
	conflicts := testkit.ObserveConflicts(t, store)
	mustCreateTable(t, s, "tbl")
	before := conflicts.Count()
	const writers, writes = 16, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range writes {
				_, err := s.WriteEntity(t.Context(), testAccount, "tbl", EntityWrite{Kind: WriteInsert, PartitionKey: "p", RowKey: fmt.Sprintf("w%d-%d", w, i), Properties: props("N", i)})
				if err != nil {
					t.Error(err)
					return
				}
				if each != nil {
					each()
				}
			}
		})
	}
	wg.Wait()
	if n := conflicts.Count() - before; n != 0 {
		t.Errorf("%d commits lost to a writer of another entity", n)
	}
}
