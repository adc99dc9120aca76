package blobsdk_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
)

// expectStoreUnchanged fails unless the store holds exactly the keys and
// bytes it held before.
func expectStoreUnchanged(t *testing.T, f *fixture, before storeStats, what string) {
	t.Helper()
	if after := statStore(t, f.env); after != before {
		t.Errorf("%s changed the store: before %v, after %v (a rejected request must write nothing)", what, before, after)
	}
}

// expectBackTo fails unless the store is back to the state "was": the same
// number of keys and (allowing for a few bytes of bookkeeping such as a
// version counter) the same number of bytes.
func expectBackTo(t *testing.T, f *fixture, was storeStats, what string) {
	t.Helper()
	st := statStore(t, f.env)
	d := st.Bytes - was.Bytes
	if st.Keys != was.Keys || d > 1024 || d < -1024 {
		t.Errorf("%s the store holds %v; before the blob existed it held %v (leftover data)", what, st, was)
	}
}

// TestRejectedWritesLeaveStoreUntouched: rejected conditional Put Blob, Put
// Block List and Content-MD5 mismatches write nothing at all.
func TestRejectedWritesLeaveStoreUntouched(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cc := f.createContainer(cname("atomic"), nil)
	bb := cc.NewBlockBlobClient("target")
	orig := randBytes(1, 300*1024) // spans several store values
	first := upload(t, bb, orig, &blockblob.UploadOptions{Metadata: strMeta(map[string]string{"v": "1"})})
	second := upload(t, bb, orig, &blockblob.UploadOptions{Metadata: strMeta(map[string]string{"v": "2"})})
	stale := *first.ETag
	big := randBytes(2, 1<<20)

	before := statStore(t, f.env)

	_, err := bb.Upload(ctx, rsc(big), &blockblob.UploadOptions{AccessConditions: ifMatch(stale)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "1 MiB Put Blob with stale If-Match")
	expectStoreUnchanged(t, f, before, "Put Blob with stale If-Match")

	_, err = bb.Upload(ctx, rsc(big), &blockblob.UploadOptions{AccessConditions: ifNoneMatch(azcore.ETagAny)})
	checkErr(t, err, http.StatusConflict, bloberror.BlobAlreadyExists, "1 MiB Put Blob with If-None-Match: * on an existing blob")
	expectStoreUnchanged(t, f, before, "Put Blob with If-None-Match: *")

	_, err = bb.Upload(ctx, rsc(big), &blockblob.UploadOptions{TransactionalValidation: blob.TransferValidationTypeMD5(md5sum([]byte("not the content")))})
	checkErr(t, err, http.StatusBadRequest, bloberror.MD5Mismatch, "1 MiB Put Blob with a wrong Content-MD5")
	expectStoreUnchanged(t, f, before, "Put Blob with wrong Content-MD5")

	// Same on a blob that doesn't exist yet: nothing may be created.
	_, err = cc.NewBlockBlobClient("fresh").Upload(ctx, rsc(big), &blockblob.UploadOptions{TransactionalValidation: blob.TransferValidationTypeMD5(md5sum([]byte("nope")))})
	checkErr(t, err, http.StatusBadRequest, bloberror.MD5Mismatch, "Put Blob of a new blob with a wrong Content-MD5")
	expectStoreUnchanged(t, f, before, "new-blob Put Blob with wrong Content-MD5")
	_, err = cc.NewBlobClient("fresh").GetProperties(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "blob after its Put Blob failed the MD5 check")

	_, err = bb.StageBlock(ctx, blockID(9), rsc(big), &blockblob.StageBlockOptions{TransactionalValidation: blob.TransferValidationTypeMD5(md5sum([]byte("nope")))})
	checkErr(t, err, http.StatusBadRequest, bloberror.MD5Mismatch, "Put Block with a wrong Content-MD5")
	expectStoreUnchanged(t, f, before, "Put Block with wrong Content-MD5")

	// Conditional Put Block List: measure after staging, then reject.
	stage(t, bb, blockID(0), big[:400*1024])
	stage(t, bb, blockID(1), big[400*1024:])
	beforeCommit := statStore(t, f.env)
	_, err = bb.CommitBlockList(ctx, []string{blockID(0), blockID(1)}, &blockblob.CommitBlockListOptions{AccessConditions: ifMatch(stale)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Put Block List with stale If-Match")
	expectStoreUnchanged(t, f, beforeCommit, "Put Block List with stale If-Match")
	_, err = bb.CommitBlockList(ctx, []string{blockID(0), blockID(1)}, &blockblob.CommitBlockListOptions{AccessConditions: ifNoneMatch(azcore.ETagAny)})
	checkErr(t, err, http.StatusConflict, bloberror.BlobAlreadyExists, "Put Block List with If-None-Match: *")
	expectStoreUnchanged(t, f, beforeCommit, "Put Block List with If-None-Match: *")
	_, err = bb.CommitBlockList(ctx, []string{blockID(0), blockID(7)}, nil)
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidBlockList, "Put Block List with an unknown block")
	expectStoreUnchanged(t, f, beforeCommit, "Put Block List with an unknown block")

	// And the blob is exactly the second upload.
	expectContent(t, bb.BlobClient(), orig, "after all rejected writes")
	p := props(t, bb.BlobClient())
	if *p.ETag != *second.ETag {
		t.Errorf("ETag after rejected writes %q, want %q", *p.ETag, *second.ETag)
	}
	if err := metaEqualFold(p.Metadata, map[string]string{"v": "2"}); err != nil {
		t.Errorf("metadata after rejected writes: %v", err)
	}

	// The staged blocks still commit fine afterwards.
	_, err = bb.CommitBlockList(ctx, []string{blockID(0), blockID(1)}, &blockblob.CommitBlockListOptions{AccessConditions: ifMatch(*second.ETag)})
	must(t, err, "Put Block List after rejected attempts")
	expectContent(t, bb.BlobClient(), big, "after successful commit")
}

// TestOverwritesDoNotGrowStore: after many overwrites of a 1 MiB blob, by Put
// Blob and by staged blocks, the store holds about one copy.
func TestOverwritesDoNotGrowStore(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cc := f.createContainer(cname("overwrite"), nil)
	bb := cc.NewBlockBlobClient("churn")
	const size = 1 << 20
	empty := statStore(t, f.env)

	upload(t, bb, randBytes(100, size), nil)
	one := statStore(t, f.env)
	if one.Bytes-empty.Bytes < size {
		t.Fatalf("a 1 MiB blob added only %d bytes to the store", one.Bytes-empty.Bytes)
	}
	const slack = 64 << 10
	var last []byte
	for i := 0; i < 12; i++ {
		last = randBytes(uint64(200+i), size)
		if i%2 == 0 {
			upload(t, bb, last, nil)
		} else {
			// 4 blocks of 256 KiB, with fresh IDs each round, plus one
			// staged block that is never committed.
			var ids []string
			for j := 0; j < 4; j++ {
				id := blockID(i*10 + j)
				stage(t, bb, id, last[j*size/4:(j+1)*size/4])
				ids = append(ids, id)
			}
			stage(t, bb, blockID(i*10+9), randBytes(uint64(900+i), 100*1024))
			_, err := bb.CommitBlockList(ctx, ids, nil)
			must(t, err, "Put Block List (overwrite %d)", i)
		}
		st := statStore(t, f.env)
		if st.Bytes > one.Bytes+slack {
			t.Fatalf("after overwrite %d the store holds %v; one copy was %v (orphaned data: %d bytes over)",
				i+1, st, one, st.Bytes-one.Bytes)
		}
	}
	expectContent(t, bb.BlobClient(), last, "after overwrites")

	// Deleting the blob returns the store to its empty-container state.
	_, err := bb.Delete(ctx, nil)
	must(t, err, "Delete Blob")
	expectBackTo(t, f, empty, "after deleting the only blob")
}

// TestDeleteRemovesUncommittedBlocks: deleting a blob also removes its
// staged, uncommitted blocks.
func TestDeleteRemovesUncommittedBlocks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cc := f.createContainer(cname("delblocks"), nil)
	empty := statStore(t, f.env)

	bb := cc.NewBlockBlobClient("with-pending")
	upload(t, bb, randBytes(1, 200*1024), nil)
	for i := 0; i < 3; i++ {
		stage(t, bb, blockID(i), randBytes(uint64(10+i), 150*1024))
	}
	withBlocks := statStore(t, f.env)
	if withBlocks.Bytes-empty.Bytes < 650*1024 {
		t.Fatalf("blob plus 3 staged blocks occupy only %d bytes", withBlocks.Bytes-empty.Bytes)
	}
	_, err := bb.Delete(ctx, nil)
	must(t, err, "Delete Blob with uncommitted blocks")
	expectBackTo(t, f, empty, "after Delete Blob of a blob with uncommitted blocks")
	bl, err := bb.GetBlockList(ctx, blockblob.BlockListTypeAll, nil)
	if err == nil && (len(bl.UncommittedBlocks) != 0 || len(bl.CommittedBlocks) != 0) {
		t.Errorf("Get Block List after delete still lists blocks: committed %d uncommitted %d", len(bl.CommittedBlocks), len(bl.UncommittedBlocks))
	} else if err != nil {
		checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Get Block List after Delete Blob")
	}

	// Re-creating the name starts from a clean slate: the old staged IDs are gone.
	upload(t, bb, []byte("reborn"), nil)
	_, err = bb.CommitBlockList(ctx, []string{blockID(0)}, nil)
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidBlockList, "Put Block List naming a block staged before the blob was deleted")
	expectContent(t, bb.BlobClient(), []byte("reborn"), "re-created blob")
}

