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

// TestTimeToLiveValidation: a container's defaultTtl and an item's ttl
// must be -1 or a whole number of seconds from 1 to 2^31-1, as Azure
// requires (the .NET SDK documents both as "a nonzero positive integer,
// '-1', or null"; the time-to-live article says an item's ttl may not be
// null; the JavaScript SDK's TTL test, run against Azure, has a defaultTtl
// of 0 or -10 and an item ttl of null or -10 refused with 400). Leaving
// them out is always fine.
func TestTimeToLiveValidation(t *testing.T) {
	_, c, _ := setup(t)
	ctx := context.Background()
	db, _ := c.NewDatabase("db")
	for _, bad := range []int32{0, -10} {
		if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{
			ID: "bad", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}, DefaultTimeToLive: &bad,
		}, nil); statusOf(err) != http.StatusBadRequest {
			t.Fatalf("defaultTtl %d: %v, want 400", bad, err)
		}
	}
	ttl := int32(100)
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{
		ID: "ttl", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}, DefaultTimeToLive: &ttl,
	}, nil); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("ttl")
	props, err := cc.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	zero := int32(0)
	props.ContainerProperties.DefaultTimeToLive = &zero
	if _, err := cc.Replace(ctx, *props.ContainerProperties, nil); statusOf(err) != http.StatusBadRequest {
		t.Fatalf("replace with defaultTtl 0: %v, want 400", err)
	}
	pk := azcosmos.NewPartitionKeyString("p")
	for i, bad := range []string{`0`, `-5`, `2147483648`, `null`, `1.5`, `"5"`} {
		body := []byte(`{"id":"bad` + string(rune('a'+i)) + `","pk":"p","ttl":` + bad + `}`)
		if _, err := cc.CreateItem(ctx, pk, body, nil); statusOf(err) != http.StatusBadRequest {
			t.Errorf("item ttl %s: %v, want 400", bad, err)
		}
		if _, err := cc.UpsertItem(ctx, pk, body, nil); statusOf(err) != http.StatusBadRequest {
			t.Errorf("upsert with item ttl %s: %v, want 400", bad, err)
		}
	}
	for i, good := range []string{`-1`, `1`, `2147483647`} {
		body := []byte(`{"id":"good` + string(rune('a'+i)) + `","pk":"p","ttl":` + good + `}`)
		if _, err := cc.CreateItem(ctx, pk, body, nil); err != nil {
			t.Errorf("item ttl %s: %v", good, err)
		}
	}
	ops := azcosmos.PatchOperations{}
	ops.AppendSet("/ttl", 0)
	if _, err := cc.PatchItem(ctx, pk, "gooda", ops, nil); statusOf(err) != http.StatusBadRequest {
		t.Errorf("patch ttl to 0: %v, want 400", err)
	}
}
