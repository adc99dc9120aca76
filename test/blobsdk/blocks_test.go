package blobsdk_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
)

type blk struct {
	id   string
	size int64
}

func blocksOf(bs []*blockblob.Block) []blk {
	out := make([]blk, 0, len(bs))
	for _, b := range bs {
		out = append(out, blk{deref(b.Name).(string), deref(b.Size).(int64)})
	}
	return out
}

func sortedBlocks(bs []blk) []blk {
	c := append([]blk(nil), bs...)
	sort.Slice(c, func(i, j int) bool { return c[i].id < c[j].id })
	return c
}

func stage(t *testing.T, bb *blockblob.Client, id string, data []byte) {
	t.Helper()
	var err error
	_, err = bb.StageBlock(context.Background(), id, rsc(data), nil)
	must(t, err, "Put Block %q (%d bytes)", id, len(data))
}

func blockList(t *testing.T, bb *blockblob.Client, lt blockblob.BlockListType) blockblob.GetBlockListResponse {
	t.Helper()
	bl, err := bb.GetBlockList(context.Background(), lt, nil)
	must(t, err, "Get Block List %s", lt)
	return bl
}

// TestStageAndCommitBlocks: staged blocks are listed as uncommitted, the blob
// does not exist until commit, commit concatenates in list order, and the
// committed listing reports sizes and the blob's ETag.
func TestStageAndCommitBlocks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cc := f.createContainer(cname("blocks"), nil)
	bb := cc.NewBlockBlobClient("assembled")

	parts := [][]byte{randBytes(1, 1000), randBytes(2, 1), randBytes(3, 70000), randBytes(4, 250000), randBytes(5, 12345)}
	var staged []blk
	for i, p := range parts {
		stage(t, bb, blockID(i), p)
		staged = append(staged, blk{blockID(i), int64(len(p))})
	}

	_, err := cc.NewBlockBlobClient("nothing-here").GetBlockList(ctx, blockblob.BlockListTypeAll, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Get Block List of a blob that has no blocks at all")
	_, err = bb.GetProperties(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Get Blob Properties of a blob with only uncommitted blocks")
	_, err = bb.DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Get Blob of a blob with only uncommitted blocks")

	bl := blockList(t, bb, blockblob.BlockListTypeUncommitted)
	if g := sortedBlocks(blocksOf(bl.UncommittedBlocks)); fmt.Sprint(g) != fmt.Sprint(sortedBlocks(staged)) {
		t.Errorf("uncommitted blocks %v, want %v", g, staged)
	}
	if len(bl.CommittedBlocks) != 0 {
		t.Errorf("blocklisttype=uncommitted returned committed blocks %v", blocksOf(bl.CommittedBlocks))
	}
	bl = blockList(t, bb, blockblob.BlockListTypeAll)
	if len(bl.CommittedBlocks) != 0 || len(bl.UncommittedBlocks) != len(parts) {
		t.Errorf("blocklisttype=all before commit: %d committed, %d uncommitted; want 0 and %d", len(bl.CommittedBlocks), len(bl.UncommittedBlocks), len(parts))
	}

	// Commit in a different order than staged, leaving nothing out.
	order := []int{3, 0, 4, 1, 2}
	var ids []string
	var want []byte
	var wantCommitted []blk
	for _, i := range order {
		ids = append(ids, blockID(i))
		want = append(want, parts[i]...)
		wantCommitted = append(wantCommitted, staged[i])
	}
	cr, err := bb.CommitBlockList(ctx, ids, &blockblob.CommitBlockListOptions{
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: ptr("application/x-test")},
		Metadata:    strMeta(map[string]string{"parts": "5"}),
	})
	must(t, err, "Put Block List")
	expectContent(t, bb.BlobClient(), want, "content after Put Block List")
	p := props(t, bb.BlobClient())
	if *p.ETag != etagOf(cr.ETag) {
		t.Errorf("Get Blob Properties ETag %q, Put Block List returned %q", *p.ETag, etagOf(cr.ETag))
	}
	if deref(p.ContentType) != any("application/x-test") {
		t.Errorf("Content-Type after Put Block List: %v", deref(p.ContentType))
	}
	if err := metaEqualFold(p.Metadata, map[string]string{"parts": "5"}); err != nil {
		t.Errorf("metadata after Put Block List: %v", err)
	}

	bl = blockList(t, bb, blockblob.BlockListTypeCommitted)
	if g := blocksOf(bl.CommittedBlocks); fmt.Sprint(g) != fmt.Sprint(wantCommitted) {
		t.Errorf("committed blocks %v, want %v (commit order)", g, wantCommitted)
	}
	if len(bl.UncommittedBlocks) != 0 {
		t.Errorf("blocklisttype=committed returned uncommitted blocks")
	}
	if etagOf(bl.ETag) != *p.ETag {
		t.Errorf("Get Block List (committed) ETag %q, want blob ETag %q", etagOf(bl.ETag), *p.ETag)
	}
	if deref(bl.BlobContentLength) != any(int64(len(want))) {
		t.Errorf("Get Block List x-ms-blob-content-length %v, want %d", deref(bl.BlobContentLength), len(want))
	}
	bl = blockList(t, bb, blockblob.BlockListTypeUncommitted)
	if len(bl.UncommittedBlocks) != 0 {
		t.Errorf("uncommitted blocks remain after committing all of them: %v", blocksOf(bl.UncommittedBlocks))
	}

	// A ranged read across block boundaries.
	r := tryDownload(t, bb.BlobClient(), &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: 249990, Count: 1030}})
	must(t, r.Err, "ranged Get Blob across blocks")
	if !bytes.Equal(r.Body, want[249990:249990+1030]) {
		t.Errorf("ranged read across block boundaries returned wrong bytes")
	}

	// Committing an empty list makes an empty blob.
	_, err = bb.CommitBlockList(ctx, []string{}, nil)
	must(t, err, "Put Block List (empty)")
	expectContent(t, bb.BlobClient(), []byte{}, "after committing an empty block list")
}

