package diskfaults

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/server"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// smallVolume is the size of the volume TestSmallVolume mounts: what
// many CI set-ups give a job (a tmpfs of a few hundred MiB).
const smallVolume = 400 << 20

// mountSmallVolume mounts a tmpfs of size bytes on a fresh directory,
// unmounted when the test ends. Mounting needs root (CI runs as root):
// elsewhere the test skips, but never in CI, where a skip would hide
// that the test did not run.
func mountSmallVolume(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount a %d MiB tmpfs (CI runs as root): %v", size>>20, err)
		}
		t.Skipf("cannot mount a %d MiB tmpfs (needs root): %v", size>>20, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// allocated is what dir's files occupy on disk (du: allocated blocks,
// preallocated ones included), and their apparent size.
func allocated(t *testing.T, dir string) (onDisk, apparent int64) {
	t.Helper()
	onDisk, apparent, err := testkit.DiskUsage(dir)
	if err != nil {
		t.Fatal(err)
	}
	return onDisk, apparent
}

// startOnVolume starts a server on dir with the default reserve, as
// cerulean serve does; the test shuts it down.
func startOnVolume(t *testing.T, dir string) *server.Server {
	t.Helper()
	srv, err := server.Start(context.Background(), server.Config{
		Host: "127.0.0.1", DataDir: dir, CosmosHTTP: true, MinFreeBytes: server.AutoMinFree,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatalf("start on the small volume: %v", err)
	}
	// A test that fails half-way still stops the server before the
	// volume is unmounted (cleanups run last-registered first).
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { _ = srv.Shutdown(context.Background()) }) })
	stops[srv] = &once
	return srv
}

// stops makes each server's shutdown run once, by the test or at cleanup.
var stops = map[*server.Server]*sync.Once{}

