package blobsdk_test

import (
	"bytes"
	"crypto/md5"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
)

// readSAS returns the URL of a blob with a read-only blob SAS valid for
// an hour.
func readSAS(t *testing.T, bc *blob.Client) string {
	t.Helper()
	u, err := bc.GetSASURL(sas.BlobPermissions{Read: true}, time.Now().Add(time.Hour), nil)
	must(t, err, "GetSASURL %s", bc.URL())
	return u
}

// uploadSource uploads data as the block blob "source" in cc and returns
// it with a URL that lets a From URL operation read it.
func uploadSource(t *testing.T, cc *container.Client, data []byte) (*blockblob.Client, string) {
	t.Helper()
	src := cc.NewBlockBlobClient("source")
	upload(t, src, data, nil)
	return src, readSAS(t, src.BlobClient())
}

// TestPutBlobFromURL: Put Blob From URL makes a block blob with the
// source's content (201), copies its content headers unless told not to,
// takes tier, tags and metadata from the request, verifies
// x-ms-source-content-md5, and answers source problems as Azure does.
func TestPutBlobFromURL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	cc := f.createContainer(cname("put-from-url"), nil)
	src := cc.NewBlockBlobClient("source")
	data := randBytes(41, 10_000)
	upload(t, src, data, &blockblob.UploadOptions{
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: ptr("text/csv"), BlobCacheControl: ptr("no-cache")},
		Tags:        map[string]string{"team": "red"},
	})
	srcURL := readSAS(t, src.BlobClient())
	sum := md5.Sum(data)

	dst := cc.NewBlockBlobClient("dest")
	var raw *http.Response
	_, err := dst.UploadBlobFromURL(policy.WithCaptureResponse(ctx, &raw), srcURL, &blockblob.UploadBlobFromURLOptions{
		SourceContentMD5: sum[:],
		Tier:             ptr(blob.AccessTierCool),
		Tags:             map[string]string{"copied": "yes"},
		Metadata:         map[string]*string{"origin": ptr("url")},
	})
	must(t, err, "Put Blob From URL")
	if raw.StatusCode != http.StatusCreated {
		t.Fatalf("Put Blob From URL: status %d, want 201", raw.StatusCode)
	}
	expectContent(t, dst.BlobClient(), data, "Put Blob From URL")
	p := props(t, dst.BlobClient())
	if deref(p.ContentType) != "text/csv" || deref(p.CacheControl) != "no-cache" {
		t.Errorf("copied content headers: type %v cache %v, want the source's", deref(p.ContentType), deref(p.CacheControl))
	}
	if !bytes.Equal(p.ContentMD5, sum[:]) {
		t.Errorf("Content-MD5 %x, want the content's %x", p.ContentMD5, sum)
	}
	if deref(p.AccessTier) != string(blob.AccessTierCool) || deref(p.TagCount) != int64(1) {
		t.Errorf("tier %v tag count %v, want Cool and 1", deref(p.AccessTier), deref(p.TagCount))
	}
	if err := metaEqualFold(p.Metadata, map[string]string{"origin": "url"}); err != nil {
		t.Errorf("metadata: %v", err)
	}

	// Without the source's properties, and with the source's tags.
	plain := cc.NewBlockBlobClient("plain")
	_, err = plain.UploadBlobFromURL(ctx, srcURL, &blockblob.UploadBlobFromURLOptions{
		CopySourceBlobProperties: ptr(false),
		CopySourceTags:           ptr(blockblob.BlobCopySourceTagsCopy),
	})
	must(t, err, "Put Blob From URL without source properties")
	if p := props(t, plain.BlobClient()); deref(p.ContentType) != "application/octet-stream" || p.CacheControl != nil {
		t.Errorf("without source properties: type %v cache %v", deref(p.ContentType), deref(p.CacheControl))
	}
	tags, err := plain.GetTags(ctx, nil)
	must(t, err, "Get Blob Tags")
	if len(tags.BlobTagSet) != 1 || *tags.BlobTagSet[0].Key != "team" {
		t.Errorf("tags copied from the source: %v", tags.BlobTagSet)
	}

	// Digest and source conditions.
	wrong := md5.Sum([]byte("something else"))
	_, err = cc.NewBlockBlobClient("bad-md5").UploadBlobFromURL(ctx, srcURL, &blockblob.UploadBlobFromURLOptions{SourceContentMD5: wrong[:]})
	checkErr(t, err, http.StatusBadRequest, bloberror.MD5Mismatch, "Put Blob From URL with a wrong source MD5")
	srcProps := props(t, src.BlobClient())
	_, err = cc.NewBlockBlobClient("cond").UploadBlobFromURL(ctx, srcURL, &blockblob.UploadBlobFromURLOptions{
		SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfMatch: ptr(azcore.ETag("\"0x1\""))},
	})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.SourceConditionNotMet, "source If-Match that fails")
	_, err = cc.NewBlockBlobClient("cond").UploadBlobFromURL(ctx, srcURL, &blockblob.UploadBlobFromURLOptions{
		SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfNoneMatch: srcProps.ETag},
	})
	checkErr(t, err, http.StatusNotModified, bloberror.CannotVerifyCopySource, "source If-None-Match on the source's ETag")
	_, err = cc.NewBlockBlobClient("cond").UploadBlobFromURL(ctx, srcURL, &blockblob.UploadBlobFromURLOptions{
		SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfTags: ptr(`"team"='blue'`)},
	})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.SourceConditionNotMet, "x-ms-source-if-tags that fails")
	_, err = cc.NewBlockBlobClient("cond").UploadBlobFromURL(ctx, srcURL, &blockblob.UploadBlobFromURLOptions{
		SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfMatch: srcProps.ETag, SourceIfTags: ptr(`"team"='red'`)},
	})
	must(t, err, "source If-Match and x-ms-source-if-tags that hold")
	_, err = cc.NewBlockBlobClient("cond").UploadBlobFromURL(ctx, srcURL, &blockblob.UploadBlobFromURLOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: ptr(azcore.ETagAny)}},
	})
	checkErr(t, err, http.StatusConflict, bloberror.BlobAlreadyExists, "destination If-None-Match: * on an existing blob")

	// The source must be authorized by its own URL, even in this account.
	_, err = cc.NewBlockBlobClient("nosas").UploadBlobFromURL(ctx, src.URL(), nil)
	checkErr(t, err, http.StatusNotFound, bloberror.CannotVerifyCopySource, "a private source without a SAS")
	_, err = cc.NewBlockBlobClient("missing").UploadBlobFromURL(ctx, readSAS(t, cc.NewBlobClient("no-such-blob")), nil)
	checkErr(t, err, http.StatusNotFound, bloberror.CannotVerifyCopySource, "a missing source")
	_, err = cc.NewBlockBlobClient("bearer").UploadBlobFromURL(ctx, src.URL(), &blockblob.UploadBlobFromURLOptions{CopySourceAuthorization: ptr("Bearer XXXXXXXX")})
	checkErr(t, err, http.StatusUnauthorized, bloberror.CannotVerifyCopySource, "a Bearer source authorization")
	_, err = cc.NewBlockBlobClient("elsewhere").UploadBlobFromURL(ctx, "https://example.invalid/nosuchaccount/c/b", nil)
	checkErr(t, err, http.StatusNotFound, bloberror.CannotVerifyCopySource, "a source on another host")
	writeOnly, err := src.BlobClient().GetSASURL(sas.BlobPermissions{Write: true}, time.Now().Add(time.Hour), nil)
	must(t, err, "write-only SAS")
	_, err = cc.NewBlockBlobClient("wo").UploadBlobFromURL(ctx, writeOnly, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.CannotVerifyCopySource, "a source SAS without read")

	// A public source needs no SAS.
	_, err = cc.SetAccessPolicy(ctx, &container.SetAccessPolicyOptions{Access: ptr(container.PublicAccessTypeBlob)})
	must(t, err, "make the container public")
	_, err = cc.NewBlockBlobClient("public").UploadBlobFromURL(ctx, src.URL(), nil)
	must(t, err, "Put Blob From URL of a public source")
	expectContent(t, cc.NewBlobClient("public"), data, "Put Blob From URL of a public source")
}

