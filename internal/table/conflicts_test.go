package table

import (
	"fmt"
	"sync"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azauth"
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
	conflicts := testkit.ObserveConflicts(t, store)
	accts := azauth.NewAccounts(azauth.Account{Name: testAccount, Keys: [][]byte{[]byte("key")}})
	s := New(Config{Store: store, Accounts: accts})
	mustCreateTable(t, s, "tbl")
	before := conflicts.Count()
	const writers, each = 16, 30
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				_, err := s.WriteEntity(t.Context(), testAccount, "tbl", EntityWrite{Kind: WriteInsert, PartitionKey: "p", RowKey: fmt.Sprintf("w%d-%d", w, i), Properties: props("N", i)})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := conflicts.Count() - before; n != 0 {
		t.Errorf("%d commits lost to a writer of another entity", n)
	}
}
