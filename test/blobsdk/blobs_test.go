package blobsdk_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/cerulean-db/cerulean/internal/azbody"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestPutBlobWithHeadersAndMetadata: a small UploadBuffer is one Put Blob;
// content headers and metadata round-trip through Get Blob Properties, Get
// Blob and List Blobs.
func TestPutBlobWithHeadersAndMetadata(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cc := f.createContainer(cname("put"), nil)
	bb := cc.NewBlockBlobClient("report.json")
	data := []byte(`{"hello":"world","n":42}`)
	hdr := blob.HTTPHeaders{
		BlobContentType:        ptr("application/json"),
		BlobContentEncoding:    ptr("deflate"),
		BlobContentLanguage:    ptr("en-GB"),
		BlobContentDisposition: ptr(`attachment; filename="report.json"`),
		BlobCacheControl:       ptr("max-age=3600, private"),
	}
	meta := map[string]string{"Author": "Ada Lovelace", "version": "7"}

	mark := f.rec.mark()
	_, err := bb.UploadBuffer(ctx, data, &blockblob.UploadBufferOptions{HTTPHeaders: &hdr, Metadata: strMeta(meta)})
	must(t, err, "UploadBuffer (small)")
	reqs := f.rec.since(mark)
	if len(reqs) != 1 || reqs[0].Method != http.MethodPut || reqs[0].Query.Get("comp") != "" || reqs[0].Status != http.StatusCreated {
		t.Errorf("small UploadBuffer should be exactly one Put Blob answered 201, got %+v", reqs)
	}

	p := props(t, bb.BlobClient())
	checkHeaders := func(what string, ct, ce, cl, cd, cc *string, md5 []byte) {
		t.Helper()
		pairs := [][3]any{
			{"Content-Type", deref(ct), *hdr.BlobContentType},
			{"Content-Encoding", deref(ce), *hdr.BlobContentEncoding},
			{"Content-Language", deref(cl), *hdr.BlobContentLanguage},
			{"Content-Disposition", deref(cd), *hdr.BlobContentDisposition},
			{"Cache-Control", deref(cc), *hdr.BlobCacheControl},
		}
		for _, pr := range pairs {
			if pr[1] != pr[2] {
				t.Errorf("%s: %s = %v, want %v", what, pr[0], pr[1], pr[2])
			}
		}
		if !bytes.Equal(md5, md5sum(data)) {
			t.Errorf("%s: Content-MD5 %x, want %x (Put Blob stores the MD5 of the content)", what, md5, md5sum(data))
		}
	}
	checkHeaders("Get Blob Properties", p.ContentType, p.ContentEncoding, p.ContentLanguage, p.ContentDisposition, p.CacheControl, p.ContentMD5)
	if deref(p.ContentLength) != any(int64(len(data))) {
		t.Errorf("Content-Length %v, want %d", deref(p.ContentLength), len(data))
	}
	if p.BlobType == nil || *p.BlobType != blob.BlobTypeBlockBlob {
		t.Errorf("x-ms-blob-type %v, want BlockBlob", deref(p.BlobType))
	}
	if err := metaEqualFold(p.Metadata, meta); err != nil {
		t.Errorf("metadata: %v", err)
	}

	r := tryDownload(t, bb.BlobClient(), nil)
	must(t, r.Err, "Get Blob")
	if !bytes.Equal(r.Body, data) {
		t.Errorf("Get Blob body %q, want %q", r.Body, data)
	}
	checkHeaders("Get Blob", r.Resp.ContentType, r.Resp.ContentEncoding, r.Resp.ContentLanguage, r.Resp.ContentDisposition, r.Resp.CacheControl, r.Resp.ContentMD5)
	if err := metaEqualFold(r.Resp.Metadata, meta); err != nil {
		t.Errorf("Get Blob metadata: %v", err)
	}

	items, _ := listFlat(t, cc, &container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{Metadata: true}})
	if len(items) != 1 {
		t.Fatalf("List Blobs: %d items, want 1", len(items))
	}
	lp := items[0].Properties
	checkHeaders("List Blobs", lp.ContentType, lp.ContentEncoding, lp.ContentLanguage, lp.ContentDisposition, lp.CacheControl, lp.ContentMD5)
	// (exact key case in listings is checked by TestBlobMetadataSemantics)
	if err := metaEqualFold(items[0].Metadata, meta); err != nil {
		t.Errorf("List Blobs metadata: %v", err)
	}
}

