package upgrade_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	fileservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// manifest is what a data directory holds, as the SDKs see it.
type manifest struct {
	Containers []containerFixture `json:"containers"`
	Queues     []queueFixture     `json:"queues"`
	Tables     []tableFixture     `json:"tables"`
	Databases  []databaseFixture  `json:"databases"`
	Shares     []shareFixture     `json:"shares"`
}

type containerFixture struct {
	Name     string            `json:"name"`
	Metadata map[string]string `json:"metadata"`
	Blobs    []blobFixture     `json:"blobs"`
}

type blobFixture struct {
	Name        string            `json:"name"`
	Content     string            `json:"content"`
	ContentType string            `json:"contentType"`
	Metadata    map[string]string `json:"metadata"`
	Tags        map[string]string `json:"tags"`
	// Snapshots maps a snapshot's timestamp to its content.
	Snapshots map[string]string `json:"snapshots,omitempty"`
}

type queueFixture struct {
	Name     string            `json:"name"`
	Metadata map[string]string `json:"metadata"`
	Messages []string          `json:"messages"`
}

type tableFixture struct {
	Name string `json:"name"`
	// Entities hold the properties written, with their @odata.type
	// annotations; every one must read back as written.
	Entities []map[string]any `json:"entities"`
}

type databaseFixture struct {
	ID         string                   `json:"id"`
	Containers []cosmosContainerFixture `json:"containers"`
}

type cosmosContainerFixture struct {
	ID           string           `json:"id"`
	PartitionKey string           `json:"partitionKey"`
	Items        []map[string]any `json:"items"`
	// Sprocs maps a stored procedure's id to what it returns when run in
	// partition "p1".
	Sprocs map[string]string `json:"sprocs"`
}

type shareFixture struct {
	Name  string            `json:"name"`
	Files map[string]string `json:"files"` // path → content
}

// clients reach one running server through the official SDKs.
type clients struct {
	env    *servertest.Env
	blob   *azblob.Client
	queue  *azqueue.ServiceClient
	table  *aztables.ServiceClient
	cosmos *azcosmos.Client
	file   *fileservice.Client
}

func connect(t *testing.T, env *servertest.Env) *clients {
	t.Helper()
	c := &clients{env: env}
	var err error
	if c.blob, err = azblob.NewClientFromConnectionString(env.ConnectionString, nil); err != nil {
		t.Fatal(err)
	}
	if c.queue, err = azqueue.NewServiceClientFromConnectionString(env.ConnectionString, nil); err != nil {
		t.Fatal(err)
	}
	if c.table, err = aztables.NewServiceClientFromConnectionString(env.ConnectionString, nil); err != nil {
		t.Fatal(err)
	}
	if c.file, err = fileservice.NewClientFromConnectionString(env.ConnectionString, nil); err != nil {
		t.Fatal(err)
	}
	cred, err := azcosmos.NewKeyCredential(env.CosmosKey)
	if err != nil {
		t.Fatal(err)
	}
	opts := &azcosmos.ClientOptions{}
	opts.Retry = policy.RetryOptions{MaxRetries: -1}
	if c.cosmos, err = azcosmos.NewClientWithKey(env.CosmosURL, cred, opts); err != nil {
		t.Fatal(err)
	}
	return c
}

// cosmosREST sends one signed request to the Cosmos gateway (stored
// procedures have no Go SDK API) and returns the status and body.
func (c *clients) cosmosREST(t *testing.T, method, path, resourceType, link string, body []byte, header map[string]string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, strings.TrimSuffix(c.env.CosmosURL, "/")+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := testkit.CosmosSign(req, c.env.CosmosKey, resourceType, link, time.Now()); err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b := testkit.ReadBody(t, resp.Body)
	return resp.StatusCode, b
}

