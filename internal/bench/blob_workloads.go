package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

func uniqueName(prefix string) string { return fmt.Sprintf("%s-%08x", prefix, rand.Uint32()) }

// blobBase holds a workload's container.
type blobBase struct {
	c         *azblob.Client
	container string
}

func (b *blobBase) setupContainer(ctx context.Context, c *Clients, prefix string) error {
	b.c, b.container = c.Blob, uniqueName(prefix)
	_, err := b.c.CreateContainer(ctx, b.container, nil)
	return err
}

func (b *blobBase) Verify(context.Context) error { return nil }

// blobPut uploads a fresh blob of size bytes per operation.
type blobPut struct {
	blobBase
	name string
	size int
	data []byte
	n    atomic.Int64
}

func (w *blobPut) Name() string { return w.name }

func (w *blobPut) Setup(ctx context.Context, c *Clients) error {
	w.data = bytes.Repeat([]byte("c"), w.size)
	return w.setupContainer(ctx, c, "bench-put")
}

func (w *blobPut) Op(ctx context.Context, worker int) (int64, error) {
	name := fmt.Sprintf("b%d-%d", worker, w.n.Add(1))
	bb := w.c.ServiceClient().NewContainerClient(w.container).NewBlockBlobClient(name)
	if w.size <= 4<<20 {
		_, err := bb.Upload(ctx, nopCloser{bytes.NewReader(w.data)}, nil)
		return int64(w.size), err
	}
	// Large blobs go up as staged blocks and one block list.
	_, err := bb.UploadStream(ctx, bytes.NewReader(w.data), &blockblob.UploadStreamOptions{BlockSize: 4 << 20, Concurrency: 2})
	return int64(w.size), err
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// blobGet downloads one of a few prepared blobs per operation.
type blobGet struct {
	blobBase
	name string
	size int
}

const getBlobs = 16

func (w *blobGet) Name() string { return w.name }

func (w *blobGet) Setup(ctx context.Context, c *Clients) error {
	if err := w.setupContainer(ctx, c, "bench-get"); err != nil {
		return err
	}
	data := bytes.Repeat([]byte("g"), w.size)
	for i := range getBlobs {
		if _, err := w.c.UploadBuffer(ctx, w.container, "g"+strconv.Itoa(i), data, nil); err != nil {
			return err
		}
	}
	return nil
}

func (w *blobGet) Op(ctx context.Context, worker int) (int64, error) {
	resp, err := w.c.DownloadStream(ctx, w.container, "g"+strconv.Itoa(worker%getBlobs), nil)
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }() // read to the end or failed already: Close only frees the connection
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil && n != int64(w.size) {
		err = fmt.Errorf("downloaded %d bytes, want %d", n, w.size)
	}
	return n, err
}

// blobCondUpdate: 32 clients increment one counter blob with read →
// If-Match write → retry on 412. An operation is one committed update.
type blobCondUpdate struct {
	blobBase
	committed atomic.Int64
	conflicts atomic.Int64
}

func (w *blobCondUpdate) Name() string { return "blob-cond-update" }
func (w *blobCondUpdate) Clients() int { return 32 }

func (w *blobCondUpdate) Setup(ctx context.Context, c *Clients) error {
	if err := w.setupContainer(ctx, c, "bench-cond"); err != nil {
		return err
	}
	_, err := w.c.UploadBuffer(ctx, w.container, "counter", []byte("0"), nil)
	return err
}

func (w *blobCondUpdate) Op(ctx context.Context, worker int) (int64, error) {
	bc := w.c.ServiceClient().NewContainerClient(w.container).NewBlockBlobClient("counter")
	for {
		resp, err := bc.DownloadStream(ctx, nil)
		if err != nil {
			return 0, err
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close() // read to the end or failed already: Close only frees the connection
		if err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(string(body))
		if err != nil {
			return 0, fmt.Errorf("counter %q: %w", body, err)
		}
		next := []byte(strconv.Itoa(n + 1))
		_, err = bc.Upload(ctx, nopCloser{bytes.NewReader(next)}, &blockblob.UploadOptions{AccessConditions: &blob.AccessConditions{
			ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: resp.ETag}}})
		var re *azcore.ResponseError
		if errors.As(err, &re) && re.StatusCode == http.StatusPreconditionFailed {
			w.conflicts.Add(1)
			continue
		}
		if err != nil {
			return 0, err
		}
		w.committed.Add(1)
		return int64(len(next)), nil
	}
}

// Verify: no acknowledged update was lost. The counter may exceed the
// acknowledged count by the updates whose answer the end of the run cut
// off (at most one per client), never fall short of it.
func (w *blobCondUpdate) Verify(ctx context.Context) error {
	resp, err := w.c.DownloadStream(ctx, w.container, "counter", nil)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }() // read to the end below: Close only frees the connection
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("read counter: %w", err)
	}
	n, err := strconv.ParseInt(string(body), 10, 64)
	if err != nil {
		return fmt.Errorf("counter %q: %w", body, err)
	}
	acked := w.committed.Load()
	switch {
	case n < acked:
		return fmt.Errorf("counter is %d after %d acknowledged updates: %d lost", n, acked, acked-n)
	case n > acked+int64(w.Clients()):
		return fmt.Errorf("counter is %d after %d acknowledged updates: more than the in-flight ones", n, acked)
	}
	return nil
}

// ConflictRate reports 412s per committed update.
func (w *blobCondUpdate) ConflictRate() float64 {
	if c := w.committed.Load(); c > 0 {
		return float64(w.conflicts.Load()) / float64(c)
	}
	return 0
}

// blobList lists a container of many blobs completely per operation.
type blobList struct {
	blobBase
	blobs int
}

func (w *blobList) Name() string { return "blob-list" }

func (w *blobList) Setup(ctx context.Context, c *Clients) error {
	if err := w.setupContainer(ctx, c, "bench-list"); err != nil {
		return err
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(w.blobs); i = next.Add(1) - 1 {
				if _, err := w.c.UploadBuffer(ctx, w.container, fmt.Sprintf("item-%06d", i), []byte("x"), nil); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func (w *blobList) Op(ctx context.Context, _ int) (int64, error) {
	pager := w.c.ServiceClient().NewContainerClient(w.container).NewListBlobsFlatPager(&container.ListBlobsFlatOptions{})
	seen := 0
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return 0, err
		}
		seen += len(page.Segment.BlobItems)
	}
	if seen != w.blobs {
		return 0, fmt.Errorf("listed %d blobs, want %d", seen, w.blobs)
	}
	return 0, nil
}