// TestSetBlobHTTPHeaders: Set Blob Properties replaces all content headers
// (unspecified ones are cleared), changes the ETag and never the content.
func TestSetBlobHTTPHeaders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cc := f.createContainer(cname("headers"), nil)
	bb := cc.NewBlockBlobClient("h")
	data := []byte("header test")
	up := upload(t, bb, data, &blockblob.UploadOptions{HTTPHeaders: &blob.HTTPHeaders{
		BlobContentType: ptr("text/plain"), BlobContentLanguage: ptr("fr"), BlobCacheControl: ptr("no-cache"),
	}})

	fakeMD5 := md5sum([]byte("some other content"))
	set := blob.HTTPHeaders{
		BlobContentType:        ptr("text/csv"),
		BlobContentEncoding:    ptr("deflate"),
		BlobContentDisposition: ptr("inline"),
		BlobContentMD5:         fakeMD5,
	}
	res, err := bb.SetHTTPHeaders(ctx, set, nil)
	must(t, err, "Set Blob Properties")
	if res.ETag == nil || *res.ETag == *up.ETag {
		t.Errorf("Set Blob Properties ETag %v, want a new one (was %q)", deref(res.ETag), *up.ETag)
	}
	p := props(t, bb.BlobClient())
	if deref(p.ContentType) != any("text/csv") || deref(p.ContentEncoding) != any("deflate") || deref(p.ContentDisposition) != any("inline") {
		t.Errorf("after Set Blob Properties: type %v encoding %v disposition %v", deref(p.ContentType), deref(p.ContentEncoding), deref(p.ContentDisposition))
	}
	if !bytes.Equal(p.ContentMD5, fakeMD5) {
		t.Errorf("Content-MD5 after Set Blob Properties = %x, want the explicitly set %x", p.ContentMD5, fakeMD5)
	}
	if p.ContentLanguage != nil && *p.ContentLanguage != "" {
		t.Errorf("Content-Language %q survived a Set Blob Properties that omitted it; it must be cleared", *p.ContentLanguage)
	}
	if p.CacheControl != nil && *p.CacheControl != "" {
		t.Errorf("Cache-Control %q survived a Set Blob Properties that omitted it; it must be cleared", *p.CacheControl)
	}
	if deref(p.ContentLength) != any(int64(len(data))) {
		t.Errorf("Content-Length changed to %v", deref(p.ContentLength))
	}
	r := tryDownload(t, bb.BlobClient(), nil)
	must(t, r.Err, "Get Blob after Set Blob Properties")
	if !bytes.Equal(r.Body, data) {
		t.Errorf("content changed by Set Blob Properties: %q", r.Body)
	}
	if deref(r.Resp.ContentType) != any("text/csv") {
		t.Errorf("Get Blob Content-Type %v, want text/csv", deref(r.Resp.ContentType))
	}

	// Set Blob Properties with no headers, or with empty ones, clears them
	// all: Get Blob Properties then answers no Content-Type at all
	// (azblob's TestBlobSetPropertiesEmptyValue, recorded against Azure).
	empty := ptr("")
	for _, h := range []blob.HTTPHeaders{
		{},
		{BlobContentType: empty, BlobContentEncoding: empty, BlobContentLanguage: empty, BlobContentDisposition: empty, BlobCacheControl: empty},
	} {
		_, err = bb.SetHTTPHeaders(ctx, set, nil)
		must(t, err, "Set Blob Properties")
		_, err = bb.SetHTTPHeaders(ctx, h, nil)
		must(t, err, "Set Blob Properties clearing the headers")
		p := props(t, bb.BlobClient())
		if p.ContentType != nil || p.ContentEncoding != nil || p.ContentLanguage != nil || p.ContentDisposition != nil || p.CacheControl != nil || p.ContentMD5 != nil {
			t.Errorf("after clearing (empty values %v): type %v encoding %v language %v disposition %v cache %v md5 %x", h.BlobContentType != nil,
				deref(p.ContentType), deref(p.ContentEncoding), deref(p.ContentLanguage), deref(p.ContentDisposition), deref(p.CacheControl), p.ContentMD5)
		}
	}
}

