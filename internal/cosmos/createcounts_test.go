package cosmos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	kvusage "github.com/cerulean-db/cerulean/internal/kv/usage"
	"github.com/cerulean-db/cerulean/internal/kv/usage/usagetest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestCreatesKeepStoredCounts: an item write that creates (Create, or an
// Upsert of a new id) stores the body without first reading its key
// back or clearing pieces an earlier version left (kv.Insert), since the
// transaction has just found nothing there — or has just removed an
// expired item. The stored-bytes counts must still equal a recount of
// the store after each, for small items and for items stored in pieces.
// A create writes without reading its id first (kv.Create); on
// PostgreSQL the database refuses a taken id, and the create then runs
// again reading it: a live item answers Conflict, an expired one is
// replaced.
func TestCreatesKeepStoredCounts(t *testing.T) {
	t.Run("memory", func(t *testing.T) { checkCreateCounts(t, memory.Open()) })
	t.Run("postgres", func(t *testing.T) { checkCreateCounts(t, testkit.Postgres(t, 4)) })
}

func checkCreateCounts(t *testing.T, store kv.Store) {
	counted, recountStore := usagetest.Open(t, store, kvusage.Space{Name: "cosmos", Prefix: []byte(keyspace.CosmosSpace), Object: ObjectKey})
	clock := testkit.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	s, _ := newItemsService(t, Config{Store: counted, Now: clock.Now}, `{"id":"items","partitionKey":{"paths":["/pk"]},"defaultTtl":-1}`)
	ctx := context.Background()
	// The change log's records are counted at commit; on PostgreSQL they
	// reach the scanned keys when the log is numbered (kv.Settle).
	recount := func(what string) {
		t.Helper()
		if err := s.SettleLogs(ctx); err != nil {
			t.Fatal(err)
		}
		recountStore(what)
	}
	ref := CollectionRef{DB: "db", Coll: "items"}
	pk := pkOf(t, "p")
	doc := func(id string, size int, ttl string) []byte {
		return fmt.Appendf(nil, `{"id":%q,"pk":"p","pad":%q%s}`, id, strings.Repeat("x", size), ttl)
	}
	large := itemChunkSize*2 + 100 // three pieces
	for i, size := range []int{10, large, 300, large} {
		id := fmt.Sprintf("c%d", i)
		if _, err := s.CreateItem(ctx, ref, pk, doc(id, size, ""), ItemOptions{}); err != nil {
			t.Fatal(err)
		}
		recount("create " + id)
		if _, err := s.CreateItem(ctx, ref, pk, doc(id, 5, ""), ItemOptions{}); !errors.Is(err, ErrConflict) {
			t.Fatalf("a second create of %s: %v, want a conflict", id, err)
		}
		recount("a refused create of " + id)
		id = fmt.Sprintf("u%d", i)
		if _, created, err := s.UpsertItem(ctx, ref, pk, doc(id, size, ""), ItemOptions{}); err != nil || !created {
			t.Fatalf("upsert of a new %s: created %v, %v", id, created, err)
		}
		recount("upsert creating " + id)
	}
	// Items that expire, then are created again in their place: the
	// create removes the expired version (pieces and all) and inserts.
	for i, size := range []int{20, large} {
		id := fmt.Sprintf("e%d", i)
		if _, err := s.CreateItem(ctx, ref, pk, doc(id, size, `,"ttl":5`), ItemOptions{}); err != nil {
			t.Fatal(err)
		}
		recount("create of expiring " + id)
	}
	clock.Advance(10 * time.Second)
	for i, size := range []int{large, 30} {
		id := fmt.Sprintf("e%d", i)
		if _, err := s.CreateItem(ctx, ref, pk, doc(id, size, ""), ItemOptions{}); err != nil {
			t.Fatalf("create over expired %s: %v", id, err)
		}
		recount("create over expired " + id)
	}
	// Replaces still clear what the version they replace stored.
	for _, id := range []string{"c1", "c2"} {
		if _, err := s.ReplaceItem(ctx, ItemRef{CollectionRef: ref, PartitionKey: pk, ID: id}, doc(id, 40, ""), ItemOptions{}); err != nil {
			t.Fatal(err)
		}
		recount("replace " + id)
	}
	for _, id := range []string{"c1", "u1", "e0", "e1"} {
		if _, err := s.DeleteItem(ctx, ItemRef{CollectionRef: ref, PartitionKey: pk, ID: id}, ItemOptions{}); err != nil {
			t.Fatal(err)
		}
		recount("delete " + id)
	}
}
