package scaleout_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// counterClients clients each add incrementsEach() to every counter, so
// each must end at their product.
const counterClients = 16

// incrementsEach is 50, the full contention test: 800 increments, each
// taking about ten read + conditional-write attempts when sixteen clients
// race (CI runs it so, under the race detector). With -short it is 10;
// the 16-way contention is the same.
func incrementsEach() int {
	if testing.Short() {
		return 10
	}
	return 50
}

// counter is one shared counter as one client sees it through its front
// end: read gives the value and its ETag, write stores a value only if
// the ETag still matches and reports false when it did not (412).
type counter interface {
	read(ctx context.Context) (int, azcore.ETag, error)
	write(ctx context.Context, n int, ifMatch azcore.ETag) (bool, error)
}

// runCounter has counterClients clients, spread over the front ends, each
// add increments to one counter by read → +1 → If-Match write, retrying
// on 412. No update may be lost or doubled: the values the successful
// writes stored are exactly 1 … total, each once, and every front end
// then reads total.
func runCounter(t *testing.T, d *deployment, open func(client int) counter) {
	t.Helper()
	increments := incrementsEach()
	total := counterClients * increments
	ctx := t.Context()
	var (
		mu       sync.Mutex
		written  []int
		conflict atomic.Int64
		wg       sync.WaitGroup
	)
	start := time.Now()
	for cl := range counterClients {
		c := open(cl)
		wg.Go(func() {
			for range increments {
				for retries := 0; ; {
					n, etag, err := c.read(ctx)
					if err != nil {
						t.Errorf("client %d (front end %d): read: %v", cl, cl%frontEnds, err)
						return
					}
					ok, err := c.write(ctx, n+1, etag)
					if err != nil {
						t.Errorf("client %d (front end %d): write %d if-match %s: %v", cl, cl%frontEnds, n+1, etag, err)
						return
					}
					if ok {
						mu.Lock()
						written = append(written, n+1)
						mu.Unlock()
						break
					}
					conflict.Add(1)
					backOff(retries)
					retries++
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d increments by %d clients over %d front ends in %v, %d retries after 412",
		total, counterClients, frontEnds, time.Since(start).Round(time.Millisecond), conflict.Load())
	if t.Failed() {
		return
	}
	checkSequence(t, written, total)
	for fe := range frontEnds {
		n, _, err := open(fe).read(ctx)
		if err != nil {
			t.Fatalf("front end %d: final read: %v", fe, err)
		}
		if n != total {
			t.Errorf("front end %d reads %d after %d increments: updates were lost or doubled", fe, n, total)
		}
	}
}

// backOff waits a random time that grows with the retries, as a client
// that lost an optimistic race does: without it sixteen clients re-read
// and collide again in lockstep, and the test measures the stampede.
func backOff(retries int) {
	time.Sleep(time.Duration(rand.Int64N(int64(time.Millisecond << min(retries, 5)))))
}

// checkSequence checks that values are exactly 1 … total, each once: two
// writers that stored the same value both built on one read, and one of
// their updates was lost.
func checkSequence(t *testing.T, values []int, total int) {
	t.Helper()
	slices.Sort(values)
	for i, v := range values {
		if v != i+1 {
			t.Fatalf("the %d successful increments stored %v…: value %d where %d belongs, an update was lost or doubled",
				len(values), values[max(0, i-3):min(len(values), i+3)], v, i+1)
		}
	}
	if len(values) != total {
		t.Fatalf("%d successful increments, want %d", len(values), total)
	}
}

// TestBlobIfMatchCounter: a decimal counter in one block blob, bumped with
// Get Blob and Put Blob If-Match.
func TestBlobIfMatchCounter(t *testing.T) {
	t.Parallel()
	d := startDeployment(t)
	ctx := t.Context()
	if _, err := d.blob(0).CreateContainer(ctx, "counters", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := d.blob(0).UploadBuffer(ctx, "counters", "n", []byte("0"), nil); err != nil {
		t.Fatal(err)
	}
	runCounter(t, d, func(cl int) counter {
		return blobCounter{d.blob(cl).ServiceClient().NewContainerClient("counters").NewBlockBlobClient("n")}
	})
}

type blobCounter struct{ bb *blockblob.Client }

func (c blobCounter) read(ctx context.Context) (int, azcore.ETag, error) {
	resp, err := c.bb.DownloadStream(ctx, nil)
	if err != nil {
		return 0, "", err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return 0, "", err
	}
	n, err := strconv.Atoi(string(body))
	return n, *resp.ETag, err
}

func (c blobCounter) write(ctx context.Context, n int, ifMatch azcore.ETag) (bool, error) {
	_, err := c.bb.Upload(ctx, streaming.NopCloser(strings.NewReader(strconv.Itoa(n))), &blockblob.UploadOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &ifMatch}}})
	return conditional(err)
}

// conditional turns a conditional write's answer into (written, error):
// 412 is the lost race the caller retries.
func conditional(err error) (bool, error) {
	if statusOf(err) == http.StatusPreconditionFailed {
		return false, nil
	}
	return err == nil, err
}

// TestTableIfMatchCounter: an Int32 property of one entity, bumped with
// Get Entity and Update Entity (replace) If-Match.
func TestTableIfMatchCounter(t *testing.T) {
	t.Parallel()
	d := startDeployment(t)
	ctx := t.Context()
	if _, err := d.table(0, "counters").CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := d.table(0, "counters").AddEntity(ctx, tableCounter{}.entity(0), nil); err != nil {
		t.Fatal(err)
	}
	runCounter(t, d, func(cl int) counter { return tableCounter{d.table(cl, "counters")} })
}

// counterValue decodes the counter from a JSON entity or item whose
// field N (or n: the match is case-insensitive) holds it; what and field
// name the body and the field in errors.
func counterValue(body []byte, what, field string) (int, error) {
	var v struct{ N *int }
	if err := json.Unmarshal(body, &v); err != nil {
		return 0, fmt.Errorf("%s %s: %w", what, body, err)
	}
	if v.N == nil {
		return 0, fmt.Errorf("%s %s has no %s", what, body, field)
	}
	return *v.N, nil
}

type tableCounter struct{ tc *aztables.Client }

func (tableCounter) entity(n int) []byte {
	b, _ := json.Marshal(map[string]any{"PartitionKey": "p", "RowKey": "n", "N": n})
	return b
}

func (c tableCounter) read(ctx context.Context) (int, azcore.ETag, error) {
	resp, err := c.tc.GetEntity(ctx, "p", "n", nil)
	if err != nil {
		return 0, "", err
	}
	n, err := counterValue(resp.Value, "entity", "N")
	if err != nil {
		return 0, "", err
	}
	return n, resp.ETag, nil
}

func (c tableCounter) write(ctx context.Context, n int, ifMatch azcore.ETag) (bool, error) {
	_, err := c.tc.UpdateEntity(ctx, c.entity(n), &aztables.UpdateEntityOptions{IfMatch: &ifMatch, UpdateMode: aztables.UpdateModeReplace})
	return conditional(err)
}

// setupCosmos creates database "db" and container "c" partitioned on /pk
// through front end 0.
func setupCosmos(t *testing.T, d *deployment) {
	t.Helper()
	ctx := t.Context()
	c := d.cosmos(0)
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, err := c.NewDatabase("db")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := d.cosmosContainer(0).CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), cosmosCounter{}.item(0), nil); err != nil {
		t.Fatal(err)
	}
}