// TestBlobMetadataSemantics: Set Blob Metadata replaces; keys are
// case-insensitive but the case last written is what List Blobs returns.
func TestBlobMetadataSemantics(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cc := f.createContainer(cname("meta"), nil)
	bc := cc.NewBlobClient("m")
	upload(t, cc.NewBlockBlobClient("m"), []byte("x"), &blockblob.UploadOptions{Metadata: strMeta(map[string]string{"Alpha": "1", "beta": "2"})})

	// The Go SDK lower-cases metadata names when it parses a listing, so
	// the listing's own XML is read to see the case the server keeps.
	listed := func() map[string]string {
		t.Helper()
		res := rawDo(t, http.MethodGet, withQuery(cc.URL()+"?restype=container&comp=list&include=metadata", f.fullAccountSAS()), nil, nil)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("List Blobs: HTTP %d %s", res.StatusCode, res.Code)
		}
		var doc struct {
			Blobs []struct {
				Metadata struct {
					Items []struct {
						XMLName xml.Name
						Value   string `xml:",chardata"`
					} `xml:",any"`
				} `xml:"Metadata"`
			} `xml:"Blobs>Blob"`
		}
		if err := xml.Unmarshal(res.Body, &doc); err != nil {
			t.Fatalf("List Blobs XML: %v", err)
		}
		if len(doc.Blobs) != 1 {
			t.Fatalf("List Blobs: %d items, want 1", len(doc.Blobs))
		}
		out := map[string]string{}
		for _, it := range doc.Blobs[0].Metadata.Items {
			out[it.XMLName.Local] = it.Value
		}
		return out
	}
	if got := listed(); fmt.Sprint(got) != fmt.Sprint(map[string]string{"Alpha": "1", "beta": "2"}) {
		t.Errorf("metadata after Put Blob: %v", got)
	}

	_, err := bc.SetMetadata(ctx, strMeta(map[string]string{"GammaRay": "3"}), nil)
	must(t, err, "Set Blob Metadata")
	if err := metaEqualFold(props(t, bc).Metadata, map[string]string{"gammaray": "3"}); err != nil {
		t.Errorf("Get Blob Properties after replace: %v", err)
	}
	if got := listed(); fmt.Sprint(got) != fmt.Sprint(map[string]string{"GammaRay": "3"}) {
		t.Errorf("List Blobs metadata after replace: %v, want exactly map[GammaRay:3]", got)
	}

	// Same key, different case: one key, case of the latest write.
	_, err = bc.SetMetadata(ctx, strMeta(map[string]string{"gammaray": "4"}), nil)
	must(t, err, "Set Blob Metadata (lower-case key)")
	if got := listed(); fmt.Sprint(got) != fmt.Sprint(map[string]string{"gammaray": "4"}) {
		t.Errorf("List Blobs metadata after case-changing rewrite: %v, want exactly map[gammaray:4]", got)
	}

	// Empty metadata clears.
	_, err = bc.SetMetadata(ctx, nil, nil)
	must(t, err, "Set Blob Metadata (empty)")
	if m := props(t, bc).Metadata; len(m) != 0 {
		t.Errorf("metadata after clearing: %v", flatMeta(m))
	}
	if got := listed(); len(got) != 0 {
		t.Errorf("List Blobs metadata after clearing: %v", got)
	}
}