// TestPutBlockFromURL: blocks staged from ranges of a source commit into
// the source's bytes; digests and ranges are checked as Azure checks them.
func TestPutBlockFromURL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	cc := f.createContainer(cname("block-from-url"), nil)
	data := randBytes(42, 8192)
	src, srcURL := uploadSource(t, cc, data)

	dst := cc.NewBlockBlobClient("dest")
	first := md5.Sum(data[:4096])
	r1, err := dst.StageBlockFromURL(ctx, blockID(1), srcURL, &blockblob.StageBlockFromURLOptions{
		Range: blob.HTTPRange{Offset: 0, Count: 4096}, SourceContentValidation: blob.SourceContentValidationTypeMD5(first[:]),
	})
	must(t, err, "Put Block From URL, first half")
	if !bytes.Equal(r1.ContentMD5, first[:]) {
		t.Errorf("Put Block From URL Content-MD5 %x, want %x", r1.ContentMD5, first)
	}
	_, err = dst.StageBlockFromURL(ctx, blockID(2), srcURL, &blockblob.StageBlockFromURLOptions{Range: blob.HTTPRange{Offset: 4096}})
	must(t, err, "Put Block From URL, open-ended second half")
	bl := blockList(t, dst, blockblob.BlockListTypeUncommitted)
	if len(bl.UncommittedBlocks) != 2 || *bl.UncommittedBlocks[0].Size != 4096 || *bl.UncommittedBlocks[1].Size != 4096 {
		t.Fatalf("uncommitted blocks %v", blocksOf(bl.UncommittedBlocks))
	}
	_, err = dst.CommitBlockList(ctx, []string{blockID(1), blockID(2)}, nil)
	must(t, err, "commit")
	expectContent(t, dst.BlobClient(), data, "blocks staged from URL")

	_, err = dst.StageBlockFromURL(ctx, blockID(3), srcURL, &blockblob.StageBlockFromURLOptions{
		Range: blob.HTTPRange{Offset: 0, Count: 100}, SourceContentValidation: blob.SourceContentValidationTypeMD5(first[:]),
	})
	checkErr(t, err, http.StatusBadRequest, bloberror.MD5Mismatch, "Put Block From URL with a wrong source MD5")
	_, err = dst.StageBlockFromURL(ctx, blockID(3), srcURL, &blockblob.StageBlockFromURLOptions{Range: blob.HTTPRange{Offset: 9000, Count: 10}})
	checkErr(t, err, http.StatusRequestedRangeNotSatisfiable, bloberror.CannotVerifyCopySource, "a source range beyond the source")
	_, err = dst.StageBlockFromURL(ctx, blockID(3), src.URL(), nil)
	checkErr(t, err, http.StatusNotFound, bloberror.CannotVerifyCopySource, "a private source without a SAS")
	if bl := blockList(t, dst, blockblob.BlockListTypeUncommitted); len(bl.UncommittedBlocks) != 0 {
		t.Errorf("refused Put Block From URL left blocks: %v", blocksOf(bl.UncommittedBlocks))
	}
}

