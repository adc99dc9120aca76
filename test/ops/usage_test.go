package ops

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	fileservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/cerulean-db/cerulean/internal/kv/usage"
	"github.com/cerulean-db/cerulean/internal/server"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

// TestStoredCountsFollowAMixedWorkload: after creating, overwriting and
// deleting blobs, messages, entities, files, items and documents, and
// deleting whole containers, queues, tables, shares and databases (range
// deletions), the counts the store keeps equal a full scan, and /metrics
// answers them.
func TestStoredCountsFollowAMixedWorkload(t *testing.T) {
	env := servertest.Start(t, servertest.WithDataDir(t.TempDir()))
	ctx := context.Background()

	c := blobClient(t, env)
	must(t, err2(c.CreateContainer(ctx, "keep", nil)))
	must(t, err2(c.CreateContainer(ctx, "drop", nil)))
	for i := range 5 {
		name := fmt.Sprintf("b%d", i)
		must(t, err2(c.UploadBuffer(ctx, "keep", name, bytes.Repeat([]byte("x"), 1000*(i+1)), nil)))
		must(t, err2(c.UploadBuffer(ctx, "drop", name, bytes.Repeat([]byte("x"), 300000), nil)))
	}
	must(t, err2(c.UploadBuffer(ctx, "keep", "b1", []byte("overwritten"), nil)))
	must(t, err2(c.UploadBuffer(ctx, "keep", "b2", bytes.Repeat([]byte("z"), 700000), nil)))
	must(t, err2(c.DeleteBlob(ctx, "keep", "b3", nil)))
	must(t, err2(c.DeleteContainer(ctx, "drop", nil)))

	queues, err := azqueue.NewServiceClientFromConnectionString(env.ConnectionString, nil)
	must(t, err)
	must(t, err2(queues.CreateQueue(ctx, "keep", nil)))
	must(t, err2(queues.CreateQueue(ctx, "drop", nil)))
	q := queues.NewQueueClient("keep")
	for i := range 4 {
		must(t, err2(q.EnqueueMessage(ctx, fmt.Sprintf("m%d", i), nil)))
		must(t, err2(queues.NewQueueClient("drop").EnqueueMessage(ctx, "m", nil)))
	}
	got, err := q.DequeueMessage(ctx, nil)
	must(t, err)
	must(t, err2(q.DeleteMessage(ctx, *got.Messages[0].MessageID, *got.Messages[0].PopReceipt, nil)))
	must(t, err2(queues.DeleteQueue(ctx, "drop", nil)))

	tables, err := aztables.NewServiceClientFromConnectionString(env.ConnectionString, nil)
	must(t, err)
	must(t, err2(tables.CreateTable(ctx, "keep", nil)))
	must(t, err2(tables.CreateTable(ctx, "drop", nil)))
	tc := tables.NewClient("keep")
	for i := range 4 {
		e := fmt.Appendf(nil, `{"PartitionKey":"p","RowKey":"r%d","A":%q}`, i, strings.Repeat("a", 30000*(i%2)))
		must(t, err2(tc.AddEntity(ctx, e, nil)))
		must(t, err2(tables.NewClient("drop").AddEntity(ctx, e, nil)))
	}
	must(t, err2(tc.UpsertEntity(ctx, []byte(`{"PartitionKey":"p","RowKey":"r1","A":"short now"}`), nil)))
	must(t, err2(tc.DeleteEntity(ctx, "p", "r2", nil)))
	must(t, err2(tables.DeleteTable(ctx, "drop", nil)))

	shares, err := fileservice.NewClientFromConnectionString(env.ConnectionString, nil)
	must(t, err)
	for _, name := range []string{"keep", "drop"} {
		share := shares.NewShareClient(name)
		must(t, err2(share.Create(ctx, nil)))
		dir := share.NewRootDirectoryClient().NewSubdirectoryClient("dir")
		must(t, err2(dir.Create(ctx, nil)))
		for i := range 3 {
			writeFile(t, dir.NewFileClient(fmt.Sprintf("f%d", i)), bytes.Repeat([]byte("f"), 5000*(i+1)))
		}
	}
	keep := shares.NewShareClient("keep").NewRootDirectoryClient().NewSubdirectoryClient("dir")
	writeFile(t, keep.NewFileClient("f0"), []byte("again"))
	must(t, err2(keep.NewFileClient("f1").Delete(ctx, nil)))
	must(t, err2(shares.NewShareClient("drop").Delete(ctx, nil)))

	cred, _ := azcosmos.NewKeyCredential(env.CosmosKey)
	cosmos, err := azcosmos.NewClientWithKey(env.CosmosURL, cred, nil)
	must(t, err)
	for _, name := range []string{"keep", "drop"} {
		must(t, err2(cosmos.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: name}, nil)))
		db, _ := cosmos.NewDatabase(name)
		must(t, err2(db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c",
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil)))
		items, _ := db.NewContainer("c")
		for i, size := range []int{10, 300000, 20} {
			item := fmt.Appendf(nil, `{"id":"i%d","pk":"p","pad":%q}`, i, strings.Repeat("z", size))
			must(t, err2(items.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), item, nil)))
		}
	}
	db, _ := cosmos.NewDatabase("keep")
	items, _ := db.NewContainer("c")
	pk := azcosmos.NewPartitionKeyString("p")
	must(t, err2(items.ReplaceItem(ctx, pk, "i1", []byte(`{"id":"i1","pk":"p","pad":"small"}`), nil)))
	must(t, err2(items.UpsertItem(ctx, pk, []byte(`{"id":"i2","pk":"p","pad":"`+strings.Repeat("w", 200000)+`"}`), nil)))
	must(t, err2(items.DeleteItem(ctx, pk, "i0", nil)))
	drop, _ := cosmos.NewDatabase("drop")
	must(t, err2(drop.Delete(ctx, nil)))

	for _, name := range []string{"keep", "drop"} {
		searchPut(t, env, "/indexes/"+name, `{"name":"`+name+`","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"t","type":"Edm.String","searchable":true}]}`)
		searchPost(t, env, "/indexes/"+name+"/docs/index", `{"value":[{"@search.action":"upload","id":"1","t":"one"},{"@search.action":"upload","id":"2","t":"two"},{"@search.action":"upload","id":"3","t":"three"}]}`)
	}
	searchPost(t, env, "/indexes/keep/docs/index", `{"value":[{"@search.action":"merge","id":"1","t":"one, longer now"},{"@search.action":"delete","id":"2"}]}`)
	searchDo(t, env, "DELETE", "/indexes/drop", "")

	store := env.Store.(*usage.Store)
	kept, ready, err := store.Counts(ctx)
	must(t, err)
	scanned, err := usage.Scan(ctx, env.Store, server.StoredData)
	must(t, err)
	if !ready {
		t.Fatal("the counts of a store that started empty are not ready")
	}
	fams := scrape(t, env)
	for _, sp := range server.StoredData {
		k, s := kept[sp.Name], scanned[sp.Name]
		if k != s {
			t.Errorf("%s: kept %+v, a scan finds %+v", sp.Name, k, s)
		}
		if s.Objects == 0 {
			t.Errorf("%s: no objects left: the workload deleted more than it meant to", sp.Name)
		}
		labels := map[string]string{"service": sp.Name}
		if got := value(fams, "cerulean_stored_bytes", labels); got != float64(s.Bytes) {
			t.Errorf("%s: /metrics says %v bytes, a scan finds %d", sp.Name, got, s.Bytes)
		}
		if got := value(fams, "cerulean_stored_objects", labels); got != float64(s.Objects) {
			t.Errorf("%s: /metrics says %v objects, a scan finds %d", sp.Name, got, s.Objects)
		}
	}
}

// writeFile creates f (again) with data in it.
func writeFile(t *testing.T, f *file.Client, data []byte) {
	t.Helper()
	ctx := context.Background()
	must(t, err2(f.Create(ctx, int64(len(data)), nil)))
	must(t, err2(f.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader(data)), nil)))
}