// TestRecommitMixedBlockList: Put Block List with <Committed>, <Uncommitted>
// and <Latest> elements (raw XML, SAS-authorised).
func TestRecommitMixedBlockList(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("mixed"), nil)
	bb := cc.NewBlockBlobClient("m")
	b0, b1, b2 := []byte("zero-"), []byte("one-"), []byte("two-")
	stage(t, bb, blockID(0), b0)
	stage(t, bb, blockID(1), b1)
	stage(t, bb, blockID(2), b2)
	_, err := bb.CommitBlockList(context.Background(), []string{blockID(0), blockID(1), blockID(2)}, nil)
	must(t, err, "initial Put Block List")
	before := props(t, bb.BlobClient())

	// New uncommitted version of block 1, a brand-new block 3.
	b1new, b3 := []byte("ONE-NEW-"), []byte("three-")
	stage(t, bb, blockID(1), b1new)
	stage(t, bb, blockID(3), b3)

	// Invalid: <Committed> naming a block that is only uncommitted.
	res := f.rawCommit(bb, blockListXML([2]string{"Committed", blockID(3)}), nil)
	if res.StatusCode != http.StatusBadRequest || res.Code != string(bloberror.InvalidBlockList) {
		t.Errorf("Put Block List <Committed>uncommitted-only block</Committed>: HTTP %d %q, want 400 InvalidBlockList\n%s", res.StatusCode, res.Code, res.Body)
	}
	// Invalid: <Uncommitted> naming a block that is only committed.
	res = f.rawCommit(bb, blockListXML([2]string{"Uncommitted", blockID(0)}), nil)
	if res.StatusCode != http.StatusBadRequest || res.Code != string(bloberror.InvalidBlockList) {
		t.Errorf("Put Block List <Uncommitted>committed-only block</Uncommitted>: HTTP %d %q, want 400 InvalidBlockList\n%s", res.StatusCode, res.Code, res.Body)
	}
	expectContent(t, bb.BlobClient(), []byte("zero-one-two-"), "after rejected block lists")
	if p := props(t, bb.BlobClient()); *p.ETag != *before.ETag {
		t.Errorf("rejected Put Block List changed the ETag")
	}

	// Valid mix: committed 0, uncommitted (new) 1, latest 3 (uncommitted
	// only), committed 2, committed 1 (the OLD committed version of 1).
	res = f.rawCommit(bb, blockListXML(
		[2]string{"Committed", blockID(0)},
		[2]string{"Uncommitted", blockID(1)},
		[2]string{"Latest", blockID(3)},
		[2]string{"Committed", blockID(2)},
	), nil)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("Put Block List with Committed/Uncommitted/Latest: HTTP %d %q, want 201\n%s", res.StatusCode, res.Code, res.Body)
	}
	if res.Header.Get("ETag") == "" || res.Header.Get("ETag") == string(*before.ETag) {
		t.Errorf("mixed Put Block List: ETag header %q, want a new ETag", res.Header.Get("ETag"))
	}
	want := append(append(append(append([]byte{}, b0...), b1new...), b3...), b2...)
	expectContent(t, bb.BlobClient(), want, "after mixed Put Block List")
	bl := blockList(t, bb, blockblob.BlockListTypeAll)
	wantBlocks := []blk{{blockID(0), 5}, {blockID(1), int64(len(b1new))}, {blockID(3), int64(len(b3))}, {blockID(2), 4}}
	if g := blocksOf(bl.CommittedBlocks); fmt.Sprint(g) != fmt.Sprint(wantBlocks) {
		t.Errorf("committed blocks after mixed commit: %v, want %v", g, wantBlocks)
	}
	if len(bl.UncommittedBlocks) != 0 {
		t.Errorf("uncommitted blocks after commit: %v, want none", blocksOf(bl.UncommittedBlocks))
	}

	// <Latest> prefers the uncommitted version, falls back to committed.
	b2new := []byte("TWO-NEW-")
	stage(t, bb, blockID(2), b2new)
	res = f.rawCommit(bb, blockListXML([2]string{"Latest", blockID(2)}, [2]string{"Latest", blockID(0)}), nil)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("Put Block List <Latest> x2: HTTP %d %q\n%s", res.StatusCode, res.Code, res.Body)
	}
	expectContent(t, bb.BlobClient(), append(append([]byte{}, b2new...), b0...), "after <Latest> commit")

	// Re-commit a subset of committed blocks through the SDK (<Latest>).
	_, err = bb.CommitBlockList(context.Background(), []string{blockID(0)}, nil)
	must(t, err, "Put Block List (subset)")
	expectContent(t, bb.BlobClient(), b0, "after committing a subset")
	_, err = bb.CommitBlockList(context.Background(), []string{blockID(2)}, nil)
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidBlockList, "Put Block List naming a block dropped by the previous commit")
}

