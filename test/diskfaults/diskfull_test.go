package diskfaults

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	blobstore "github.com/cerulean-db/cerulean/internal/blob"
	"github.com/cerulean-db/cerulean/internal/servertest"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

var noRetry = azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}

// wantFull fails unless err is the answer to a write on a full volume.
func wantFull(t *testing.T, what string, err error) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("%s on a full volume: %v, want 503", what, err)
	}
	// The Cosmos SDK reports the status line as the code.
	if re.ErrorCode != "ServerBusy" && !strings.HasPrefix(re.ErrorCode, "503") {
		t.Errorf("%s on a full volume: error code %q", what, re.ErrorCode)
	}
}

// eventually retries fn until it succeeds (the free space is read every
// 10 ms) or fails the test after a few seconds.
func eventually(t *testing.T, what string, fn func() error) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := fn()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// reserve is the free space the test server keeps.
const reserve = 64 << 20

// rounds repeats the fill-and-free cycle (a long run).
var rounds = flag.Int("diskfaults.rounds", 1, "times TestDiskFull fills the volume and frees it again")

func TestDiskFull(t *testing.T) {
	var free atomic.Uint64
	free.Store(10 << 30)
	env := servertest.Start(t, servertest.WithDataDir(t.TempDir()),
		servertest.WithFreeSpace(reserve, func() (uint64, error) { return free.Load(), nil }))
	ctx := context.Background()
	blobs, err := azblob.NewClientFromConnectionString(env.ConnectionString, &azblob.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	tables, err := aztables.NewServiceClientFromConnectionString(env.ConnectionString, &aztables.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	queues, err := azqueue.NewServiceClientFromConnectionString(env.ConnectionString, &azqueue.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	cred, _ := azcosmos.NewKeyCredential(env.CosmosKey)
	cosmos, err := azcosmos.NewClientWithKey(env.CosmosURL, cred, &azcosmos.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}

	must(t, "create container", err2(blobs.CreateContainer(ctx, "full", nil)))
	must(t, "create table", err2(tables.CreateTable(ctx, "full", nil)))
	tc := tables.NewClient("full")
	must(t, "create queue", err2(queues.CreateQueue(ctx, "full", nil)))
	qc := queues.NewQueueClient("full")
	must(t, "create database", err2(cosmos.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil)))
	db, _ := cosmos.NewDatabase("db")
	must(t, "create cosmos container", err2(db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil)))
	items, _ := db.NewContainer("c")
	for round := range *rounds {
		fillAndFree(t, ctx, env, &free, blobs, tc, qc, items, round)
	}
	if err := blobstore.CheckInvariants(ctx, env.Store); err != nil {
		t.Fatal(err)
	}
}

// fillAndFree is one round of a volume filling up and space coming back:
// writes of every service refused, reads and deletions served, nothing
// half-written visible, then everything accepted again.
func fillAndFree(t *testing.T, ctx context.Context, env *servertest.Env, free *atomic.Uint64, blobs *azblob.Client,
	tc *aztables.Client, qc *azqueue.QueueClient, items *azcosmos.ContainerClient, round int) {
	t.Helper()
	name := func(s string) string { return fmt.Sprintf("%s-%d", s, round) }
	// Acknowledged before the volume fills.
	kept := bytes.Repeat([]byte("kept "), 1000)
	must(t, "upload kept", err2(blobs.UploadBuffer(ctx, "full", name("kept"), kept, nil)))
	must(t, "upload doomed", err2(blobs.UploadBuffer(ctx, "full", name("doomed"), []byte("x"), nil)))
	bb := blobs.ServiceClient().NewContainerClient("full").NewBlockBlobClient(name("staged"))
	blockA := base64.StdEncoding.EncodeToString([]byte("block-a"))
	must(t, "stage block A", err2(bb.StageBlock(ctx, blockA, nopCloser(bytes.Repeat([]byte("A"), 4<<20)), nil)))

	free.Store(reserve - 1)
	var writeErr error
	eventually(t, "writes refused once the volume is nearly full", func() error {
		_, writeErr = blobs.UploadBuffer(ctx, "full", name("during"), []byte("x"), nil)
		if writeErr == nil {
			return errors.New("a write was accepted")
		}
		return nil
	})
	wantFull(t, "Put Blob", writeErr)
	if !strings.Contains(writeErr.Error(), "nearly full") {
		t.Errorf("the answer does not say why: %v", writeErr)
	}
	_, err := bb.StageBlock(ctx, base64.StdEncoding.EncodeToString([]byte("block-b")), nopCloser(bytes.Repeat([]byte("B"), 4<<20)), nil)
	wantFull(t, "Put Block", err)
	_, err = bb.CommitBlockList(ctx, []string{blockA}, nil)
	wantFull(t, "Put Block List", err)
	_, err = tc.AddEntity(ctx, (fmt.Appendf(nil, `{"PartitionKey":"p","RowKey":%q}`, name("r"))), nil)
	wantFull(t, "Insert Entity", err)
	_, err = qc.EnqueueMessage(ctx, "m", nil)
	wantFull(t, "Put Message", err)
	_, err = items.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), (fmt.Appendf(nil, `{"id":%q,"pk":"p"}`, name("i"))), nil)
	wantFull(t, "Create Document", err)
	if resp, err := http.Get(env.AdminURL + "/readyz"); err != nil {
		t.Fatal(err)
	} else if _ = resp.Body.Close(); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz on a full volume: %d, want 503", resp.StatusCode)
	}

	// Reads go on, and deletions (how space comes back) are served.
	got, err := blobs.DownloadStream(ctx, "full", name("kept"), nil)
	must(t, "read kept", err)
	body := testkit.ReadBody(t, got.Body)
	if !bytes.Equal(body, kept) {
		t.Fatal("the acknowledged blob changed")
	}
	must(t, "delete doomed", err2(blobs.DeleteBlob(ctx, "full", name("doomed"), nil)))
	// Nothing half-written is visible: the refused commit left no blob.
	if _, err := bb.GetProperties(ctx, nil); err == nil {
		t.Fatal("the refused block list made the blob visible")
	}

	// Space comes back: writes resume without a restart.
	free.Store(10 << 30)
	eventually(t, "writes resume once space is freed", func() error {
		_, err := blobs.UploadBuffer(ctx, "full", name("after"), []byte("y"), nil)
		return err
	})
	must(t, "commit the staged block", err2(bb.CommitBlockList(ctx, []string{blockA}, nil)))
	staged, err := bb.DownloadStream(ctx, nil)
	must(t, "read staged", err)
	if got := testkit.ReadBody(t, staged.Body); !bytes.Equal(got, bytes.Repeat([]byte("A"), 4<<20)) {
		t.Fatalf("the staged blob holds %d bytes", len(got))
	}
	must(t, "insert entity", err2(tc.AddEntity(ctx, (fmt.Appendf(nil, `{"PartitionKey":"p","RowKey":%q}`, name("r"))), nil)))
	must(t, "put message", err2(qc.EnqueueMessage(ctx, "m", nil)))
	must(t, "create item", err2(items.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), (fmt.Appendf(nil, `{"id":%q,"pk":"p"}`, name("i"))), nil)))
}
