package diskfaults

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/server"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

var errSyncFailed = errors.New("injected: fsync failed (EIO)")

// failingSyncs fails every sync of the write-ahead log once armed.
type failingSyncs struct{ armed atomic.Bool }

func (f *failingSyncs) String() string { return "failing WAL syncs" }

func (f *failingSyncs) MaybeError(op errorfs.Op) error {
	if !f.armed.Load() || !strings.HasSuffix(op.Path, ".log") {
		return nil
	}
	switch op.Kind {
	case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
		return errSyncFailed
	}
	return nil
}

func start(t *testing.T, dir string, fs vfs.FS) *server.Server {
	t.Helper()
	srv, err := server.Start(context.Background(), server.Config{
		Host: "127.0.0.1", DataDir: dir, FS: fs, CosmosHTTP: true, AdminDisabled: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	return srv
}

// TestFailedSyncStopsTheServer: once a sync of the write-ahead log fails,
// no write is acknowledged any more, the server reports a fatal error
// saying to restart, and the restarted server has every write it
// acknowledged.
func TestFailedSyncStopsTheServer(t *testing.T) {
	dir := t.TempDir()
	inj := &failingSyncs{}
	srv := start(t, dir, errorfs.Wrap(vfs.Default, inj))
	ctx := context.Background()
	conn := srv.ConnectionString(azauth.DevAccount, azauth.DevKey)
	blobs, err := azblob.NewClientFromConnectionString(conn, &azblob.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	must(t, "create container", err2(blobs.CreateContainer(ctx, "sync", nil)))
	var acked []string
	for i := range 20 {
		name := fmt.Sprintf("before-%02d", i)
		must(t, "upload "+name, err2(blobs.UploadBuffer(ctx, "sync", name, []byte(name), nil)))
		acked = append(acked, name)
	}
	inj.armed.Store(true)
	failed := 0
	for i := range 10 {
		name := fmt.Sprintf("after-%02d", i)
		if _, err := blobs.UploadBuffer(ctx, "sync", name, []byte(name), nil); err != nil {
			failed++
		} else {
			t.Errorf("%s was acknowledged after a failed sync", name)
		}
	}
	if failed != 10 {
		t.Fatalf("%d writes failed after the sync failure, want all 10", failed)
	}
	select {
	case err := <-srv.Err():
		if !strings.Contains(err.Error(), "restart") || !errors.Is(err, errSyncFailed) {
			t.Errorf("fatal error %q does not say to restart or what failed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not report the failed store")
	}
	shutdownCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx) // closing a store whose log failed may report it again

	restarted := start(t, dir, nil)
	defer func() { _ = restarted.Shutdown(context.Background()) }()
	blobs, err = azblob.NewClientFromConnectionString(restarted.ConnectionString(azauth.DevAccount, azauth.DevKey), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range acked {
		resp, err := blobs.DownloadStream(ctx, "sync", name, nil)
		must(t, "read "+name+" after restart", err)
		if got := string(testkit.ReadBody(t, resp.Body)); got != name {
			t.Errorf("%s holds %q after restart", name, got)
		}
	}
	must(t, "write after restart", err2(blobs.UploadBuffer(ctx, "sync", "restarted", []byte("ok"), nil)))
}