// TestCommitUnknownBlock: an unknown block ID is 400 InvalidBlockList and
// changes nothing.
func TestCommitUnknownBlock(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("unknown"), nil)
	bb := cc.NewBlockBlobClient("u")
	upload(t, bb, []byte("original"), nil)
	stage(t, bb, blockID(0), []byte("staged"))
	_, err := bb.CommitBlockList(context.Background(), []string{blockID(0), blockID(99)}, nil)
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidBlockList, "Put Block List with an unknown block ID")
	expectContent(t, bb.BlobClient(), []byte("original"), "after rejected Put Block List")
	// The staged block survives a failed commit.
	bl := blockList(t, bb, blockblob.BlockListTypeUncommitted)
	if g := blocksOf(bl.UncommittedBlocks); fmt.Sprint(g) != fmt.Sprint([]blk{{blockID(0), 6}}) {
		t.Errorf("uncommitted blocks after a failed commit: %v, want the staged block", g)
	}

	// Unknown block on a blob that doesn't exist yet: nothing gets created.
	nb := cc.NewBlockBlobClient("never")
	_, err = nb.CommitBlockList(context.Background(), []string{blockID(5)}, nil)
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidBlockList, "Put Block List with an unknown block on a new blob")
	_, err = nb.GetProperties(context.Background(), nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "blob after failed first commit")
}

