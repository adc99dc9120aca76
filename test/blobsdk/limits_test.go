package blobsdk_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"

	blobstore "github.com/cerulean-db/cerulean/internal/blob"
)

// Azure's documented limits, exercised at full size: they are where a
// layout over a key-value store with bounded values and transactions
// breaks first.

// longBlockID is a 64-byte block ID (the longest Azure allows) for block i.
func longBlockID(i int) string {
	return base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "%064d", i))
}

// stageOneByteBlocks stages blocks 0..n-1 of one byte each (byte i%251)
// from a bounded pool of concurrent clients.
func stageOneByteBlocks(t *testing.T, bb *blockblob.Client, n int, id func(int) string) {
	t.Helper()
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if _, err := bb.StageBlock(t.Context(), id(i), rsc([]byte{byte(i % 251)}), nil); err != nil {
					failed.Store(true)
					t.Errorf("stage block %d: %s", i, describe(err))
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

// commitAndVerify commits blocks 0..n-1 in order and checks the content
// read back byte for byte.
func commitAndVerify(t *testing.T, bb *blockblob.Client, n int, id func(int) string) {
	t.Helper()
	ids := make([]string, n)
	want := make([]byte, n)
	for i := range n {
		ids[i], want[i] = id(i), byte(i%251)
	}
	began := time.Now()
	_, err := bb.CommitBlockList(t.Context(), ids, nil)
	must(t, err, "commit %d blocks", n)
	t.Logf("Put Block List of %d blocks: %v", n, time.Since(began))
	resp, err := bb.DownloadStream(t.Context(), nil)
	must(t, err, "download")
	var got bytes.Buffer
	_, err = got.ReadFrom(resp.Body)
	_ = resp.Body.Close() // only the status mattered
	must(t, err, "read body")
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("downloaded %d bytes that differ from the %d committed", got.Len(), n)
	}
	bl, err := bb.GetBlockList(t.Context(), blockblob.BlockListTypeAll, nil)
	must(t, err, "get block list")
	if len(bl.CommittedBlocks) != n || len(bl.UncommittedBlocks) != 0 {
		t.Fatalf("block list: %d committed, %d uncommitted; want %d and 0", len(bl.CommittedBlocks), len(bl.UncommittedBlocks), n)
	}
}

// checkStore verifies the server's storage invariants now (newFixture
// checks them again when the test ends).
func checkStore(t *testing.T, f *fixture) {
	t.Helper()
	if err := blobstore.CheckInvariants(context.Background(), f.env.Store); err != nil {
		t.Error(err)
	}
}

func TestPutBlockListOf50000Blocks(t *testing.T) {
	if testing.Short() {
		t.Skip("stages tens of thousands of blocks one request each")
	}
	t.Parallel()
	f := newFixture(t)
	bb := f.createContainer(cname("limits"), nil).NewBlockBlobClient("fifty-thousand")
	began := time.Now()
	stageOneByteBlocks(t, bb, 50_000, longBlockID)
	t.Logf("staged 50,000 blocks with 64-byte IDs: %v", time.Since(began))
	commitAndVerify(t, bb, 50_000, longBlockID)
	checkStore(t, f)
}

func TestLongNameWith30000Blocks(t *testing.T) {
	if testing.Short() {
		t.Skip("stages tens of thousands of blocks one request each")
	}
	// Not parallel: its 30,000-block commit under the race detector comes
	// within reach of the store's 5 s transaction limit when it shares
	// the CPU with TestPutBlockListOf50000Blocks, so it runs before the
	// parallel tests start.
	f := newFixture(t)
	name := strings.Repeat("a/", 511) + "zz" // 1,024 characters
	bb := f.createContainer(cname("limits"), nil).NewBlockBlobClient(name)
	stageOneByteBlocks(t, bb, 30_000, blockID)
	commitAndVerify(t, bb, 30_000, blockID)
	// Replacing the content frees all 30,000 blocks' data.
	_, err := bb.Upload(t.Context(), rsc([]byte("replaced")), nil)
	must(t, err, "overwrite")
	checkStore(t, f)
}

func TestBlockListTooLong(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	bb := f.createContainer(cname("limits"), nil).NewBlockBlobClient("too-long")
	ids := make([]string, 50_001)
	for i := range ids {
		ids[i] = blockID(i)
	}
	_, err := bb.CommitBlockList(t.Context(), ids, nil)
	mustErr(t, err, http.StatusBadRequest, bloberror.BlockListTooLong, "commit 50,001 blocks")
}

func TestBlockIDLongerThan64Bytes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	bb := f.createContainer(cname("limits"), nil).NewBlockBlobClient("long-id")
	id := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("i"), 65))
	_, err := bb.StageBlock(t.Context(), id, rsc([]byte("x")), nil)
	mustErr(t, err, http.StatusBadRequest, bloberror.InvalidBlockID, "stage a block with a 65-byte ID")
	_, err = bb.StageBlock(t.Context(), longBlockID(0), rsc([]byte("x")), nil)
	must(t, err, "stage a block with a 64-byte ID")
}

func TestMetadataLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("limits"), nil)
	// Azure counts names and values: 8 KiB in all is accepted.
	meta := func(size int) map[string]*string {
		return map[string]*string{"big": ptr(strings.Repeat("v", size-len("big")))}
	}
	_, err := cc.NewBlockBlobClient("at-limit").Upload(t.Context(), rsc([]byte("x")), &blockblob.UploadOptions{Metadata: meta(8 << 10)})
	must(t, err, "upload with 8 KiB of metadata")
	_, err = cc.NewBlockBlobClient("over-limit").Upload(t.Context(), rsc([]byte("x")), &blockblob.UploadOptions{Metadata: meta(8<<10 + 1)})
	mustErr(t, err, http.StatusBadRequest, bloberror.MetadataTooLarge, "upload with 8 KiB + 1 of metadata")
	_, err = cc.NewBlobClient("at-limit").SetMetadata(t.Context(), meta(8<<10+1), &blob.SetMetadataOptions{})
	mustErr(t, err, http.StatusBadRequest, bloberror.MetadataTooLarge, "set 8 KiB + 1 of metadata")
	checkStore(t, f)
}
