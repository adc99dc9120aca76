package cosmossdk

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestContainerThroughputReadReplace: a container created with manual
// throughput reads it back through /offers, a replace changes it (and a
// stale If-Match does not), and the offer goes with the container.
func TestContainerThroughputReadReplace(t *testing.T) {
	env, c, _ := setup(t)
	ctx := context.Background()
	db, _ := c.NewDatabase("db")
	manual := azcosmos.NewManualThroughputProperties(400)
	cc := createWithThroughput(t, db, "manual", manual)
	r := readThroughput(t, cc)
	if n, ok := r.ThroughputProperties.ManualThroughput(); !ok || n != 400 {
		t.Fatalf("manual throughput = %d, %v", n, ok)
	}
	if _, ok := r.ThroughputProperties.AutoscaleMaxThroughput(); ok {
		t.Fatal("a manual offer reports autoscale")
	}
	if r.MinThroughput == nil || *r.MinThroughput != 400 || r.IsReplacePending {
		t.Fatalf("min throughput %v, replace pending %v", r.MinThroughput, r.IsReplacePending)
	}
	staleETag := r.ThroughputProperties.ETag

	rr, err := cc.ReplaceThroughput(ctx, azcosmos.NewManualThroughputProperties(1200), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := rr.ThroughputProperties.ManualThroughput(); n != 1200 {
		t.Fatalf("replaced throughput = %d", n)
	}
	if *rr.ThroughputProperties.ETag == *staleETag {
		t.Fatal("the offer's etag did not change on replace")
	}
	r = readThroughput(t, cc)
	if n, _ := r.ThroughputProperties.ManualThroughput(); n != 1200 {
		t.Fatalf("read after replace = %d", n)
	}
	if _, err := cc.ReplaceThroughput(ctx, azcosmos.NewManualThroughputProperties(450), nil); statusOf(err) != http.StatusBadRequest {
		t.Fatalf("450 RU/s: %v, want 400", err)
	}
	if _, err := cc.ReplaceThroughput(ctx, azcosmos.NewAutoscaleThroughputProperties(4000), nil); statusOf(err) != http.StatusBadRequest {
		t.Fatalf("manual to autoscale by replace: %v, want 400", err)
	}
	if _, err := cc.ReplaceThroughput(ctx, azcosmos.NewManualThroughputProperties(500), &azcosmos.ThroughputOptions{IfMatchEtag: staleETag}); statusOf(err) != http.StatusPreconditionFailed {
		t.Fatalf("stale If-Match: %v, want 412", err)
	}

	// A container without throughput has no offer: the SDK answers 404.
	plain, _ := db.NewContainer("items")
	if _, err := plain.ReadThroughput(ctx, nil); statusOf(err) != http.StatusNotFound {
		t.Fatalf("container without throughput: %v, want 404", err)
	}

	if _, err := cc.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	resp, body := send(t, env, rawRequest{method: "GET", path: "/offers", resourceType: "offers"})
	var feed struct{ Offers []map[string]any }
	if err := json.Unmarshal(body, &feed); err != nil || resp.StatusCode != 200 {
		t.Fatalf("list offers: %d %s", resp.StatusCode, body)
	}
	if len(feed.Offers) != 0 {
		t.Fatalf("offers left after the container's delete: %v", feed.Offers)
	}
}

// TestAutoscaleThroughput: autoscale at container and database create, as
// the SDK sends x-ms-cosmos-offer-autopilot-settings, read and replaced.
func TestAutoscaleThroughput(t *testing.T) {
	_, c, _ := setup(t)
	ctx := context.Background()
	db, _ := c.NewDatabase("db")
	auto := azcosmos.NewAutoscaleThroughputPropertiesWithIncrement(5000, 10)
	cc := createWithThroughput(t, db, "auto", auto)
	r := readThroughput(t, cc)
	if n, ok := r.ThroughputProperties.AutoscaleMaxThroughput(); !ok || n != 5000 {
		t.Fatalf("autoscale max = %d, %v", n, ok)
	}
	if inc, ok := r.ThroughputProperties.AutoscaleIncrement(); !ok || inc != 10 {
		t.Fatalf("autoscale increment = %d, %v", inc, ok)
	}
	if _, err := cc.ReplaceThroughput(ctx, azcosmos.NewAutoscaleThroughputProperties(10000), nil); err != nil {
		t.Fatal(err)
	}
	r = readThroughput(t, cc)
	if n, _ := r.ThroughputProperties.AutoscaleMaxThroughput(); n != 10000 {
		t.Fatalf("autoscale max after replace = %d", n)
	}

	shared := azcosmos.NewManualThroughputProperties(800)
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "shared"}, &azcosmos.CreateDatabaseOptions{ThroughputProperties: &shared}); err != nil {
		t.Fatal(err)
	}
	sdb, _ := c.NewDatabase("shared")
	dr, err := sdb.ReadThroughput(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := dr.ThroughputProperties.ManualThroughput(); n != 800 {
		t.Fatalf("database throughput = %d", n)
	}
	if _, err := sdb.ReplaceThroughput(ctx, azcosmos.NewManualThroughputProperties(900), nil); err != nil {
		t.Fatal(err)
	}

	bad := azcosmos.NewAutoscaleThroughputProperties(1500)
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "bad", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}},
		&azcosmos.CreateContainerOptions{ThroughputProperties: &bad}); statusOf(err) != http.StatusBadRequest {
		t.Fatalf("autoscale max 1500: %v, want 400", err)
	}
	badc, _ := db.NewContainer("bad")
	if _, err := badc.Read(ctx, nil); statusOf(err) != http.StatusNotFound {
		t.Fatalf("a refused create left a container: %v", err)
	}
}

// createWithThroughput creates container id in db, partitioned on /pk,
// with the offer tp.
func createWithThroughput(t *testing.T, db *azcosmos.DatabaseClient, id string, tp azcosmos.ThroughputProperties) *azcosmos.ContainerClient {
	t.Helper()
	if _, err := db.CreateContainer(t.Context(), azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}},
		&azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer(id)
	return cc
}

// readThroughput is the container's offer as Read Throughput reports it.
func readThroughput(t *testing.T, cc *azcosmos.ContainerClient) azcosmos.ThroughputResponse {
	t.Helper()
	r, err := cc.ReadThroughput(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