// TestBlockIDLengthMismatch: block IDs of one blob must all have the same
// length; a different length is 400 InvalidBlobOrBlock.
func TestBlockIDLengthMismatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("idlen"), nil)
	bb := cc.NewBlockBlobClient("x")
	short := base64.StdEncoding.EncodeToString([]byte("abc"))
	long := base64.StdEncoding.EncodeToString([]byte("abcdefgh"))
	stage(t, bb, short, []byte("one"))
	_, err := bb.StageBlock(context.Background(), long, rsc([]byte("two")), nil)
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidBlobOrBlock, "Put Block with a block ID of a different length")
	bl := blockList(t, bb, blockblob.BlockListTypeUncommitted)
	if g := blocksOf(bl.UncommittedBlocks); fmt.Sprint(g) != fmt.Sprint([]blk{{short, 3}}) {
		t.Errorf("uncommitted blocks after rejected Put Block: %v", g)
	}
}

// TestUncommittedBlocksDiscardedAfterCommit: blocks not named in the commit
// are gone afterwards.
func TestUncommittedBlocksDiscardedAfterCommit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("discard"), nil)
	bb := cc.NewBlockBlobClient("d")
	for i := 0; i < 4; i++ {
		stage(t, bb, blockID(i), []byte(fmt.Sprintf("part%d", i)))
	}
	_, err := bb.CommitBlockList(context.Background(), []string{blockID(0), blockID(2)}, nil)
	must(t, err, "Put Block List")
	expectContent(t, bb.BlobClient(), []byte("part0part2"), "after committing 2 of 4 blocks")
	bl := blockList(t, bb, blockblob.BlockListTypeAll)
	if len(bl.UncommittedBlocks) != 0 {
		t.Errorf("blocks left out of the commit are still listed as uncommitted: %v", blocksOf(bl.UncommittedBlocks))
	}
	if g := blocksOf(bl.CommittedBlocks); fmt.Sprint(g) != fmt.Sprint([]blk{{blockID(0), 5}, {blockID(2), 5}}) {
		t.Errorf("committed blocks: %v", g)
	}
	_, err = bb.CommitBlockList(context.Background(), []string{blockID(0), blockID(1)}, nil)
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidBlockList, "Put Block List naming a discarded block")
	expectContent(t, bb.BlobClient(), []byte("part0part2"), "after rejected commit of a discarded block")

	// A Put Blob over a block blob also discards its uncommitted blocks.
	stage(t, bb, blockID(7), []byte("late"))
	upload(t, bb, []byte("replaced"), nil)
	bl = blockList(t, bb, blockblob.BlockListTypeAll)
	if len(bl.UncommittedBlocks) != 0 {
		t.Errorf("uncommitted blocks survive a Put Blob: %v", blocksOf(bl.UncommittedBlocks))
	}
}

