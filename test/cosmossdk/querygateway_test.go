package cosmossdk

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// fill creates items 0…n-1 spread over partitions p0…p3, with n = i.
func fill(t *testing.T, cc *azcosmos.ContainerClient, n int) {
	t.Helper()
	for i := range n {
		pk := "p" + strconv.Itoa(i%4)
		if _, err := cc.CreateItem(context.Background(), azcosmos.NewPartitionKeyString(pk), mustJSON(t, map[string]any{"id": strconv.Itoa(i), "pk": pk, "n": i, "grp": i % 3}), nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestQueryMetrics: the Go SDK asks for query metrics on every query and
// for index metrics when told to; the page carries both in the gateway's
// formats.
func TestQueryMetrics(t *testing.T) {
	_, _, cc := setup(t)
	ctx := context.Background()
	fill(t, cc, 12)
	pager := cc.NewQueryItemsPager("SELECT * FROM c WHERE c.n >= 4 AND c.pk = 'p0'", azcosmos.NewPartitionKeyString("p0"),
		&azcosmos.QueryOptions{PopulateIndexMetrics: true, PageSizeHint: 1})
	page, err := pager.NextPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if page.QueryMetrics == nil {
		t.Fatal("no x-ms-documentdb-query-metrics on a query that asked for it")
	}
	metrics := map[string]string{}
	for _, kv := range strings.Split(*page.QueryMetrics, ";") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("malformed metric %q in %q", kv, *page.QueryMetrics)
		}
		metrics[k] = v
	}
	for _, k := range []string{"totalExecutionTimeInMs", "queryCompileTimeInMs", "queryLogicalPlanBuildTimeInMs",
		"queryPhysicalPlanBuildTimeInMs", "queryOptimizationTimeInMs", "VMExecutionTimeInMs", "indexLookupTimeInMs",
		"documentLoadTimeInMs", "systemFunctionExecuteTimeInMs", "userFunctionExecuteTimeInMs", "writeOutputTimeInMs"} {
		if _, err := strconv.ParseFloat(metrics[k], 64); err != nil {
			t.Errorf("metric %s = %q, want milliseconds", k, metrics[k])
		}
	}
	// Partition p0 holds 0, 4, 8; the filter keeps 4 and 8; the page holds one.
	if metrics["retrievedDocumentCount"] != "3" || metrics["outputDocumentCount"] != "1" || metrics["indexUtilizationRatio"] != "0.33" {
		t.Errorf("metrics %q: want 3 retrieved, 1 output, ratio 0.33", *page.QueryMetrics)
	}
	if n, err := strconv.Atoi(metrics["outputDocumentSize"]); err != nil || n != len(page.Items[0]) {
		t.Errorf("outputDocumentSize %q, want %d", metrics["outputDocumentSize"], len(page.Items[0]))
	}
	if page.IndexMetrics == nil {
		t.Fatal("no x-ms-cosmos-index-utilization with PopulateIndexMetrics")
	}
	raw, err := base64.StdEncoding.DecodeString(*page.IndexMetrics)
	if err != nil {
		t.Fatalf("index metrics %q: %v", *page.IndexMetrics, err)
	}
	im := decode(t, raw)
	used, _ := im["UtilizedSingleIndexes"].([]any)
	if len(used) != 2 || used[0].(map[string]any)["IndexSpec"] != "/n/?" || used[1].(map[string]any)["IndexSpec"] != "/pk/?" {
		t.Errorf("index metrics %s", raw)
	}
	for _, k := range []string{"PotentialSingleIndexes", "UtilizedCompositeIndexes", "PotentialCompositeIndexes"} {
		if _, ok := im[k].([]any); !ok {
			t.Errorf("index metrics lack %s: %s", k, raw)
		}
	}
	// Without PopulateIndexMetrics there is no index utilization.
	plain, err := cc.NewQueryItemsPager("SELECT * FROM c", azcosmos.NewPartitionKeyString("p0"), nil).NextPage(ctx)
	if err != nil || plain.IndexMetrics != nil || plain.QueryMetrics == nil {
		t.Fatalf("plain query: %v index metrics %v", err, plain.IndexMetrics)
	}
}

// TestCrossPartitionQueryWithoutPlan: the Go SDK sends cross-partition
// queries to the gateway without a query plan. As Cosmos DB's gateway,
// cerulean serves projections and filters across partitions, and a query
// pinned to one partition by its filter; a query needing state across
// partitions is 400 with sub-status 1004; with cross-partition queries
// disabled, one spanning partitions is 400.
func TestCrossPartitionQueryWithoutPlan(t *testing.T) {
	env, _, cc := setup(t)
	ctx := context.Background()
	fill(t, cc, 12)
	all := azcosmos.NewPartitionKey()
	if ids := queryIDs(t, cc, "SELECT c.id FROM c WHERE c.n >= 6", all); len(ids) != 6 {
		t.Fatalf("filter across partitions: %v", ids)
	}
	if ids := queryIDs(t, cc, "SELECT * FROM c WHERE c.pk = @pk ORDER BY c.n DESC", all, azcosmos.QueryParameter{Name: "@pk", Value: "p1"}); strings.Join(ids, ",") != "9,5,1" {
		t.Fatalf("ORDER BY pinned to p1 by the filter: %v", ids)
	}
	for _, q := range []string{
		"SELECT * FROM c ORDER BY c.n",
		"SELECT TOP 3 * FROM c",
		"SELECT VALUE COUNT(1) FROM c",
		"SELECT DISTINCT c.grp FROM c",
		"SELECT c.grp, COUNT(1) AS n FROM c GROUP BY c.grp",
		"SELECT * FROM c OFFSET 2 LIMIT 3",
		"SELECT * FROM c WHERE c.pk = 'p1' OR c.pk = 'p2' ORDER BY c.n",
	} {
		_, err := cc.NewQueryItemsPager(q, all, nil).NextPage(ctx)
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.StatusCode != http.StatusBadRequest || re.RawResponse.Header.Get("x-ms-substatus") != "1004" ||
			!strings.Contains(err.Error(), "can not be directly served by the gateway") {
			t.Errorf("%s: %v, want 400 with sub-status 1004", q, err)
		}
	}
	// The refusal carries the query plan, which the JavaScript SDK looks
	// for before running the query through its plan.
	resp, body := send(t, env, rawRequest{
		method: http.MethodPost, path: "/dbs/db/colls/items/docs", resourceType: "docs", link: "dbs/db/colls/items",
		body: []byte(`{"query":"SELECT * FROM c ORDER BY c.n","parameters":[]}`),
		header: map[string]string{
			"Content-Type": "application/query+json", "x-ms-documentdb-isquery": "true",
			"x-ms-documentdb-query-enablecrosspartition": "true",
		},
	})
	info, _ := decode(t, body)["additionalErrorInfo"].(string)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(info, `"partitionedQueryExecutionInfoVersion":2`) {
		t.Fatalf("refusal: %d %s", resp.StatusCode, body)
	}
	off := false
	_, err := cc.NewQueryItemsPager("SELECT * FROM c", all, &azcosmos.QueryOptions{EnableCrossPartitionQuery: &off}).NextPage(ctx)
	if statusOf(err) != http.StatusBadRequest || !strings.Contains(err.Error(), "Cross partition query is required but disabled") {
		t.Fatalf("cross-partition disabled: %v", err)
	}
	// An SDK that ran the query plan sends the query to a partition key
	// range; the gateway runs it there.
	resp, body = send(t, env, rawRequest{
		method: http.MethodPost, path: "/dbs/db/colls/items/docs", resourceType: "docs", link: "dbs/db/colls/items",
		body: []byte(`{"query":"SELECT VALUE c.n FROM c ORDER BY c.n DESC","parameters":[]}`),
		header: map[string]string{
			"Content-Type": "application/query+json", "x-ms-documentdb-isquery": "true",
			"x-ms-documentdb-query-enablecrosspartition": "true", "x-ms-documentdb-partitionkeyrangeid": "0",
		},
	})
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"Documents":[11,10,9,8,7,6,5,4,3,2,1,0]`) {
		t.Fatalf("query on partition key range 0: %d %s", resp.StatusCode, body)
	}
}
