package failover_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/jackc/pgx/v5"

	blobstore "github.com/cerulean-db/cerulean/internal/blob"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

// noRetry: a write counts as acknowledged only when the server said so.
var noRetry = policy.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1, TryTimeout: 30 * time.Second}}

type clients struct {
	blob   *azblob.Client
	table  *aztables.Client
	cosmos *azcosmos.ContainerClient
}

func connect(t *testing.T, env *servertest.Env) clients {
	t.Helper()
	b, err := azblob.NewClientFromConnectionString(env.ConnectionString, &azblob.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := aztables.NewServiceClientFromConnectionString(env.ConnectionString, &aztables.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	cred, err := azcosmos.NewKeyCredential(env.CosmosKey)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := azcosmos.NewClientWithKey(env.CosmosURL, cred, &azcosmos.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	items, err := cc.NewContainer("failover", "items")
	if err != nil {
		t.Fatal(err)
	}
	return clients{blob: b, table: ts.NewClient("failover"), cosmos: items}
}

// waitSync waits until the primary reports the standby as synchronous.
func waitSync(t *testing.T, primary *cluster) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), primary.dsn())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var state string
		err := conn.QueryRow(t.Context(), `SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby'`).Scan(&state)
		if err == nil && state == "sync" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("standby not synchronous within 60 s (state %q, %v)", state, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sql runs statements on the cluster.
func (c *cluster) sql(stmts ...string) {
	c.t.Helper()
	conn, err := pgx.Connect(c.t.Context(), c.dsn())
	if err != nil {
		c.t.Fatal(err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	for _, s := range stmts {
		if _, err := conn.Exec(c.t.Context(), s); err != nil {
			c.t.Fatalf("%s: %v", s, err)
		}
	}
}

// acked is what the front end acknowledged, by kind and name.
type acked struct {
	mu       sync.Mutex
	blobs    map[string][]byte
	entities []string
	items    []string
}

// TestFailoverLosesNothingAcknowledged: writers load a front end on the
// primary; the primary is killed with SIGKILL mid-load; the synchronous
// standby is promoted and a front end started on it; every blob, entity
// and item the first front end acknowledged is there, byte for byte.
func TestFailoverLosesNothingAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two PostgreSQL servers")
	}
	bin := pgBin(t)
	primary := startPrimary(t, bin)
	standby := startStandby(t, primary)
	waitSync(t, primary)

	const schema = "failover"
	fe := servertest.Start(t, servertest.WithPostgres(primary.dsn(), schema),
		servertest.WithoutInvariantCheck("the test kills its PostgreSQL primary; the front end on the promoted standby is checked"))
	c := connect(t, fe)
	ctx := t.Context()
	if _, err := c.blob.CreateContainer(ctx, "failover", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.table.CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cred, _ := azcosmos.NewKeyCredential(fe.CosmosKey)
	cc, _ := azcosmos.NewClientWithKey(fe.CosmosURL, cred, &azcosmos.ClientOptions{ClientOptions: noRetry})
	if _, err := cc.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "failover"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := cc.NewDatabase("failover")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "items", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}

	got := &acked{blobs: map[string][]byte{}}
	load, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			for n := 0; load.Err() == nil; n++ {
				name := fmt.Sprintf("w%d-%d", w, n)
				switch n % 3 {
				case 0:
					data := bytes.Repeat([]byte(name), 100+n)
					if _, err := c.blob.UploadBuffer(load, "failover", name, data, nil); err == nil {
						got.mu.Lock()
						got.blobs[name] = data
						got.mu.Unlock()
					}
				case 1:
					e, _ := json.Marshal(map[string]string{"PartitionKey": "p", "RowKey": name})
					if _, err := c.table.AddEntity(load, e, nil); err == nil {
						got.mu.Lock()
						got.entities = append(got.entities, name)
						got.mu.Unlock()
					}
				default:
					item, _ := json.Marshal(map[string]string{"id": name, "pk": "p"})
					if _, err := c.cosmos.CreateItem(load, azcosmos.NewPartitionKeyString("p"), item, nil); err == nil {
						got.mu.Lock()
						got.items = append(got.items, name)
						got.mu.Unlock()
					}
				}
			}
		})
	}
	time.Sleep(1500 * time.Millisecond)
	primary.kill()
	time.Sleep(300 * time.Millisecond)
	stop()
	wg.Wait()
	got.mu.Lock()
	defer got.mu.Unlock()
	if len(got.blobs)+len(got.entities)+len(got.items) < 10 {
		t.Fatalf("only %d blobs, %d entities, %d items acknowledged before the kill: too little load to prove anything",
			len(got.blobs), len(got.entities), len(got.items))
	}

	standby.promote()
	// The standby's configuration is the primary's copy: it would wait for
	// a synchronous standby of its own that does not exist yet. An
	// operator promoting it lets it commit alone until a new standby joins.
	standby.sql(`ALTER SYSTEM SET synchronous_standby_names = ''`, `SELECT pg_reload_conf()`)
	after := servertest.Start(t, servertest.WithPostgres(standby.dsn(), schema))
	c2 := connect(t, after)
	for name, want := range got.blobs {
		resp, err := c2.blob.DownloadStream(ctx, "failover", name, nil)
		if err != nil {
			t.Errorf("acknowledged blob %s lost: %v", name, err)
			continue
		}
		b, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil || !bytes.Equal(b, want) {
			t.Errorf("blob %s: %d bytes, %v; want its %d acknowledged bytes", name, len(b), err, len(want))
		}
	}
	for _, name := range got.entities {
		if _, err := c2.table.GetEntity(ctx, "p", name, nil); err != nil {
			t.Errorf("acknowledged entity %s lost: %v", name, err)
		}
	}
	for _, name := range got.items {
		if _, err := c2.cosmos.ReadItem(ctx, azcosmos.NewPartitionKeyString("p"), name, nil); err != nil {
			t.Errorf("acknowledged item %s lost: %v", name, err)
		}
	}
	if err := blobstore.CheckInvariants(ctx, after.Store); err != nil {
		t.Error(err)
	}
	t.Logf("after failover: %d blobs, %d entities, %d items acknowledged before the kill, all present", len(got.blobs), len(got.entities), len(got.items))
}