// populate writes m through the SDKs; it fills in the snapshot
// timestamps, which only the server can choose.
func (c *clients) populate(t *testing.T, m *manifest) {
	t.Helper()
	ctx := context.Background()
	for _, ct := range m.Containers {
		if _, err := c.blob.CreateContainer(ctx, ct.Name, &azblob.CreateContainerOptions{Metadata: ptrs(ct.Metadata)}); err != nil {
			t.Fatalf("create container %s: %v", ct.Name, err)
		}
		for i := range ct.Blobs {
			b := &ct.Blobs[i]
			for _, old := range sortedKeys(b.Snapshots) {
				upload(t, c.blob, ct.Name, b.Name, old, b)
				bc := c.blob.ServiceClient().NewContainerClient(ct.Name).NewBlobClient(b.Name)
				resp, err := bc.CreateSnapshot(ctx, nil)
				if err != nil {
					t.Fatalf("snapshot %s/%s: %v", ct.Name, b.Name, err)
				}
				delete(b.Snapshots, old)
				b.Snapshots[*resp.Snapshot] = old
			}
			upload(t, c.blob, ct.Name, b.Name, b.Content, b)
		}
	}
	for _, q := range m.Queues {
		if _, err := c.queue.CreateQueue(ctx, q.Name, &azqueue.CreateOptions{Metadata: ptrs(q.Metadata)}); err != nil {
			t.Fatalf("create queue %s: %v", q.Name, err)
		}
		for _, msg := range q.Messages {
			// Messages that never expire keep the fixture valid for good.
			if _, err := c.queue.NewQueueClient(q.Name).EnqueueMessage(ctx, msg, &azqueue.EnqueueMessageOptions{TimeToLive: to.Ptr(int32(-1))}); err != nil {
				t.Fatalf("enqueue into %s: %v", q.Name, err)
			}
		}
	}
	for _, tb := range m.Tables {
		if _, err := c.table.CreateTable(ctx, tb.Name, nil); err != nil {
			t.Fatalf("create table %s: %v", tb.Name, err)
		}
		for _, e := range tb.Entities {
			body, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.table.NewClient(tb.Name).UpsertEntity(ctx, body, nil); err != nil {
				t.Fatalf("upsert into %s: %v", tb.Name, err)
			}
		}
	}
	for _, d := range m.Databases {
		if _, err := c.cosmos.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: d.ID}, nil); err != nil {
			t.Fatalf("create database %s: %v", d.ID, err)
		}
		db, err := c.cosmos.NewDatabase(d.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, ct := range d.Containers {
			props := azcosmos.ContainerProperties{ID: ct.ID, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/" + ct.PartitionKey}}}
			// Dedicated throughput gives the container an offer record too.
			opts := &azcosmos.CreateContainerOptions{ThroughputProperties: to.Ptr(azcosmos.NewManualThroughputProperties(400))}
			if _, err := db.CreateContainer(ctx, props, opts); err != nil {
				t.Fatalf("create container %s: %v", ct.ID, err)
			}
			cc, err := db.NewContainer(ct.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, item := range ct.Items {
				body, err := json.Marshal(item)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := cc.UpsertItem(ctx, azcosmos.NewPartitionKeyString(item[ct.PartitionKey].(string)), body, nil); err != nil {
					t.Fatalf("upsert item into %s: %v", ct.ID, err)
				}
			}
			link := "dbs/" + d.ID + "/colls/" + ct.ID
			for _, id := range sortedKeys(ct.Sprocs) {
				src := fmt.Sprintf("function(){ getContext().getResponse().setBody(%q); }", ct.Sprocs[id])
				body, err := json.Marshal(map[string]string{"id": id, "body": src})
				if err != nil {
					t.Fatal(err)
				}
				if status, resp := c.cosmosREST(t, "POST", "/"+link+"/sprocs", "sprocs", link, body, nil); status != http.StatusCreated {
					t.Fatalf("create sproc %s: %d %s", id, status, resp)
				}
			}
		}
	}
	for _, s := range m.Shares {
		sc := c.file.NewShareClient(s.Name)
		if _, err := sc.Create(ctx, nil); err != nil {
			t.Fatalf("create share %s: %v", s.Name, err)
		}
		for _, p := range sortedKeys(s.Files) {
			dir := sc.NewRootDirectoryClient()
			parts := strings.Split(p, "/")
			for _, d := range parts[:len(parts)-1] {
				dir = dir.NewSubdirectoryClient(d)
				if _, err := dir.Create(ctx, nil); err != nil && !strings.Contains(err.Error(), "ResourceAlreadyExists") {
					t.Fatalf("create directory %s: %v", d, err)
				}
			}
			fc := dir.NewFileClient(parts[len(parts)-1])
			content := []byte(s.Files[p])
			if _, err := fc.Create(ctx, int64(len(content)), nil); err != nil {
				t.Fatalf("create file %s: %v", p, err)
			}
			if err := fc.UploadBuffer(ctx, content, nil); err != nil {
				t.Fatalf("upload file %s: %v", p, err)
			}
		}
	}
}

func upload(t *testing.T, c *azblob.Client, ctr, name, content string, b *blobFixture) {
	t.Helper()
	_, err := c.UploadBuffer(context.Background(), ctr, name, []byte(content), &azblob.UploadBufferOptions{
		Metadata:    ptrs(b.Metadata),
		Tags:        b.Tags,
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr(b.ContentType)},
	})
	if err != nil {
		t.Fatalf("upload %s/%s: %v", ctr, name, err)
	}
}

