package bench

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// DevCosmosConnectionString reaches a local cerulean (or the Cosmos DB
// emulator) with the emulator's well-known key.
const DevCosmosConnectionString = "AccountEndpoint=https://127.0.0.1:8081/;" +
	"AccountKey=C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==;"

// cosmosWorkload marks workloads that need the Cosmos client.
type cosmosWorkload interface {
	Workload
	cosmos()
}

// newCosmosClient trusts a self-signed certificate only on loopback, where
// a local emulator's generated certificate is expected.
func newCosmosClient(conn string) (*azcosmos.Client, error) {
	opts := clientOptions()
	if u, err := url.Parse(endpointOf(conn)); err == nil {
		if ip := net.ParseIP(u.Hostname()); (ip != nil && ip.IsLoopback()) || u.Hostname() == "localhost" {
			opts.Transport = &http.Client{Transport: &http.Transport{
				TLSClientConfig:     &tls.Config{InsecureSkipVerify: true},
				MaxIdleConnsPerHost: 1024,
				IdleConnTimeout:     90 * time.Second,
			}}
		}
	}
	opts.Retry = policy.RetryOptions{MaxRetries: -1, TryTimeout: time.Minute}
	return azcosmos.NewClientFromConnectionString(conn, &azcosmos.ClientOptions{ClientOptions: opts})
}

func endpointOf(conn string) string {
	for _, part := range strings.Split(conn, ";") {
		if v, ok := strings.CutPrefix(part, "AccountEndpoint="); ok {
			return v
		}
	}
	return ""
}

type cosmosBase struct{ c *azcosmos.ContainerClient }

func (cosmosBase) cosmos()                      {}
func (cosmosBase) Verify(context.Context) error { return nil }

// Setup makes what the workload runs on; workloads that need more call
// it first.
func (b *cosmosBase) Setup(ctx context.Context, c *Clients) error {
	db := fmt.Sprintf("bench%08x", rand.Uint32())
	if _, err := c.Cosmos.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: db}, nil); err != nil {
		return err
	}
	dbc, err := c.Cosmos.NewDatabase(db)
	if err != nil {
		return err
	}
	props := azcosmos.ContainerProperties{ID: "items", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
	if _, err := dbc.CreateContainer(ctx, props, nil); err != nil {
		return err
	}
	b.c, err = c.Cosmos.NewContainer(db, "items")
	return err
}

func cosmosItem(pk, id string, n int) []byte {
	b, _ := json.Marshal(map[string]any{"id": id, "pk": pk, "n": n, "name": "item " + id})
	return b
}

// cosmosCreate creates a fresh item per operation.
type cosmosCreate struct {
	cosmosBase
	n atomic.Int64
}

func (w *cosmosCreate) Name() string { return "cosmos-create" }

func (w *cosmosCreate) Op(ctx context.Context, worker int) (int64, error) {
	pk := "p" + strconv.Itoa(worker)
	item := cosmosItem(pk, strconv.FormatInt(w.n.Add(1), 10), worker)
	_, err := w.c.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), item, nil)
	return int64(len(item)), err
}

// cosmosPointRead reads one of a set of items by id and partition key.
type cosmosPointRead struct{ cosmosBase }

func (w *cosmosPointRead) Name() string { return "cosmos-point-read" }

func (w *cosmosPointRead) Setup(ctx context.Context, c *Clients) error {
	if err := w.cosmosBase.Setup(ctx, c); err != nil {
		return err
	}
	for i := range pointEntities {
		if _, err := w.c.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), cosmosItem("p", strconv.Itoa(i), i), nil); err != nil {
			return err
		}
	}
	return nil
}

func (w *cosmosPointRead) Op(ctx context.Context, worker int) (int64, error) {
	resp, err := w.c.ReadItem(ctx, azcosmos.NewPartitionKeyString("p"), strconv.Itoa(worker%pointEntities), nil)
	return int64(len(resp.Value)), err
}

// cosmosQuery runs a filtered, ordered query over a 1,000-item partition.
type cosmosQuery struct{ cosmosBase }

func (w *cosmosQuery) Name() string { return "cosmos-query" }

func (w *cosmosQuery) Setup(ctx context.Context, c *Clients) error {
	if err := w.cosmosBase.Setup(ctx, c); err != nil {
		return err
	}
	for start := 0; start < partitionEntities; start += 100 {
		b := w.c.NewTransactionalBatch(azcosmos.NewPartitionKeyString("q"))
		for i := start; i < start+100; i++ {
			b.CreateItem(cosmosItem("q", fmt.Sprintf("%05d", i), i), nil)
		}
		resp, err := w.c.ExecuteTransactionalBatch(ctx, b, nil)
		if err != nil {
			return err
		}
		if !resp.Success {
			return errors.New("setup batch failed")
		}
	}
	return nil
}

func (w *cosmosQuery) Op(ctx context.Context, _ int) (int64, error) {
	pager := w.c.NewQueryItemsPager("SELECT c.id, c.n FROM c WHERE c.n >= 500 ORDER BY c.n DESC", azcosmos.NewPartitionKeyString("q"), nil)
	seen, bytes, err := drain(ctx, pager, func(p azcosmos.QueryItemsResponse) [][]byte { return p.Items })
	if err != nil {
		return 0, err
	}
	if seen != partitionEntities/2 {
		return 0, fmt.Errorf("query returned %d items, want %d", seen, partitionEntities/2)
	}
	return bytes, nil
}

// cosmosBatch commits a 10-operation transactional batch per operation.
type cosmosBatch struct {
	cosmosBase
	n atomic.Int64
}

func (w *cosmosBatch) Name() string { return "cosmos-batch" }

func (w *cosmosBatch) Op(ctx context.Context, _ int) (int64, error) {
	pk := "b" + strconv.FormatInt(w.n.Add(1), 10)
	b := w.c.NewTransactionalBatch(azcosmos.NewPartitionKeyString(pk))
	var bytes int64
	for i := range 10 {
		item := cosmosItem(pk, strconv.Itoa(i), i)
		bytes += int64(len(item))
		b.UpsertItem(item, nil)
	}
	resp, err := w.c.ExecuteTransactionalBatch(ctx, b, nil)
	if err == nil && !resp.Success {
		err = errors.New("batch not committed")
	}
	return bytes, err
}

// cosmosUpsertHot upserts into one logical partition from every client,
// each client cycling through ids of its own: writers of one partition
// that never touch the same item, so any conflict between them is the
// server's own.
type cosmosUpsertHot struct {
	cosmosBase
	n atomic.Int64
}

func (w *cosmosUpsertHot) Name() string { return "cosmos-upsert-hot" }

func (w *cosmosUpsertHot) Op(ctx context.Context, worker int) (int64, error) {
	n := w.n.Add(1)
	item := cosmosItem("hot", fmt.Sprintf("w%d-%d", worker, n%hotItemsPerClient), int(n))
	_, err := w.c.UpsertItem(ctx, azcosmos.NewPartitionKeyString("hot"), item, nil)
	return int64(len(item)), err
}

// hotItemsPerClient is how many items each cosmos-upsert-hot client
// cycles through.
const hotItemsPerClient = 100
