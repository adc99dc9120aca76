package cosmossdk

import (
	"context"
	"net/http"
	"sort"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func snapshotPartition(t *testing.T, cc *azcosmos.ContainerClient, pk azcosmos.PartitionKey) []string {
	t.Helper()
	pager := cc.NewQueryItemsPager("SELECT * FROM c", pk, nil)
	var out []string
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			d := decode(t, it)
			out = append(out, d["id"].(string)+"@"+d["_etag"].(string))
		}
	}
	sort.Strings(out)
	return out
}

func TestTransactionalBatchCommitsAll(t *testing.T) {
	_, _, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("b")
	if _, err := cc.CreateItem(ctx, pk, mustJSON(t, map[string]any{"id": "old", "pk": "b", "v": 1}), nil); err != nil {
		t.Fatal(err)
	}
	b := cc.NewTransactionalBatch(pk)
	b.CreateItem(mustJSON(t, map[string]any{"id": "n1", "pk": "b"}), nil)
	b.UpsertItem(mustJSON(t, map[string]any{"id": "n2", "pk": "b"}), nil)
	b.ReadItem("old", nil)
	ops := azcosmos.PatchOperations{}
	ops.AppendIncrement("/v", 1)
	b.PatchItem("old", ops, nil)
	b.DeleteItem("n2", nil)
	resp, err := cc.ExecuteTransactionalBatch(ctx, b, nil)
	if err != nil || !resp.Success {
		t.Fatalf("batch: %v success=%v", err, resp.Success)
	}
	want := []int32{201, 201, 200, 200, 204}
	for i, r := range resp.OperationResults {
		if r.StatusCode != want[i] {
			t.Errorf("op %d status %d, want %d", i, r.StatusCode, want[i])
		}
	}
	if len(resp.OperationResults[2].ResourceBody) == 0 {
		t.Error("batch read returned no body")
	}
	got := snapshotPartition(t, cc, pk)
	if len(got) != 2 {
		t.Fatalf("partition after batch: %v", got)
	}
}

// TestTransactionalBatchIsAtomic: the 3rd of 5 operations conflicts; the
// batch answers 207 with 409 for it and 424 for the others, and the
// partition is exactly as before.
func TestTransactionalBatchIsAtomic(t *testing.T) {
	_, _, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("b")
	for _, id := range []string{"exists", "victim"} {
		if _, err := cc.CreateItem(ctx, pk, mustJSON(t, map[string]any{"id": id, "pk": "b"}), nil); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshotPartition(t, cc, pk)

	b := cc.NewTransactionalBatch(pk)
	b.CreateItem(mustJSON(t, map[string]any{"id": "new1", "pk": "b"}), nil)
	b.ReplaceItem("victim", mustJSON(t, map[string]any{"id": "victim", "pk": "b", "changed": true}), nil)
	b.CreateItem(mustJSON(t, map[string]any{"id": "exists", "pk": "b"}), nil) // conflicts
	b.DeleteItem("victim", nil)
	b.UpsertItem(mustJSON(t, map[string]any{"id": "new2", "pk": "b"}), nil)
	resp, err := cc.ExecuteTransactionalBatch(ctx, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Success || resp.RawResponse.StatusCode != http.StatusMultiStatus {
		t.Fatalf("batch with a conflict: success=%v status=%d", resp.Success, resp.RawResponse.StatusCode)
	}
	for i, r := range resp.OperationResults {
		want := int32(http.StatusFailedDependency)
		if i == 2 {
			want = http.StatusConflict
		}
		if r.StatusCode != want {
			t.Errorf("op %d status %d, want %d", i, r.StatusCode, want)
		}
	}
	if after := snapshotPartition(t, cc, pk); len(after) != len(before) || after[0] != before[0] || after[1] != before[1] {
		t.Fatalf("partition changed by a failed batch:\nbefore %v\nafter  %v", before, after)
	}

	// A stale If-Match inside a batch fails it with 412.
	r, _ := cc.ReadItem(ctx, pk, "victim", nil)
	stale := r.ETag
	if _, err := cc.UpsertItem(ctx, pk, mustJSON(t, map[string]any{"id": "victim", "pk": "b", "v": 2}), nil); err != nil {
		t.Fatal(err)
	}
	b = cc.NewTransactionalBatch(pk)
	b.CreateItem(mustJSON(t, map[string]any{"id": "new3", "pk": "b"}), nil)
	b.DeleteItem("victim", &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &stale})
	resp, err = cc.ExecuteTransactionalBatch(ctx, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Success || resp.OperationResults[1].StatusCode != http.StatusPreconditionFailed || resp.OperationResults[0].StatusCode != http.StatusFailedDependency {
		t.Fatalf("stale If-Match in batch: %+v", resp.OperationResults)
	}
	if _, err := cc.ReadItem(ctx, pk, "new3", nil); statusOf(err) != http.StatusNotFound {
		t.Fatalf("new3 exists after a failed batch: %v", err)
	}
}