// check reads everything m lists back through the SDKs.
func (c *clients) check(t *testing.T, m *manifest) {
	t.Helper()
	ctx := context.Background()
	for _, ct := range m.Containers {
		cc := c.blob.ServiceClient().NewContainerClient(ct.Name)
		props, err := cc.GetProperties(ctx, nil)
		if err != nil {
			t.Fatalf("container %s: %v", ct.Name, err)
		}
		equalMetadata(t, "container "+ct.Name, props.Metadata, ct.Metadata)
		var listed []string
		pager := cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{Snapshots: true, Metadata: true, Tags: true}})
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatalf("list %s: %v", ct.Name, err)
			}
			for _, item := range page.Segment.BlobItems {
				n := *item.Name
				if item.Snapshot != nil && *item.Snapshot != "" {
					n += "@" + *item.Snapshot
				}
				listed = append(listed, n)
			}
		}
		var want []string
		for _, b := range ct.Blobs {
			want = append(want, b.Name)
			for snap := range b.Snapshots {
				want = append(want, b.Name+"@"+snap)
			}
		}
		sort.Strings(listed)
		sort.Strings(want)
		if strings.Join(listed, ",") != strings.Join(want, ",") {
			t.Errorf("container %s lists %v, want %v", ct.Name, listed, want)
		}
		for _, b := range ct.Blobs {
			bc := cc.NewBlobClient(b.Name)
			if got := download(t, bc); got != b.Content {
				t.Errorf("blob %s/%s = %q, want %q", ct.Name, b.Name, got, b.Content)
			}
			p, err := bc.GetProperties(ctx, nil)
			if err != nil {
				t.Fatalf("blob %s/%s properties: %v", ct.Name, b.Name, err)
			}
			if p.ContentType == nil || *p.ContentType != b.ContentType {
				t.Errorf("blob %s/%s content type %v, want %q", ct.Name, b.Name, p.ContentType, b.ContentType)
			}
			equalMetadata(t, "blob "+b.Name, p.Metadata, b.Metadata)
			tags, err := bc.GetTags(ctx, nil)
			if err != nil {
				t.Fatalf("blob %s/%s tags: %v", ct.Name, b.Name, err)
			}
			got := map[string]string{}
			for _, tag := range tags.BlobTagSet {
				got[*tag.Key] = *tag.Value
			}
			if fmt.Sprint(got) != fmt.Sprint(b.Tags) {
				t.Errorf("blob %s/%s tags %v, want %v", ct.Name, b.Name, got, b.Tags)
			}
			for snap, content := range b.Snapshots {
				sbc, err := bc.WithSnapshot(snap)
				if err != nil {
					t.Fatal(err)
				}
				if got := download(t, sbc); got != content {
					t.Errorf("snapshot %s of %s = %q, want %q", snap, b.Name, got, content)
				}
			}
		}
	}
	for _, q := range m.Queues {
		qc := c.queue.NewQueueClient(q.Name)
		props, err := qc.GetProperties(ctx, nil)
		if err != nil {
			t.Fatalf("queue %s: %v", q.Name, err)
		}
		equalMetadata(t, "queue "+q.Name, props.Metadata, q.Metadata)
		peek, err := qc.PeekMessages(ctx, &azqueue.PeekMessagesOptions{NumberOfMessages: to.Ptr(int32(32))})
		if err != nil {
			t.Fatalf("peek %s: %v", q.Name, err)
		}
		var got []string
		for _, msg := range peek.Messages {
			got = append(got, *msg.MessageText)
		}
		if strings.Join(got, "|") != strings.Join(q.Messages, "|") {
			t.Errorf("queue %s holds %q, want %q", q.Name, got, q.Messages)
		}
	}
	for _, tb := range m.Tables {
		tc := c.table.NewClient(tb.Name)
		for _, want := range tb.Entities {
			resp, err := tc.GetEntity(ctx, want["PartitionKey"].(string), want["RowKey"].(string), nil)
			if err != nil {
				t.Fatalf("entity %v in %s: %v", want["RowKey"], tb.Name, err)
			}
			var got map[string]any
			if err := json.Unmarshal(resp.Value, &got); err != nil {
				t.Fatal(err)
			}
			for k, v := range want {
				if strings.HasSuffix(k, "@odata.type") {
					continue // minimal metadata leaves out what the value implies
				}
				if fmt.Sprint(got[k]) != fmt.Sprint(v) && !sameDateTime(want[k+"@odata.type"], got[k], v) {
					t.Errorf("table %s entity %v: %s = %v, want %v", tb.Name, want["RowKey"], k, got[k], v)
				}
			}
		}
	}
	for _, d := range m.Databases {
		db, err := c.cosmos.NewDatabase(d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Read(ctx, nil); err != nil {
			t.Fatalf("database %s: %v", d.ID, err)
		}
		for _, ct := range d.Containers {
			cc, err := db.NewContainer(ct.ID)
			if err != nil {
				t.Fatal(err)
			}
			props, err := cc.Read(ctx, nil)
			if err != nil {
				t.Fatalf("container %s: %v", ct.ID, err)
			}
			if paths := props.ContainerProperties.PartitionKeyDefinition.Paths; len(paths) != 1 || paths[0] != "/"+ct.PartitionKey {
				t.Errorf("container %s partition key %v", ct.ID, paths)
			}
			for _, want := range ct.Items {
				resp, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString(want[ct.PartitionKey].(string)), want["id"].(string), nil)
				if err != nil {
					t.Fatalf("item %v: %v", want["id"], err)
				}
				var got map[string]any
				if err := json.Unmarshal(resp.Value, &got); err != nil {
					t.Fatal(err)
				}
				for k, v := range want {
					gb, _ := json.Marshal(got[k])
					wb, _ := json.Marshal(v)
					if !bytes.Equal(gb, wb) {
						t.Errorf("item %v: %s = %s, want %s", want["id"], k, gb, wb)
					}
				}
			}
			link := "dbs/" + d.ID + "/colls/" + ct.ID
			for id, result := range ct.Sprocs {
				status, body := c.cosmosREST(t, "POST", "/"+link+"/sprocs/"+id, "sprocs", link+"/sprocs/"+id, []byte("[]"),
					map[string]string{"x-ms-documentdb-partitionkey": `["p1"]`})
				if want, _ := json.Marshal(result); status != http.StatusOK || !bytes.Equal(body, want) {
					t.Errorf("run sproc %s: %d %s, want %s", id, status, body, want)
				}
			}
		}
	}
	for _, s := range m.Shares {
		root := c.file.NewShareClient(s.Name).NewRootDirectoryClient()
		for p, content := range s.Files {
			parts := strings.Split(p, "/")
			dir := root
			for _, d := range parts[:len(parts)-1] {
				dir = dir.NewSubdirectoryClient(d)
			}
			fc := dir.NewFileClient(parts[len(parts)-1])
			resp, err := fc.DownloadStream(ctx, nil)
			if err != nil {
				t.Fatalf("file %s: %v", p, err)
			}
			got := string(testkit.ReadBody(t, resp.Body))
			if got != content {
				t.Errorf("file %s = %q, want %q", p, got, content)
			}
		}
	}
}