// TestDownloadRanges: full and ranged downloads, range MD5, and invalid
// ranges.
func TestDownloadRanges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cc := f.createContainer(cname("ranges"), nil)
	const size = 5*1024*1024 + 333
	data := randBytes(11, size)
	bb := cc.NewBlockBlobClient("big.bin")
	upload(t, bb, data, nil)
	bc := bb.BlobClient()
	expectContent(t, bc, data, "full download")

	cases := []struct {
		off, count int64
	}{
		{0, 1}, {0, 4096}, {100, 1000}, {size - 1, 1}, {size - 100, 0}, {1 << 20, 3 << 20}, {size - 10, 100},
	}
	for _, c := range cases {
		end := c.off + c.count
		if c.count == 0 || end > size {
			end = size
		}
		r := tryDownload(t, bc, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: c.off, Count: c.count}})
		if r.Err != nil || r.Status != http.StatusPartialContent {
			t.Errorf("range off=%d count=%d: status %d (%s), want 206", c.off, c.count, r.Status, describe(r.Err))
			continue
		}
		if !bytes.Equal(r.Body, data[c.off:end]) {
			t.Errorf("range off=%d count=%d: got %d bytes, want bytes [%d,%d)", c.off, c.count, len(r.Body), c.off, end)
		}
		wantCR := fmt.Sprintf("bytes %d-%d/%d", c.off, end-1, size)
		if deref(r.Resp.ContentRange) != any(wantCR) {
			t.Errorf("range off=%d count=%d: Content-Range %v, want %q", c.off, c.count, deref(r.Resp.ContentRange), wantCR)
		}
		if deref(r.Resp.ContentLength) != any(end-c.off) {
			t.Errorf("range off=%d count=%d: Content-Length %v, want %d", c.off, c.count, deref(r.Resp.ContentLength), end-c.off)
		}
		// Get Blob's Content-MD5: the whole blob's on a full read, the
		// range's when x-ms-range-get-content-md5 asks, else none (REST
		// reference, Get Blob response headers).
		if r.Resp.ContentMD5 != nil {
			t.Errorf("range off=%d count=%d without x-ms-range-get-content-md5: Content-MD5 %x, want none", c.off, c.count, r.Resp.ContentMD5)
		}
	}

	// x-ms-range-get-content-md5 on a range <= 4 MiB: MD5 of the range, plus
	// the whole blob's MD5 in x-ms-blob-content-md5.
	for _, c := range []struct{ off, count int64 }{{100, 1000}, {0, 4 << 20}} {
		r := tryDownload(t, bc, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: c.off, Count: c.count}, RangeGetContentMD5: ptr(true)})
		if r.Err != nil || r.Status != http.StatusPartialContent {
			t.Errorf("range-get-content-md5 off=%d count=%d: status %d (%s), want 206", c.off, c.count, r.Status, describe(r.Err))
			continue
		}
		if want := md5sum(data[c.off : c.off+c.count]); !bytes.Equal(r.Resp.ContentMD5, want) {
			t.Errorf("range-get-content-md5 off=%d count=%d: Content-MD5 %x, want MD5 of the range %x", c.off, c.count, r.Resp.ContentMD5, want)
		}
		if !bytes.Equal(r.Resp.BlobContentMD5, md5sum(data)) {
			t.Errorf("ranged Get Blob: x-ms-blob-content-md5 %x, want whole-blob MD5 %x", r.Resp.BlobContentMD5, md5sum(data))
		}
	}
	r := tryDownload(t, bc, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: 0, Count: 4<<20 + 1}, RangeGetContentMD5: ptr(true)})
	checkErr(t, r.Err, http.StatusBadRequest, "", "range-get-content-md5 over a range of 4 MiB + 1")
	r = tryDownload(t, bc, &blob.DownloadStreamOptions{RangeGetContentMD5: ptr(true)})
	checkErr(t, r.Err, http.StatusBadRequest, bloberror.InvalidHeaderValue, "range-get-content-md5 without a range")

	// x-ms-range-get-content-crc64 likewise answers the range's CRC64, and
	// not together with the MD5 (the REST specification's Get Blob
	// response headers; azblob has no option for it, so the requests go
	// raw). The code for both is from the status table of Microsoft's
	// storage emulator.
	sk := f.signer()
	get := func(hdr map[string]string) testkit.Response {
		return sk.Send(t, testkit.Request{Method: http.MethodGet, URL: bc.URL(), Header: hdr})
	}
	raw := get(map[string]string{"x-ms-range": "bytes=100-1099", "x-ms-range-get-content-crc64": "true"})
	if raw.Check(t, http.StatusPartialContent, "", "range-get-content-crc64") {
		if got, want := raw.Header.Get("x-ms-content-crc64"), base64.StdEncoding.EncodeToString(azbody.CRC64(data[100:1100])); got != want {
			t.Errorf("range-get-content-crc64: x-ms-content-crc64 %q, want %q", got, want)
		}
		if raw.Header.Get("Content-MD5") != "" {
			t.Errorf("range-get-content-crc64 answered a Content-MD5 too")
		}
	}
	get(map[string]string{"x-ms-range": "bytes=0-99", "x-ms-range-get-content-crc64": "true", "x-ms-range-get-content-md5": "true"}).
		Check(t, http.StatusBadRequest, "BothCrc64AndMd5RangeHeaderPresent", "range-get-content-crc64 with range-get-content-md5")
	get(map[string]string{"x-ms-range-get-content-crc64": "true"}).Check(t, http.StatusBadRequest, "InvalidHeaderValue", "range-get-content-crc64 without a range")
	get(map[string]string{"x-ms-range": "bytes=0-4194304", "x-ms-range-get-content-crc64": "true"}).Check(t, http.StatusBadRequest, "OutOfRangeInput", "range-get-content-crc64 over 4 MiB + 1")

	// A range starting at or beyond the end is 416 InvalidRange.
	for _, off := range []int64{size, size + 10} {
		r := tryDownload(t, bc, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: off, Count: 10}})
		checkErr(t, r.Err, http.StatusRequestedRangeNotSatisfiable, bloberror.InvalidRange, "range starting at %d of a %d-byte blob", off, size)
		r = tryDownload(t, bc, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: off}})
		checkErr(t, r.Err, http.StatusRequestedRangeNotSatisfiable, bloberror.InvalidRange, "open range starting at %d of a %d-byte blob", off, size)
	}

	// Parallel ranged download through the SDK.
	buf := make([]byte, size)
	n, err := bc.DownloadBuffer(ctx, buf, &blob.DownloadBufferOptions{BlockSize: 1 << 20, Concurrency: 4})
	must(t, err, "DownloadBuffer")
	if n != size || !bytes.Equal(buf, data) {
		t.Errorf("DownloadBuffer returned %d bytes, content equal=%v", n, bytes.Equal(buf, data))
	}
}