// TestLargeRejectedPutLeavesNothing: a Put Blob bigger than one store
// transaction whose Content-MD5 turns out wrong only at the end must leave no
// trace, whether it targeted an existing or a new blob.
func TestLargeRejectedPutLeavesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cc := f.createContainer(cname("largemd5"), nil)
	bb := cc.NewBlockBlobClient("existing")
	orig := randBytes(1, 256*1024)
	upload(t, bb, orig, nil)
	before := statStore(t, f.env)

	big := randBytes(2, 12<<20) // more than kv.MaxTxnSize
	wrong := blob.TransferValidationTypeMD5(md5sum([]byte("definitely not the content")))
	_, err := bb.Upload(ctx, rsc(big), &blockblob.UploadOptions{TransactionalValidation: wrong})
	checkErr(t, err, http.StatusBadRequest, bloberror.MD5Mismatch, "12 MiB Put Blob over an existing blob with a wrong Content-MD5")
	expectStoreUnchanged(t, f, before, "12 MiB Put Blob with wrong Content-MD5 (existing blob)")
	expectContent(t, bb.BlobClient(), orig, "existing blob after rejected 12 MiB Put Blob")

	nb := cc.NewBlockBlobClient("new")
	_, err = nb.Upload(ctx, rsc(big), &blockblob.UploadOptions{TransactionalValidation: wrong})
	checkErr(t, err, http.StatusBadRequest, bloberror.MD5Mismatch, "12 MiB Put Blob of a new blob with a wrong Content-MD5")
	expectStoreUnchanged(t, f, before, "12 MiB Put Blob with wrong Content-MD5 (new blob)")
	_, err = nb.GetProperties(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "new blob after rejected 12 MiB Put Blob")

	_, err = nb.StageBlock(ctx, blockID(0), rsc(big), &blockblob.StageBlockOptions{TransactionalValidation: wrong})
	checkErr(t, err, http.StatusBadRequest, bloberror.MD5Mismatch, "12 MiB Put Block with a wrong Content-MD5")
	expectStoreUnchanged(t, f, before, "12 MiB Put Block with wrong Content-MD5")
}

