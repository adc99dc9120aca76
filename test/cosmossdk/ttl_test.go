package cosmossdk

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestTimeToLive: with defaultTtl items expire that long after their last
// write (an item's own ttl overrides, -1 never expires); an expired item
// is gone for reads, queries and unique keys, and its id can be reused.
func TestTimeToLive(t *testing.T) {
	clock := testkit.NewClock(time.Now())
	env := servertest.Start(t, servertest.WithClock(clock.Now))
	c := newClient(t, env)
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	ttl := int32(10)
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{
		ID:                     "ttl",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		DefaultTimeToLive:      &ttl,
		UniqueKeyPolicy:        &azcosmos.UniqueKeyPolicy{UniqueKeys: []azcosmos.UniqueKey{{Paths: []string{"/email"}}}},
	}, nil); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("ttl")
	pk := azcosmos.NewPartitionKeyString("p")
	for _, it := range []map[string]any{
		{"id": "short", "pk": "p", "email": "a@x"},
		{"id": "forever", "pk": "p", "ttl": -1, "email": "f@x"},
		{"id": "long", "pk": "p", "ttl": 100, "email": "l@x"},
	} {
		if _, err := cc.CreateItem(ctx, pk, mustJSON(t, it), nil); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(11 * time.Second)
	if _, err := cc.ReadItem(ctx, pk, "short", nil); statusOf(err) != http.StatusNotFound {
		t.Fatalf("expired item read: %v", err)
	}
	for _, id := range []string{"forever", "long"} {
		if _, err := cc.ReadItem(ctx, pk, id, nil); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	if ids := queryIDs(t, cc, "SELECT * FROM c", pk); len(ids) != 2 {
		t.Fatalf("query after expiry: %v", ids)
	}
	// The expired item's unique key and id are free again.
	if _, err := cc.CreateItem(ctx, pk, mustJSON(t, map[string]any{"id": "other", "pk": "p", "email": "a@x"}), nil); err != nil {
		t.Fatalf("unique key of an expired item: %v", err)
	}
	if _, err := cc.CreateItem(ctx, pk, mustJSON(t, map[string]any{"id": "short", "pk": "p", "email": "b@x"}), nil); err != nil {
		t.Fatalf("id of an expired item: %v", err)
	}
	clock.Advance(100 * time.Second)
	if _, err := cc.ReadItem(ctx, pk, "long", nil); statusOf(err) != http.StatusNotFound {
		t.Fatalf("item with ttl 100 after 111 s: %v", err)
	}
	if _, err := cc.ReadItem(ctx, pk, "forever", nil); err != nil {
		t.Fatalf("item with ttl -1: %v", err)
	}
}