func stop(t *testing.T, srv *server.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	stops[srv].Do(func() { err = srv.Shutdown(ctx) })
	if err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

// payload is blob i's content: 1 MiB that does not compress (the store
// compresses its tables), so that it takes its full size on disk.
func payload(i int) []byte {
	r := rand.New(rand.NewPCG(uint64(i), 35))
	b := make([]byte, 1<<20)
	for j := 0; j < len(b); j += 8 {
		v := r.Uint64()
		for k := range 8 {
			b[j+k] = byte(v >> (8 * k))
		}
	}
	return b
}

func isFull(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == http.StatusServiceUnavailable && re.ErrorCode == "ServerBusy"
}

// TestSmallVolume runs the server with its default settings on a real
// 400 MiB file system: a fresh data directory takes at most 8 MiB;
// at least 100 MiB of 1 MiB blobs are accepted before the first refusal;
// deleting half of them lets writes resume within 60 s, without a
// restart; and a server restarted while the volume is still full starts,
// serves every acknowledged blob byte for byte, and reports not ready.
func TestSmallVolume(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a 400 MiB volume")
	}
	vol := mountSmallVolume(t, smallVolume)
	dir := filepath.Join(vol, "data")
	srv := startOnVolume(t, dir)
	onDisk, apparent := allocated(t, dir)
	t.Logf("fresh data directory: %.1f MiB on disk, %.1f KiB apparent", float64(onDisk)/(1<<20), float64(apparent)/(1<<10))
	if onDisk > 8<<20 {
		t.Errorf("a fresh data directory takes %d bytes on disk, want at most 8 MiB", onDisk)
	}

	ctx := context.Background()
	client := func(srv *server.Server) *azblob.Client {
		c, err := azblob.NewClientFromConnectionString(srv.ConnectionString(azauth.DevAccount, azauth.DevKey), &azblob.ClientOptions{ClientOptions: noRetry})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	blobs := client(srv)
	must(t, "create container", err2(blobs.CreateContainer(ctx, "small", nil)))
	name := func(i int) string { return fmt.Sprintf("blob-%04d", i) }
	acked := map[int]bool{}
	// fill uploads 1 MiB blobs from next on until the first refusal and
	// returns the index of the refused one.
	fill := func(next int) int {
		for i := next; ; i++ {
			_, err := blobs.UploadBuffer(ctx, "small", name(i), payload(i), nil)
			if isFull(err) {
				return i
			}
			must(t, "upload "+name(i), err)
			acked[i] = true
		}
	}
	refused := fill(0)
	onDisk, apparent = allocated(t, dir)
	t.Logf("first refusal after %d MiB of blobs: data directory %.1f MiB on disk, %.1f MiB apparent", len(acked), float64(onDisk)/(1<<20), float64(apparent)/(1<<20))
	if len(acked) < 100 {
		t.Errorf("writes refused after %d MiB of 1 MiB blobs on a %d MiB volume, want at least 100", len(acked), smallVolume>>20)
	}

	// Delete half; writes resume by themselves.
	deleted := time.Now()
	for i := range refused {
		if i%2 == 0 {
			must(t, "delete "+name(i), err2(blobs.DeleteBlob(ctx, "small", name(i), nil)))
			delete(acked, i)
		}
	}
	for {
		_, err := blobs.UploadBuffer(ctx, "small", name(refused), payload(refused), nil)
		if err == nil {
			acked[refused] = true
			break
		}
		if !isFull(err) {
			t.Fatalf("upload after deleting half: %v", err)
		}
		if time.Since(deleted) > time.Minute {
			onDisk, _ = allocated(t, dir)
			t.Fatalf("writes still refused a minute after half the blobs were deleted (data directory %.1f MiB on disk)", float64(onDisk)/(1<<20))
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("writes resumed %v after deleting half the blobs", time.Since(deleted).Round(100*time.Millisecond))

	// Full again, then a restart while still full.
	refused = fill(refused + 1)
	stop(t, srv)
	srv = startOnVolume(t, dir)
	blobs = client(srv)
	for i := range acked {
		resp, err := blobs.DownloadStream(ctx, "small", name(i), nil)
		must(t, "read "+name(i)+" after the restart", err)
		if got, want := sha256.Sum256(testkit.ReadBody(t, resp.Body)), sha256.Sum256(payload(i)); !bytes.Equal(got[:], want[:]) {
			t.Fatalf("%s changed across the restart", name(i))
		}
	}
	// The restart may have released some of the store's own files
	// (write-ahead logs kept for reuse); the restarted server refuses
	// writes once the reserve is reached again, and says it is not ready.
	blobsBefore := len(acked)
	fill(refused)
	t.Logf("after the restart, %d MiB more accepted before the refusal", len(acked)-blobsBefore)
	if resp, err := http.Get("http://" + srv.AdminAddr() + "/readyz"); err != nil {
		t.Fatal(err)
	} else if _ = resp.Body.Close(); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz on a full volume: %d, want 503", resp.StatusCode)
	}
	t.Logf("restart while full: %d acknowledged blobs read back", blobsBefore)
	onDisk, apparent = allocated(t, dir)
	t.Logf("data directory at the end: %.1f MiB on disk, %.1f MiB apparent", float64(onDisk)/(1<<20), float64(apparent)/(1<<20))
}

// TestTenMiBOnA128MiBVolume: with the default settings, 10 MiB of blobs
// fit comfortably on a 128 MiB volume (the reserve there is 5%, 6.4
// MiB): every upload is accepted, the server stays ready, and the data
// directory takes at most a quarter of the volume.
func TestTenMiBOnA128MiBVolume(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts a volume")
	}
	vol := mountSmallVolume(t, 128<<20)
	dir := filepath.Join(vol, "data")
	srv := startOnVolume(t, dir)
	ctx := context.Background()
	blobs, err := azblob.NewClientFromConnectionString(srv.ConnectionString(azauth.DevAccount, azauth.DevKey), &azblob.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	must(t, "create container", err2(blobs.CreateContainer(ctx, "ten", nil)))
	for i := range 10 {
		must(t, fmt.Sprintf("upload blob %d of 10 MiB", i+1), err2(blobs.UploadBuffer(ctx, "ten", fmt.Sprintf("blob-%d", i), payload(i), nil)))
	}
	if resp, err := http.Get("http://" + srv.AdminAddr() + "/readyz"); err != nil {
		t.Fatal(err)
	} else if _ = resp.Body.Close(); resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz with 10 MiB stored on a 128 MiB volume: %d, want 200", resp.StatusCode)
	}
	onDisk, apparent := allocated(t, dir)
	t.Logf("10 MiB of blobs: data directory %.1f MiB on disk, %.1f MiB apparent", float64(onDisk)/(1<<20), float64(apparent)/(1<<20))
	if onDisk > 32<<20 {
		t.Errorf("10 MiB of blobs take %d bytes on disk, want at most 32 MiB of a 128 MiB volume", onDisk)
	}
	stop(t, srv)
}