// TestAbortedUploadLeavesNothing: a client that disconnects half-way through a
// large Put Blob body leaves the old blob intact and no orphaned bytes.
func TestAbortedUploadLeavesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("aborted"), nil)
	bb := cc.NewBlockBlobClient("victim")
	orig := randBytes(3, 200*1024)
	upload(t, bb, orig, nil)
	before := statStore(t, f.env)

	u, err := url.Parse(withQuery(bb.URL(), f.fullAccountSAS()))
	must(t, err, "parsing URL")
	conn, err := net.Dial("tcp", u.Host)
	must(t, err, "dialing %s", u.Host)
	const declared = 12 << 20
	head := fmt.Sprintf("PUT %s HTTP/1.1\r\nHost: %s\r\nx-ms-version: %s\r\nx-ms-blob-type: BlockBlob\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n",
		u.RequestURI(), u.Host, sas.Version, declared)
	if _, err := conn.Write([]byte(head)); err != nil {
		t.Fatalf("writing request head: %v", err)
	}
	chunk := randBytes(4, 1<<20)
	for i := 0; i < 7; i++ { // 7 of the 12 declared MiB
		if _, err := conn.Write(chunk); err != nil {
			t.Fatalf("writing body chunk %d: %v", i, err)
		}
	}
	// Let the server work on the partial body (a streaming server writes
	// some of it to the store) before the client goes away.
	grew := false
	for wait := time.Now().Add(time.Second); time.Now().Before(wait); time.Sleep(20 * time.Millisecond) {
		if statStore(t, f.env) != before {
			grew = true
			break
		}
	}
	_ = conn.Close() // the test is done with the connection either way

	// The server notices the broken body asynchronously; give it a moment,
	// then require the store to be back where it was and to stay there.
	deadline := time.Now().Add(5 * time.Second)
	var st storeStats
	for {
		st = statStore(t, f.env)
		if st == before || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st == before {
		time.Sleep(200 * time.Millisecond)
		st = statStore(t, f.env)
	}
	if st != before {
		t.Errorf("after a client aborted a 12 MiB Put Blob half-way the store holds %v, before it held %v (orphaned partial upload; store grew during upload: %v)", st, before, grew)
	}
	t.Logf("store grew while the partial body streamed in: %v", grew)
	expectContent(t, bb.BlobClient(), orig, "blob after an aborted overwrite")
}