// TestBlobDeleteAndNotFound: 202 on delete, then BlobNotFound; missing
// container is ContainerNotFound.
func TestBlobDeleteAndNotFound(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cc := f.createContainer(cname("del"), nil)
	bb := cc.NewBlockBlobClient("doomed")
	upload(t, bb, []byte("bye"), nil)
	keep := cc.NewBlockBlobClient("doomed2")
	upload(t, keep, []byte("stay"), nil)

	var raw *http.Response
	_, err := bb.Delete(policy.WithCaptureResponse(ctx, &raw), nil)
	mustStatus(t, err, raw, http.StatusAccepted, "Delete Blob")
	_, err = bb.GetProperties(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Get Blob Properties after delete")
	_, err = bb.DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Get Blob after delete")
	_, err = bb.Delete(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "second Delete Blob")
	_, err = bb.SetMetadata(ctx, strMeta(map[string]string{"a": "b"}), nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Set Blob Metadata on deleted blob")
	_, err = bb.SetHTTPHeaders(ctx, blob.HTTPHeaders{BlobContentType: ptr("a/b")}, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Set Blob Properties on deleted blob")
	items, _ := listFlat(t, cc, nil)
	if names := blobNames(items); len(names) != 1 || names[0] != "doomed2" {
		t.Errorf("List Blobs after deleting one of two: %v, want [doomed2]", names)
	}
	expectContent(t, keep.BlobClient(), []byte("stay"), "neighbour of deleted blob")

	never := cc.NewBlobClient("never-existed")
	_, err = never.GetProperties(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Get Blob Properties on a missing blob")
	_, err = never.DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Get Blob on a missing blob")

	missing := f.svc.NewContainerClient(cname("no-such-container"))
	mb := missing.NewBlockBlobClient("b")
	_, err = mb.GetProperties(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "Get Blob Properties in a missing container")
	_, err = mb.DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "Get Blob in a missing container")
	_, err = mb.Upload(ctx, rsc([]byte("x")), nil)
	checkErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "Put Blob in a missing container")
	_, err = mb.Delete(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "Delete Blob in a missing container")
	_, err = mb.StageBlock(ctx, blockID(0), rsc([]byte("x")), nil)
	checkErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "Put Block in a missing container")
}

// TestListBlobsFlatPaging: ~30 blobs, paged 7 at a time: each exactly once in
// lexicographic order; prefix filters; metadata and uncommitted blobs only
// when asked.
func TestListBlobsFlatPaging(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cc := f.createContainer(cname("listflat"), nil)

	var names []string
	for i := 0; i < 10; i++ {
		names = append(names, fmt.Sprintf("logs/2024/%02d.log", i))
		names = append(names, fmt.Sprintf("data-%d", i*37))
		names = append(names, fmt.Sprintf("Z%d", i)) // upper case sorts before lower case
	}
	names = append(names, "a", "a/b", "a.b", "a-b", "ä")
	order := rand.New(rand.NewPCG(3, 4)).Perm(len(names))
	etags := map[string]string{}
	for _, i := range order {
		n := names[i]
		var meta map[string]string
		if i%3 == 0 {
			meta = map[string]string{"n": n}
		}
		up := upload(t, cc.NewBlockBlobClient(n), []byte("content of "+n), &blockblob.UploadOptions{Metadata: strMeta(meta)})
		etags[n] = string(*up.ETag)
	}
	// A blob that only has uncommitted blocks.
	_, err := cc.NewBlockBlobClient("uncommitted-only").StageBlock(ctx, blockID(0), rsc([]byte("pending")), nil)
	must(t, err, "Put Block for uncommitted-only blob")

	want := sortedCopy(names)
	pager := cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{MaxResults: ptr(int32(7)), Include: container.ListBlobsInclude{Metadata: true}})
	var got []string
	pages := 0
	for pager.More() {
		page, err := pager.NextPage(ctx)
		must(t, err, "List Blobs page %d", pages+1)
		pages++
		if page.Segment == nil {
			t.Fatalf("page %d has no <Blobs> segment", pages)
		}
		if len(page.Segment.BlobItems) > 7 {
			t.Errorf("page %d has %d blobs with maxresults=7", pages, len(page.Segment.BlobItems))
		}
		for _, it := range page.Segment.BlobItems {
			n := deref(it.Name).(string)
			got = append(got, n)
			if it.Properties == nil {
				t.Errorf("blob %q listed without properties", n)
				continue
			}
			if !sameETag(etagOf(it.Properties.ETag), azcore.ETag(etags[n])) {
				t.Errorf("blob %q listed with ETag %q, want %q", n, etagOf(it.Properties.ETag), etags[n])
			}
			if deref(it.Properties.ContentLength) != any(int64(len("content of "+n))) {
				t.Errorf("blob %q listed with Content-Length %v", n, deref(it.Properties.ContentLength))
			}
			if it.Properties.BlobType == nil || *it.Properties.BlobType != container.BlobTypeBlockBlob {
				t.Errorf("blob %q listed with BlobType %v", n, deref(it.Properties.BlobType))
			}
			if it.Properties.LastModified == nil {
				t.Errorf("blob %q listed without Last-Modified", n)
			}
			idx := indexOf(names, n)
			if idx >= 0 && idx%3 == 0 {
				if fmt.Sprint(flatMeta(it.Metadata)) != fmt.Sprint(map[string]string{"n": n}) {
					t.Errorf("blob %q listed with metadata %v, want map[n:%s]", n, flatMeta(it.Metadata), n)
				}
			} else if len(it.Metadata) != 0 {
				t.Errorf("blob %q has no metadata but is listed with %v", n, flatMeta(it.Metadata))
			}
		}
		if pages > 100 {
			t.Fatalf("List Blobs never stops paging")
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("flat listing with maxresults=7 (each blob once, byte order):\n got %q\nwant %q", got, want)
	}
	if min := (len(want) + 6) / 7; pages < min {
		t.Errorf("%d blobs at maxresults=7 came in %d pages, want >= %d", len(want), pages, min)
	}

	// Prefix.
	items, _ := listFlat(t, cc, &container.ListBlobsFlatOptions{Prefix: ptr("logs/2024/0")})
	var wantLogs []string
	for _, n := range want {
		if strings.HasPrefix(n, "logs/2024/0") {
			wantLogs = append(wantLogs, n)
		}
	}
	if g := blobNames(items); strings.Join(g, ",") != strings.Join(wantLogs, ",") {
		t.Errorf("prefix logs/2024/0: got %v, want %v", g, wantLogs)
	}
	items, _ = listFlat(t, cc, &container.ListBlobsFlatOptions{Prefix: ptr("nothing-here")})
	if len(items) != 0 {
		t.Errorf("prefix with no match returned %v", blobNames(items))
	}

	// Uncommitted blobs appear only with include=uncommittedblobs.
	items, _ = listFlat(t, cc, &container.ListBlobsFlatOptions{Prefix: ptr("uncommitted")})
	if len(items) != 0 {
		t.Errorf("blob with only uncommitted blocks listed without include=uncommittedblobs: %v", blobNames(items))
	}
	items, _ = listFlat(t, cc, &container.ListBlobsFlatOptions{Prefix: ptr("uncommitted"), Include: container.ListBlobsInclude{UncommittedBlobs: true}})
	if g := blobNames(items); len(g) != 1 || g[0] != "uncommitted-only" {
		t.Errorf("include=uncommittedblobs: got %v, want [uncommitted-only]", g)
	}
	items, _ = listFlat(t, cc, &container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{UncommittedBlobs: true}})
	if len(items) != len(want)+1 {
		t.Errorf("include=uncommittedblobs over the whole container: %d items, want %d", len(items), len(want)+1)
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// TestListBlobsHierarchy: delimiter "/" returns BlobPrefixes and the blobs at
// that level; paging counts prefixes as results.
func TestListBlobsHierarchy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cc := f.createContainer(cname("tree"), nil)
	for _, n := range []string{"a/1", "a/2", "a/b/3", "a/b/c/4", "b/5", "c", "d/", "e.txt"} {
		upload(t, cc.NewBlockBlobClient(n), []byte(n), nil)
	}
	list := func(prefix string, max int32) (prefixes, blobs []string, pages int) {
		t.Helper()
		o := &container.ListBlobsHierarchyOptions{}
		if prefix != "" {
			o.Prefix = ptr(prefix)
		}
		if max > 0 {
			o.MaxResults = ptr(max)
		}
		pager := cc.NewListBlobsHierarchyPager("/", o)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			must(t, err, "List Blobs delimiter=/ prefix=%q", prefix)
			pages++
			if page.Delimiter == nil || *page.Delimiter != "/" {
				t.Errorf("List Blobs delimiter=/ prefix=%q: Delimiter element %v", prefix, deref(page.Delimiter))
			}
			if page.Segment == nil {
				continue
			}
			if max > 0 && len(page.Segment.BlobItems)+len(page.Segment.BlobPrefixes) > int(max) {
				t.Errorf("prefix=%q page %d: %d blobs + %d prefixes exceeds maxresults %d", prefix, pages,
					len(page.Segment.BlobItems), len(page.Segment.BlobPrefixes), max)
			}
			for _, p := range page.Segment.BlobPrefixes {
				prefixes = append(prefixes, deref(p.Name).(string))
			}
			blobs = append(blobs, blobNames(page.Segment.BlobItems)...)
			if pages > 50 {
				t.Fatalf("hierarchical listing never stops paging")
			}
		}
		sort.Strings(prefixes)
		return prefixes, blobs, pages
	}
	cases := []struct {
		prefix          string
		prefixes, blobs []string
	}{
		{"", []string{"a/", "b/", "d/"}, []string{"c", "e.txt"}},
		{"a/", []string{"a/b/"}, []string{"a/1", "a/2"}},
		{"a/b/", []string{"a/b/c/"}, []string{"a/b/3"}},
		{"a/b/c/", nil, []string{"a/b/c/4"}},
		{"d/", nil, []string{"d/"}},
		{"zz/", nil, nil},
	}
	for _, c := range cases {
		for _, max := range []int32{0, 1} {
			p, b, _ := list(c.prefix, max)
			if fmt.Sprint(p) != fmt.Sprint(c.prefixes) || fmt.Sprint(b) != fmt.Sprint(c.blobs) {
				t.Errorf("delimiter=/ prefix=%q maxresults=%d: prefixes %q blobs %q, want prefixes %q blobs %q",
					c.prefix, max, p, b, c.prefixes, c.blobs)
			}
		}
	}
}