func (d *deployment) cosmosContainer(i int) *azcosmos.ContainerClient {
	d.t.Helper()
	cc, err := d.cosmos(i).NewContainer("db", "c")
	if err != nil {
		d.t.Fatal(err)
	}
	return cc
}

// TestCosmosIfMatchCounter: a number in one item, bumped with Read Item
// and Replace Item If-Match.
func TestCosmosIfMatchCounter(t *testing.T) {
	t.Parallel()
	d := startDeployment(t)
	setupCosmos(t, d)
	runCounter(t, d, func(cl int) counter { return cosmosCounter{d.cosmosContainer(cl)} })
}

type cosmosCounter struct{ cc *azcosmos.ContainerClient }

func (cosmosCounter) item(n int) []byte {
	b, _ := json.Marshal(map[string]any{"id": "n", "pk": "p", "n": n})
	return b
}

func (c cosmosCounter) read(ctx context.Context) (int, azcore.ETag, error) {
	resp, err := c.cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("p"), "n", nil)
	if err != nil {
		return 0, "", err
	}
	n, err := counterValue(resp.Value, "item", "n")
	if err != nil {
		return 0, "", err
	}
	return n, resp.ETag, nil
}

func (c cosmosCounter) write(ctx context.Context, n int, ifMatch azcore.ETag) (bool, error) {
	_, err := c.cc.ReplaceItem(ctx, azcosmos.NewPartitionKeyString("p"), "n", c.item(n), &azcosmos.ItemOptions{IfMatchEtag: &ifMatch})
	return conditional(err)
}

