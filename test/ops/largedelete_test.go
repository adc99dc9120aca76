package ops

import (
	"bytes"
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	fileservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

// largeMiB is the size of each object TestDeletingLargeObjects writes
// and deletes; 0 skips it (it writes four times that much).
var largeMiB = flag.Int("ops.large-mib", 0, "MiB per object TestDeletingLargeObjects writes and deletes (0: skip)")

// incompressible is n bytes the store's compression cannot shrink.
func incompressible(n int) []byte {
	r := rand.New(rand.NewPCG(35, 28))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for k := range 8 {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	return b
}

// TestDeletingLargeObjects deletes, on a durable server, a block blob
// committed from staged blocks, a container holding one, the content of
// one that a small Put Blob replaces, an Azure Files
// file written range by range and a share holding one, each of
// -ops.large-mib MiB. Every delete must succeed: the store's counts of
// stored bytes read what a range deletion removes, and before deletions
// went in bounded pieces a 1 GiB file's delete answered 500
// OperationTimedOut. Each is answered once committed, and the data is
// collected after the answer. When the server stops, its counts equal a full
// recount and the content store's invariants hold (servertest), so
// nothing deleted is left behind. The unit test of the bound is
// extentstore's TestLargeDeletesReadBoundedPieces; this one is for a
// long run: -ops.large-mib 1024.
func TestDeletingLargeObjects(t *testing.T) {
	if *largeMiB <= 0 {
		t.Skip("a long run: -ops.large-mib N writes and deletes 4 N MiB")
	}
	env := servertest.Start(t, servertest.WithDataDir(t.TempDir()))
	ctx := context.Background()
	size := int64(*largeMiB) << 20
	const block = 256 << 20
	buf := incompressible(int(min(size, block)))

	blobs, err := azblob.NewClientFromConnectionString(env.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"large", "largec", "largeo"} {
		if _, err := blobs.CreateContainer(ctx, c, nil); err != nil {
			t.Fatal(err)
		}
		bb := blobs.ServiceClient().NewContainerClient(c).NewBlockBlobClient("b")
		var ids []string
		for off, i := int64(0), 0; off < size; off, i = off+int64(len(buf)), i+1 {
			id := base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "%08d", i))
			buf[0] = byte(i)
			n := min(int64(len(buf)), size-off)
			if _, err := bb.StageBlock(ctx, id, streaming.NopCloser(bytes.NewReader(buf[:n])), nil); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		if _, err := bb.CommitBlockList(ctx, ids, nil); err != nil {
			t.Fatal(err)
		}
	}
	timed := func(what string, err error, start time.Time) {
		t.Helper()
		if err != nil {
			t.Errorf("%s of %d MiB: %v", what, *largeMiB, err)
			return
		}
		t.Logf("%s of %d MiB: %v", what, *largeMiB, time.Since(start).Round(time.Millisecond))
	}
	start := time.Now()
	_, err = blobs.DeleteBlob(ctx, "large", "b", nil)
	timed("Delete Blob", err, start)
	start = time.Now()
	_, err = blobs.DeleteContainer(ctx, "largec", nil)
	timed("Delete Container", err, start)
	start = time.Now()
	_, err = blobs.UploadBuffer(ctx, "largeo", "b", []byte("small"), nil)
	timed("Put Blob over a blob", err, start)

	files, err := fileservice.NewClientFromConnectionString(env.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	const rangeSize = 4 << 20 // Put Range's largest
	for _, s := range []string{"large", "larges"} {
		if _, err := files.CreateShare(ctx, s, nil); err != nil {
			t.Fatal(err)
		}
		fc := files.NewShareClient(s).NewRootDirectoryClient().NewFileClient("f")
		if _, err := fc.Create(ctx, size, nil); err != nil {
			t.Fatal(err)
		}
		for off := int64(0); off < size; off += rangeSize {
			r := buf[:min(rangeSize, size-off)]
			r[0] = byte(off >> 22)
			if _, err := fc.UploadRange(ctx, off, streaming.NopCloser(bytes.NewReader(r)), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	start = time.Now()
	_, err = files.NewShareClient("large").NewRootDirectoryClient().NewFileClient("f").Delete(ctx, nil)
	timed("Delete File", err, start)
	start = time.Now()
	_, err = files.NewShareClient("larges").Delete(ctx, nil)
	timed("Delete Share", err, start)

	// Each delete was answered once committed; its data goes after the
	// answer, and nothing is left registered once it has.
	start = time.Now()
	for {
		err = env.Store.View(ctx, func(r kv.Reader) error {
			for _, p := range []string{keyspace.BlobDropped, keyspace.BlobGarbage, keyspace.FileDropped} {
				if err := r.Scan([]byte(p), kv.PrefixEnd([]byte(p)), func(k, _ []byte) error {
					return fmt.Errorf("%q still registered %v after the deletes were answered", k, time.Since(start).Round(time.Second))
				}); err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil || time.Since(start) > 5*time.Minute {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Error(err)
	}
	t.Logf("the deleted data collected %v after the last delete was answered", time.Since(start).Round(time.Millisecond))
}