// TestLargeUploads: a 20 MiB UploadBuffer and a 20 MiB UploadStream with
// 4 MiB blocks (5 Put Block + 1 Put Block List) read back identically.
func TestLargeUploads(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cc := f.createContainer(cname("large"), nil)
	const size = 20 << 20
	data := randBytes(20, size)
	want := sha256.Sum256(data)

	check := func(bb *blockblob.Client, what string) {
		t.Helper()
		r := tryDownload(t, bb.BlobClient(), nil)
		must(t, r.Err, "%s: Get Blob", what)
		if got := sha256.Sum256(r.Body); got != want {
			t.Errorf("%s: Get Blob returned %d bytes with SHA-256 %x, want %d bytes %x", what, len(r.Body), got, size, want)
		}
		buf := make([]byte, size)
		n, err := bb.DownloadBuffer(ctx, buf, &blob.DownloadBufferOptions{BlockSize: 4 << 20, Concurrency: 4})
		must(t, err, "%s: DownloadBuffer", what)
		if got := sha256.Sum256(buf[:n]); n != size || got != want {
			t.Errorf("%s: DownloadBuffer returned %d bytes with SHA-256 %x", what, n, got)
		}
	}

	// UploadBuffer: the SDK sends anything up to 256 MiB as one Put Blob
	// regardless of BlockSize.
	bufBlob := cc.NewBlockBlobClient("buffer.bin")
	mark := f.rec.mark()
	_, err := bufBlob.UploadBuffer(ctx, data, &blockblob.UploadBufferOptions{BlockSize: 4 << 20, Concurrency: 4})
	must(t, err, "UploadBuffer 20 MiB")
	t.Logf("UploadBuffer 20 MiB sent %d request(s)", len(f.rec.since(mark)))
	check(bufBlob, "UploadBuffer")

	// UploadStream: 5 staged blocks then a commit.
	stBlob := cc.NewBlockBlobClient("stream.bin")
	mark = f.rec.mark()
	_, err = stBlob.UploadStream(ctx, bytes.NewReader(data), &blockblob.UploadStreamOptions{BlockSize: 4 << 20, Concurrency: 3})
	must(t, err, "UploadStream 20 MiB")
	var stages, commits int
	for _, r := range f.rec.since(mark) {
		switch r.Query.Get("comp") {
		case "block":
			stages++
			if r.Status != http.StatusCreated {
				t.Errorf("Put Block answered %d, want 201", r.Status)
			}
		case "blocklist":
			commits++
			if r.Status != http.StatusCreated {
				t.Errorf("Put Block List answered %d, want 201", r.Status)
			}
		}
	}
	if stages != 5 || commits != 1 {
		t.Errorf("UploadStream 20 MiB / 4 MiB blocks sent %d Put Block and %d Put Block List, want 5 and 1", stages, commits)
	}
	bl := blockList(t, stBlob, blockblob.BlockListTypeCommitted)
	if len(bl.CommittedBlocks) != 5 {
		t.Errorf("UploadStream blob has %d committed blocks, want 5", len(bl.CommittedBlocks))
	}
	for _, b := range bl.CommittedBlocks {
		if deref(b.Size) != any(int64(4<<20)) {
			t.Errorf("committed block %v has size %v, want %d", deref(b.Name), deref(b.Size), 4<<20)
		}
	}
	check(stBlob, "UploadStream")

	p := props(t, stBlob.BlobClient())
	if deref(p.ContentLength) != any(int64(size)) {
		t.Errorf("UploadStream blob Content-Length %v", deref(p.ContentLength))
	}
}

