package cosmossdk

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// includedAndExcluded flattens a policy's paths for comparison.
func includedAndExcluded(p *azcosmos.IndexingPolicy) string {
	var in, ex []string
	for _, i := range p.IncludedPaths {
		in = append(in, i.Path)
	}
	for _, e := range p.ExcludedPaths {
		ex = append(ex, e.Path)
	}
	return fmt.Sprintf("included %q excluded %q", in, ex)
}

// TestIndexingPolicyForms: the indexing policies Azure accepts, through
// the Go SDK. A partial policy is completed and echoed as Azure echoes it
// (the JavaScript SDK's container tests, test/public/functional/container.spec.ts,
// run against Azure: "/*" included, `/"_etag"/?` excluded after the
// paths given); the legacy root path "/" of the 3.x SDKs' query tests is
// accepted and queries are served over it; spatial indexes are kept; a
// container read with quota info carries the index transformation
// progress header.
func TestIndexingPolicyForms(t *testing.T) {
	_, c, _ := setup(t)
	ctx := context.Background()
	db, _ := c.NewDatabase("db")
	create := func(id string, p *azcosmos.IndexingPolicy) *azcosmos.ContainerProperties {
		t.Helper()
		resp, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{
			ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}, IndexingPolicy: p,
		}, nil)
		if err != nil {
			t.Fatalf("create %s: %v", id, err)
		}
		if resp.ContainerProperties == nil || resp.ContainerProperties.IndexingPolicy == nil {
			t.Fatalf("create %s: no indexing policy echoed", id)
		}
		return resp.ContainerProperties
	}
	const defaults = `included ["/*"] excluded ["/\"_etag\"/?"]`
	if got := create("none", nil).IndexingPolicy; includedAndExcluded(got) != defaults || !got.Automatic || !strings.EqualFold(string(got.IndexingMode), string(azcosmos.IndexingModeConsistent)) {
		t.Errorf("no policy: %s automatic %v mode %q", includedAndExcluded(got), got.Automatic, got.IndexingMode)
	}
	partial := create("partial", &azcosmos.IndexingPolicy{Automatic: true, ExcludedPaths: []azcosmos.ExcludedPath{{Path: `/"systemMetadata"/*`}}})
	if got, want := includedAndExcluded(partial.IndexingPolicy), `included ["/*"] excluded ["/\"systemMetadata\"/*" "/\"_etag\"/?"]`; got != want {
		t.Errorf("partial policy echoed as %s, want %s", got, want)
	}
	cc, _ := db.NewContainer("partial")
	read, err := cc.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := includedAndExcluded(read.ContainerProperties.IndexingPolicy); got != includedAndExcluded(partial.IndexingPolicy) {
		t.Errorf("read back %s, created %s", got, includedAndExcluded(partial.IndexingPolicy))
	}

	legacy := create("legacy", &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
		IncludedPaths: []azcosmos.IncludedPath{{Path: "/"}}})
	if got := legacy.IndexingPolicy.IncludedPaths; len(got) != 1 || got[0].Path != "/" {
		t.Errorf("legacy root path echoed as %s", includedAndExcluded(legacy.IndexingPolicy))
	}
	lc, _ := db.NewContainer("legacy")
	pk := azcosmos.NewPartitionKeyString("p")
	for i := range 6 {
		if _, err := lc.CreateItem(ctx, pk, mustJSON(t, map[string]any{"id": fmt.Sprint("d", i), "pk": "p", "n": 5 - i}), nil); err != nil {
			t.Fatal(err)
		}
	}
	if ids := queryIDs(t, lc, "SELECT * FROM c WHERE c.n >= 3 ORDER BY c.n", pk); fmt.Sprint(ids) != "[d2 d1 d0]" {
		t.Errorf("query over the legacy policy: %v", ids)
	}

	spatial := create("spatial", &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
		SpatialIndexes: []azcosmos.SpatialIndex{{Path: "/location/?", SpatialTypes: []azcosmos.SpatialType{azcosmos.SpatialTypePoint, azcosmos.SpatialTypePolygon}}}})
	if got := spatial.IndexingPolicy.SpatialIndexes; len(got) != 1 || got[0].Path != "/location/?" || fmt.Sprint(got[0].SpatialTypes) != "[Point Polygon]" {
		t.Errorf("spatial indexes echoed as %+v", got)
	}
	if got := includedAndExcluded(spatial.IndexingPolicy); got != defaults {
		t.Errorf("spatial-only policy completed as %s", got)
	}

	sc, _ := db.NewContainer("spatial")
	withQuota, err := sc.Read(ctx, &azcosmos.ReadContainerOptions{PopulateQuotaInfo: true})
	if err != nil {
		t.Fatal(err)
	}
	if withQuota.RawResponse.Header.Get("x-ms-documentdb-collection-index-transformation-progress") == "" {
		t.Errorf("no index transformation progress on a read with quota info: %v", withQuota.RawResponse.Header)
	}
}