// TestReadersNeverSeeTornOverwrite: while a blob larger than one store
// transaction is overwritten again and again, every Get Blob that starts
// returns one complete version: never a mix of versions (torn) and never a
// body cut short of its Content-Length (aborted).
func TestReadersNeverSeeTornOverwrite(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cn := cname("torn")
	cc := f.createContainer(cn, nil)
	bb := cc.NewBlockBlobClient("big")
	const size = 11 << 20
	versions := [][]byte{randBytes(31, size), randBytes(32, size), randBytes(33, size)}
	sums := map[[32]byte]int{}
	for i, v := range versions {
		sums[sha256.Sum256(v)] = i
	}
	upload(t, bb, versions[0], nil)

	done := make(chan struct{})
	var wg sync.WaitGroup
	var ok, aborted, torn, failed atomic.Int64
	var firstProblem atomic.Value
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc := f.newServiceClient().NewContainerClient(cn).NewBlobClient("big")
			for {
				select {
				case <-done:
					return
				default:
				}
				resp, err := rc.DownloadStream(ctx, nil)
				if err != nil {
					failed.Add(1)
					firstProblem.CompareAndSwap(nil, fmt.Sprintf("Get Blob failed: %s", describe(err)))
					continue
				}
				body, err := io.ReadAll(resp.Body)
				_ = resp.Body.Close() // only the status mattered
				_, known := sums[sha256.Sum256(body)]
				switch {
				case err != nil:
					aborted.Add(1)
					firstProblem.CompareAndSwap(nil, fmt.Sprintf("body cut after %d of %v bytes: %v", len(body), deref(resp.ContentLength), err))
				case !known:
					torn.Add(1)
					firstProblem.CompareAndSwap(nil, fmt.Sprintf("%d bytes matching no written version", len(body)))
				default:
					ok.Add(1)
				}
			}
		}()
	}
	for i := 1; i <= 6; i++ {
		upload(t, bb, versions[i%len(versions)], nil)
	}
	close(done)
	wg.Wait()
	if aborted.Load()+torn.Load()+failed.Load() > 0 {
		t.Errorf("Get Blob during 6 overwrites of an %d-byte blob: %d complete, %d aborted mid-body, %d torn, %d failed; first problem: %v",
			size, ok.Load(), aborted.Load(), torn.Load(), failed.Load(), firstProblem.Load())
	}
	expectContent(t, bb.BlobClient(), versions[6%len(versions)], "after overwrites")
	t.Logf("%d complete reads during 6 overwrites", ok.Load())
}