func download(t *testing.T, bc *blob.Client) string {
	t.Helper()
	resp, err := bc.DownloadStream(context.Background(), nil)
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	return string(testkit.ReadBody(t, resp.Body))
}

// equalMetadata compares metadata names case-insensitively: Go's HTTP
// stack canonicalises the header names they travel in.
func equalMetadata(t *testing.T, what string, got map[string]*string, want map[string]string) {
	t.Helper()
	g := map[string]string{}
	for k, v := range got {
		g[strings.ToLower(k)] = *v
	}
	w := map[string]string{}
	for k, v := range want {
		w[strings.ToLower(k)] = v
	}
	if fmt.Sprint(g) != fmt.Sprint(w) {
		t.Errorf("%s metadata %v, want %v", what, g, w)
	}
}

func ptrs(m map[string]string) map[string]*string {
	out := make(map[string]*string, len(m))
	for k, v := range m {
		out[k] = to.Ptr(v)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// sameDateTime reports whether two Edm.DateTime values name the same
// instant: a fixture written by an older release records the form that
// release wrote ("….0000000Z"), and the wire form may since have moved to
// Azure's (whole seconds when the fraction is zero).
func sameDateTime(typ, got, want any) bool {
	if typ != "Edm.DateTime" {
		return false
	}
	g, err1 := time.Parse(time.RFC3339Nano, fmt.Sprint(got))
	w, err2 := time.Parse(time.RFC3339Nano, fmt.Sprint(want))
	return err1 == nil && err2 == nil && g.Equal(w)
}