// incrementSproc reads the counter item, adds one and replaces it under
// the _etag it read, returning the new value. Its run is one transaction,
// so racing runs on different front ends must serialize.
const incrementSproc = `function increment(id) {
	var coll = getContext().getCollection();
	var link = coll.getAltLink() + "/docs/" + id;
	if (!coll.readDocument(link, {}, function (err, doc) {
		if (err) throw err;
		doc.n++;
		if (!coll.replaceDocument(link, doc, {etag: doc._etag}, function (err, d) {
			if (err) throw err;
			getContext().getResponse().setBody(d.n);
		})) throw new Error("replace not accepted");
	})) throw new Error("read not accepted");
}`

// TestCosmosStoredProcedureCounter: the same counter bumped by a stored
// procedure that reads, increments and replaces, executed by clients
// spread over the front ends. The Go SDK has no script API, so creating
// and executing the procedure are master-key-signed REST calls.
func TestCosmosStoredProcedureCounter(t *testing.T) {
	t.Parallel()
	d := startDeployment(t)
	setupCosmos(t, d)
	ctx := t.Context()
	body, _ := json.Marshal(map[string]string{"id": "increment", "body": incrementSproc})
	if status, resp := cosmosREST(ctx, d, 1, http.MethodPost, "/dbs/db/colls/c/sprocs", "sprocs", "dbs/db/colls/c", body); status != http.StatusCreated {
		t.Fatalf("create stored procedure through front end 1: %d %s", status, resp)
	}
	increments := incrementsEach()
	total := counterClients * increments
	var (
		mu      sync.Mutex
		results []int
		wg      sync.WaitGroup
	)
	start := time.Now()
	for cl := range counterClients {
		wg.Go(func() {
			for range increments {
				status, resp := cosmosREST(ctx, d, cl, http.MethodPost, "/dbs/db/colls/c/sprocs/increment", "sprocs", "dbs/db/colls/c/sprocs/increment", []byte(`["n"]`))
				if status != http.StatusOK {
					t.Errorf("client %d (front end %d): execute: %d %s", cl, cl%frontEnds, status, resp)
					return
				}
				n, err := strconv.Atoi(string(bytes.TrimSpace(resp)))
				if err != nil {
					t.Errorf("client %d: execute returned %q", cl, resp)
					return
				}
				mu.Lock()
				results = append(results, n)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.Logf("%d stored-procedure increments by %d clients over %d front ends in %v", total, counterClients, frontEnds, time.Since(start).Round(time.Millisecond))
	if t.Failed() {
		return
	}
	checkSequence(t, results, total)
	for fe := range frontEnds {
		n, _, err := cosmosCounter{d.cosmosContainer(fe)}.read(ctx)
		if err != nil {
			t.Fatalf("front end %d: final read: %v", fe, err)
		}
		if n != total {
			t.Errorf("front end %d reads %d after %d stored-procedure increments", fe, n, total)
		}
	}
}

// cosmosREST sends a master-key-signed request to client i's front end in
// partition "p" and returns the status and body (status 0 and the error
// text when the request did not complete).
func cosmosREST(ctx context.Context, d *deployment, i int, method, path, resourceType, link string, body []byte) (int, []byte) {
	env := d.at(i)
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(env.CosmosURL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return 0, []byte(err.Error())
	}
	if err := testkit.CosmosSign(req, env.CosmosKey, resourceType, link, time.Now()); err != nil {
		return 0, []byte(err.Error())
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-ms-documentdb-partitionkey", `["p"]`)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, []byte(err.Error())
	}
	return resp.StatusCode, b
}