// TestConditionalCommitBlockList: a stale If-Match on Put Block List is 412,
// content unchanged, staged blocks kept; If-None-Match:* on an existing blob
// is 409.
func TestConditionalCommitBlockList(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cc := f.createContainer(cname("condcommit"), nil)
	bb := cc.NewBlockBlobClient("c")
	v1 := upload(t, bb, []byte("v1"), nil)
	v2 := upload(t, bb, []byte("v2"), nil)
	stage(t, bb, blockID(0), []byte("blocks-v3"))

	_, err := bb.CommitBlockList(ctx, []string{blockID(0)}, &blockblob.CommitBlockListOptions{AccessConditions: ifMatch(*v1.ETag)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Put Block List with stale If-Match")
	expectContent(t, bb.BlobClient(), []byte("v2"), "after rejected conditional commit")
	if p := props(t, bb.BlobClient()); *p.ETag != *v2.ETag {
		t.Errorf("rejected commit changed ETag %q -> %q", *v2.ETag, *p.ETag)
	}

	_, err = bb.CommitBlockList(ctx, []string{blockID(0)}, &blockblob.CommitBlockListOptions{AccessConditions: ifNoneMatch(azcore.ETagAny)})
	checkErr(t, err, http.StatusConflict, bloberror.BlobAlreadyExists, "Put Block List with If-None-Match: * on an existing blob")
	expectContent(t, bb.BlobClient(), []byte("v2"), "after rejected If-None-Match commit")

	bl := blockList(t, bb, blockblob.BlockListTypeUncommitted)
	if len(bl.UncommittedBlocks) != 1 {
		t.Fatalf("staged block lost by rejected commits: uncommitted %v", blocksOf(bl.UncommittedBlocks))
	}
	_, err = bb.CommitBlockList(ctx, []string{blockID(0)}, &blockblob.CommitBlockListOptions{AccessConditions: ifMatch(*v2.ETag)})
	must(t, err, "Put Block List with current If-Match")
	expectContent(t, bb.BlobClient(), []byte("blocks-v3"), "after conditional commit")

	// If-None-Match:* on a blob with only uncommitted blocks creates it.
	nb := cc.NewBlockBlobClient("fresh")
	stage(t, nb, blockID(0), []byte("fresh"))
	_, err = nb.CommitBlockList(ctx, []string{blockID(0)}, &blockblob.CommitBlockListOptions{AccessConditions: ifNoneMatch(azcore.ETagAny)})
	must(t, err, "Put Block List with If-None-Match: * on a new blob")
	expectContent(t, nb.BlobClient(), []byte("fresh"), "created by conditional commit")

	// The date conditions: against the blob's Last-Modified, and on a blob
	// with only uncommitted blocks against when they were staged (the Go
	// SDK's recordings go-azblob-TestBlobPutBlockListIfModifiedSince{True,False}
	// and -IfUnmodifiedSince{True,False}: ten seconds either side).
	last := *props(t, bb.BlobClient()).LastModified
	stage(t, bb, blockID(1), []byte("v4"))
	_, err = bb.CommitBlockList(ctx, []string{blockID(1)}, &blockblob.CommitBlockListOptions{AccessConditions: ifModifiedSince(last.Add(10 * time.Second))})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Put Block List with If-Modified-Since after Last-Modified")
	_, err = bb.CommitBlockList(ctx, []string{blockID(1)}, &blockblob.CommitBlockListOptions{AccessConditions: ifUnmodifiedSince(last.Add(-10 * time.Second))})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Put Block List with If-Unmodified-Since before Last-Modified")
	_, err = bb.CommitBlockList(ctx, []string{blockID(1)}, &blockblob.CommitBlockListOptions{AccessConditions: ifModifiedSince(last.Add(-10 * time.Second))})
	must(t, err, "Put Block List with If-Modified-Since before Last-Modified")

	staged := cc.NewBlockBlobClient("staged-only")
	stage(t, staged, blockID(0), []byte("s"))
	now := time.Now()
	_, err = staged.CommitBlockList(ctx, []string{blockID(0)}, &blockblob.CommitBlockListOptions{AccessConditions: ifModifiedSince(now.Add(10 * time.Second))})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Put Block List with If-Modified-Since after the staged block")
	_, err = staged.CommitBlockList(ctx, []string{blockID(0)}, &blockblob.CommitBlockListOptions{AccessConditions: ifUnmodifiedSince(now.Add(-10 * time.Second))})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Put Block List with If-Unmodified-Since before the staged block")
	_, err = staged.CommitBlockList(ctx, []string{blockID(0)}, &blockblob.CommitBlockListOptions{AccessConditions: ifUnmodifiedSince(now.Add(10 * time.Second))})
	must(t, err, "Put Block List with If-Unmodified-Since after the staged block")
}

// TestMalformedBlockListXML: broken XML bodies are 400 InvalidXmlDocument.
func TestMalformedBlockListXML(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("badxml"), nil)
	bb := cc.NewBlockBlobClient("x")
	upload(t, bb, []byte("keep me"), nil)
	stage(t, bb, blockID(0), []byte("blk"))
	bodies := []string{
		`<?xml version="1.0" encoding="utf-8"?><BlockList><Latest>` + blockID(0) + `</Latest>`,
		`this is not xml`,
		`<BlockList><Latest>` + blockID(0) + `</Committed></BlockList>`,
	}
	for _, body := range bodies {
		res := f.rawCommit(bb, body, nil)
		if res.StatusCode != http.StatusBadRequest || res.Code != string(bloberror.InvalidXMLDocument) {
			t.Errorf("Put Block List with body %q: HTTP %d %q, want 400 InvalidXmlDocument\n%s", body, res.StatusCode, res.Code, res.Body)
		}
	}
	expectContent(t, bb.BlobClient(), []byte("keep me"), "after malformed block lists")
}