// TestAppendBlockFromURL: append ranges of a source to an append blob.
func TestAppendBlockFromURL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	cc := f.createContainer(cname("append-from-url"), nil)
	_, srcURL := uploadSource(t, cc, []byte("0123456789"))

	ab := cc.NewAppendBlobClient("log")
	_, err := ab.Create(ctx, nil)
	must(t, err, "create append blob")
	_, err = ab.AppendBlockFromURL(ctx, srcURL, &appendblob.AppendBlockFromURLOptions{Range: blob.HTTPRange{Offset: 2, Count: 3}})
	must(t, err, "Append Block From URL")
	r, err := ab.AppendBlockFromURL(ctx, srcURL, nil)
	must(t, err, "Append Block From URL, whole source")
	if deref(r.BlobAppendOffset) != "3" || deref(r.BlobCommittedBlockCount) != int32(2) {
		t.Errorf("append offset %v committed blocks %v, want 3 and 2", deref(r.BlobAppendOffset), deref(r.BlobCommittedBlockCount))
	}
	expectContent(t, ab.BlobClient(), []byte("2340123456789"), "appended from URL")
	_, err = ab.AppendBlockFromURL(ctx, srcURL, &appendblob.AppendBlockFromURLOptions{
		AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{AppendPosition: ptr(int64(5))},
	})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.AppendPositionConditionNotMet, "Append Block From URL at the wrong position")
	_, err = cc.NewAppendBlobClient("source").AppendBlockFromURL(ctx, srcURL, nil)
	checkErr(t, err, http.StatusConflict, bloberror.InvalidBlobType, "Append Block From URL onto a block blob")
}

// TestPutPageFromURL: pages written from a source range, aligned and of
// the destination range's length.
func TestPutPageFromURL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	cc := f.createContainer(cname("page-from-url"), nil)
	data := randBytes(43, 2048)
	_, srcURL := uploadSource(t, cc, data)

	pb := cc.NewPageBlobClient("disk")
	_, err := pb.Create(ctx, 4096, nil)
	must(t, err, "create page blob")
	var raw *http.Response
	_, err = pb.UploadPagesFromURL(policy.WithCaptureResponse(ctx, &raw), srcURL, 512, 1024, 1024, nil)
	mustStatus(t, err, raw, http.StatusCreated, "Put Page From URL")
	want := make([]byte, 4096)
	copy(want[1024:2048], data[512:1536])
	expectContent(t, pb.BlobClient(), want, "pages written from URL")
	pages, err := pb.NewGetPageRangesPager(nil).NextPage(ctx)
	must(t, err, "Get Page Ranges")
	if len(pages.PageRange) != 1 || *pages.PageRange[0].Start != 1024 || *pages.PageRange[0].End != 2047 {
		t.Errorf("page ranges %v", pages.PageRange)
	}

	_, err = pb.UploadPagesFromURL(ctx, srcURL, 0, 100, 512, nil)
	checkErr(t, err, http.StatusRequestedRangeNotSatisfiable, bloberror.InvalidPageRange, "Put Page From URL to an unaligned destination")
	_, err = pb.UploadPagesFromURL(ctx, srcURL, 2048, 0, 512, nil)
	checkErr(t, err, http.StatusRequestedRangeNotSatisfiable, bloberror.CannotVerifyCopySource, "a source range beyond the source")
	_, err = pb.UploadPagesFromURL(ctx, srcURL, 0, 0, 512, &pageblob.UploadPagesFromURLOptions{
		SourceContentValidation: blob.SourceContentValidationTypeMD5(md5sum([]byte("no"))),
	})
	checkErr(t, err, http.StatusBadRequest, bloberror.MD5Mismatch, "Put Page From URL with a wrong source MD5")
	expectContent(t, pb.BlobClient(), want, "page blob after refused writes")
}