// TestBlobNamesRoundTrip: names with spaces, unicode, '/', '%' and '+'
// round-trip through Put, Get, Get Properties, List and Delete.
func TestBlobNamesRoundTrip(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cc := f.createContainer(cname("names"), nil)
	names := []string{
		"with space",
		"  leading and trailing  ",
		"unicodé/文件/emoji-😀",
		"dir/sub/leaf.txt",
		"100%",
		"%41%2F-literal-percent-escapes",
		"1+1=2",
		"c++ notes+",
		"mix/ sp+%/ü &$@,;=!~*'()",
		"UPPER/lower",
	}
	for i, n := range names {
		upload(t, cc.NewBlockBlobClient(n), []byte(fmt.Sprintf("payload-%d", i)), nil)
	}
	for i, n := range names {
		bc := cc.NewBlobClient(n)
		expectContent(t, bc, []byte(fmt.Sprintf("payload-%d", i)), fmt.Sprintf("blob named %q", n))
		if p := props(t, bc); deref(p.ContentLength) != any(int64(len(fmt.Sprintf("payload-%d", i)))) {
			t.Errorf("blob %q: Content-Length %v", n, deref(p.ContentLength))
		}
	}
	items, _ := listFlat(t, cc, nil)
	if got, want := blobNames(items), sortedCopy(names); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("List Blobs names:\n got %q\nwant %q", got, want)
	}
	// a name that differs only by an encoded character is a different blob
	_, err := cc.NewBlobClient("1 1=2").GetProperties(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "blob \"1 1=2\" ('+' must not decode to space)")
	_, err = cc.NewBlobClient("A/-literal-percent-escapes").GetProperties(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "blob \"A/-literal...\" (name must be decoded exactly once)")

	for _, n := range names {
		_, err := cc.NewBlobClient(n).Delete(ctx, nil)
		must(t, err, "Delete Blob %q", n)
	}
	if items, _ := listFlat(t, cc, nil); len(items) != 0 {
		t.Errorf("after deleting every blob, List Blobs returns %q", blobNames(items))
	}
}
