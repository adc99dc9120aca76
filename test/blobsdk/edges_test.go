package blobsdk_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestRangeEdges: the Range forms Azure accepts (bytes=n- and bytes=n-m),
// the ones a plain Range header ignores (whole blob, 200), x-ms-range
// taking precedence and refusing what it cannot parse, and 416 with
// Content-Range "bytes */size" for a start at or past the end.
func TestRangeEdges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer("ranges", nil)
	data := bytes.Repeat([]byte("0123456789"), 10)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, data, nil)
	empty := cc.NewBlockBlobClient("empty")
	upload(t, empty, nil, nil)
	sk := f.signer()

	get := func(u string, hdr map[string]string) testkit.Response {
		return sk.Send(t, testkit.Request{Method: http.MethodGet, URL: u, Header: hdr})
	}
	tests := []struct {
		name   string
		hdr    map[string]string
		status int
		body   []byte
		crange string
	}{
		{"open-ended", map[string]string{"Range": "bytes=5-"}, http.StatusPartialContent, data[5:], "bytes 5-99/100"},
		{"closed", map[string]string{"Range": "bytes=0-9"}, http.StatusPartialContent, data[:10], "bytes 0-9/100"},
		{"end past the size", map[string]string{"Range": "bytes=90-500"}, http.StatusPartialContent, data[90:], "bytes 90-99/100"},
		{"suffix is ignored", map[string]string{"Range": "bytes=-5"}, http.StatusOK, data, ""},
		{"garbage is ignored", map[string]string{"Range": "bytes=abc"}, http.StatusOK, data, ""},
		{"several ranges are ignored", map[string]string{"Range": "bytes=0-1,5-6"}, http.StatusOK, data, ""},
		{"end before start is ignored", map[string]string{"Range": "bytes=10-5"}, http.StatusOK, data, ""},
		{"other unit is ignored", map[string]string{"Range": "items=0-5"}, http.StatusOK, data, ""},
		{"x-ms-range wins over Range", map[string]string{"x-ms-range": "bytes=10-19", "Range": "bytes=0-1"}, http.StatusPartialContent, data[10:20], "bytes 10-19/100"},
		{"x-ms-range open-ended", map[string]string{"x-ms-range": "bytes=95-"}, http.StatusPartialContent, data[95:], "bytes 95-99/100"},
	}
	for _, tc := range tests {
		r := get(bb.URL(), tc.hdr)
		if r.StatusCode != tc.status || !bytes.Equal(r.Body, tc.body) || r.Header.Get("Content-Range") != tc.crange {
			t.Errorf("%s: HTTP %d %q body %q Content-Range %q, want %d body %q Content-Range %q",
				tc.name, r.StatusCode, r.Code, preview(r.Body, tc.body), r.Header.Get("Content-Range"), tc.status, preview(tc.body, tc.body), tc.crange)
		}
	}
	for _, v := range []string{"bytes=-5", "bytes=abc", "bytes=10-5", "0-5"} {
		r := get(bb.URL(), map[string]string{"x-ms-range": v})
		if r.Check(t, http.StatusBadRequest, "InvalidHeaderValue", "x-ms-range "+v) && !strings.Contains(string(r.Body), "<HeaderName>x-ms-range</HeaderName>") {
			t.Errorf("x-ms-range %s: error does not name the header:\n%s", v, r.Body)
		}
	}
	for _, c := range []struct {
		u   string
		hdr map[string]string
		cr  string
	}{
		{bb.URL(), map[string]string{"Range": "bytes=100-"}, "bytes */100"},
		{bb.URL(), map[string]string{"x-ms-range": "bytes=150-200"}, "bytes */100"},
		{empty.URL(), map[string]string{"x-ms-range": "bytes=0-0"}, "bytes */0"},
		{empty.URL(), map[string]string{"Range": "bytes=0-"}, "bytes */0"},
	} {
		r := get(c.u, c.hdr)
		r.Check(t, http.StatusRequestedRangeNotSatisfiable, "InvalidRange", fmt.Sprint(c.hdr))
		if got := r.Header.Get("Content-Range"); got != c.cr {
			t.Errorf("%v: Content-Range %q, want %q", c.hdr, got, c.cr)
		}
	}
	// The SDK's own ranged download past the end.
	res := tryDownload(t, bb.BlobClient(), &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: 100}})
	checkErr(t, res.Err, http.StatusRequestedRangeNotSatisfiable, bloberror.InvalidRange, "SDK download from offset 100 of 100 bytes")
}

// TestMD5Edges: which MD5 header does what. Content-MD5 is transactional
// (verified, Md5Mismatch; malformed InvalidMd5); x-ms-blob-content-md5 is
// the stored property (malformed InvalidHeaderValue), and on Put Blob is
// verified in Content-MD5's place; Put Block List's
// Content-MD5 is its body's; Append Block and Put Page echo Content-MD5
// only when sent; Copy Blob From URL echoes the source's.
func TestMD5Edges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	cc := f.createContainer("md5", nil)
	sk := f.signer()
	data := []byte("the content whose digest matters")
	other := md5sum([]byte("something else"))
	b64 := base64.StdEncoding.EncodeToString

	put := func(name string, hdr map[string]string) testkit.Response {
		h := map[string]string{"x-ms-blob-type": "BlockBlob"}
		for k, v := range hdr {
			h[k] = v
		}
		return sk.Send(t, testkit.Request{Method: http.MethodPut, URL: cc.NewBlobClient(name).URL(), Header: h, Body: data})
	}
	// InvalidMd5 is the code the Blob service's error code table gives an
	// MD5 that is not 128 bits, Base64; a malformed x-ms-blob-content-md5
	// is InvalidHeaderValue (as Azurite#2644 found by asking Azure).
	put("a", map[string]string{"Content-MD5": b64(md5sum(data)[:8])}).Check(t, http.StatusBadRequest, "InvalidMd5", "Content-MD5 of 8 bytes")
	put("a", map[string]string{"Content-MD5": "not base64!"}).Check(t, http.StatusBadRequest, "InvalidMd5", "Content-MD5 not base64")
	put("a", map[string]string{"Content-MD5": b64(other)}).Check(t, http.StatusBadRequest, "Md5Mismatch", "Content-MD5 of other content")
	put("a", map[string]string{"x-ms-blob-content-md5": b64(other[:15])}).Check(t, http.StatusBadRequest, "InvalidHeaderValue", "x-ms-blob-content-md5 of 15 bytes")
	// Put Blob verifies the content against x-ms-blob-content-md5 too, and
	// with it present ignores Content-MD5 (the Azure Storage team's
	// "Windows Azure Blob MD5 Overview": "If x-ms-blob-content-md5 is
	// present Content-md5 is ignored"; azure-storage-ruby#64: a wrong
	// x-ms-blob-content-md5 alone answered Md5Mismatch).
	put("a", map[string]string{"x-ms-blob-content-md5": b64(other)}).Check(t, http.StatusBadRequest, "Md5Mismatch", "x-ms-blob-content-md5 of other content")
	put("a", map[string]string{"Content-MD5": b64(md5sum(data)), "x-ms-blob-content-md5": b64(other)}).
		Check(t, http.StatusBadRequest, "Md5Mismatch", "a right Content-MD5 beside a wrong x-ms-blob-content-md5")
	r := put("a", map[string]string{"Content-MD5": b64(other), "x-ms-blob-content-md5": b64(md5sum(data))})
	if r.Check(t, http.StatusCreated, "", "a wrong Content-MD5 beside the right x-ms-blob-content-md5") {
		if got := r.Header.Get("Content-MD5"); got != b64(md5sum(data)) {
			t.Errorf("Put Blob echoed Content-MD5 %q, want the content's %q", got, b64(md5sum(data)))
		}
		if p := props(t, cc.NewBlobClient("a")); !bytes.Equal(p.ContentMD5, md5sum(data)) {
			t.Errorf("stored Content-MD5 %x, want the content's %x", p.ContentMD5, md5sum(data))
		}
	}
	// Neither: the service stores the MD5 it computed.
	put("n", nil).Check(t, http.StatusCreated, "", "Put Blob without MD5")
	if p := props(t, cc.NewBlobClient("n")); !bytes.Equal(p.ContentMD5, md5sum(data)) {
		t.Errorf("Put Blob without MD5: stored %x, want computed %x", p.ContentMD5, md5sum(data))
	}

	// Put Block List: Content-MD5 covers the XML body.
	bb := cc.NewBlockBlobClient("list")
	_, err := bb.StageBlock(ctx, blockID(0), rsc(data), nil)
	must(t, err, "StageBlock")
	body := blockListXML([2]string{"Latest", blockID(0)})
	f.rawCommit(bb, body, map[string]string{"Content-MD5": b64(other)}).Check(t, http.StatusBadRequest, "Md5Mismatch", "Put Block List with a wrong body MD5")
	f.rawCommit(bb, body, map[string]string{"Content-MD5": "AAAA"}).Check(t, http.StatusBadRequest, "InvalidMd5", "Put Block List with a 3-byte MD5")
	r = f.rawCommit(bb, body, map[string]string{"Content-MD5": b64(md5sum([]byte(body))), "x-ms-blob-content-md5": b64(md5sum(data))})
	if r.Check(t, http.StatusCreated, "", "Put Block List with the body's MD5") {
		if got := r.Header.Get("Content-MD5"); got != b64(md5sum([]byte(body))) {
			t.Errorf("Put Block List echoed Content-MD5 %q, want the block list's %q", got, b64(md5sum([]byte(body))))
		}
		if p := props(t, bb.BlobClient()); !bytes.Equal(p.ContentMD5, md5sum(data)) {
			t.Errorf("Put Block List stored Content-MD5 %x, want x-ms-blob-content-md5 %x", p.ContentMD5, md5sum(data))
		}
	}

	// Set Blob Properties replaces the content headers as a set: an MD5
	// given is kept, one left out is cleared.
	blobA := cc.NewBlobClient("a")
	_, err = blobA.SetHTTPHeaders(ctx, blob.HTTPHeaders{BlobContentMD5: md5sum(data), BlobContentType: ptr("text/plain")}, nil)
	must(t, err, "SetHTTPHeaders with an MD5")
	if p := props(t, blobA); !bytes.Equal(p.ContentMD5, md5sum(data)) {
		t.Errorf("after Set Properties with an MD5: %x", p.ContentMD5)
	}
	_, err = blobA.SetHTTPHeaders(ctx, blob.HTTPHeaders{BlobContentType: ptr("text/plain")}, nil)
	must(t, err, "SetHTTPHeaders without an MD5")
	if p := props(t, blobA); p.ContentMD5 != nil {
		t.Errorf("Set Properties without an MD5 kept %x", p.ContentMD5)
	}
	// Only stored, an x-ms-blob-content-md5 of another length is kept as
	// sent (Java's recordings BlobApiTests.setHTTPHeadersHeaders[2] and
	// PageBlobApiTests.createHeaders[2]: 24 bytes, an MD5 encoded twice);
	// one that is not Base64 is refused.
	sk.Send(t, testkit.Request{Method: http.MethodPut, URL: withQuery(blobA.URL(), "comp=properties"), Header: map[string]string{"x-ms-blob-content-md5": "AAAA"}}).
		Check(t, http.StatusOK, "", "Set Properties with a 3-byte x-ms-blob-content-md5")
	if p := props(t, blobA); b64(p.ContentMD5) != "AAAA" {
		t.Errorf("Set Properties with a 3-byte x-ms-blob-content-md5 stored %q", b64(p.ContentMD5))
	}
	sk.Send(t, testkit.Request{Method: http.MethodPut, URL: withQuery(blobA.URL(), "comp=properties"), Header: map[string]string{"x-ms-blob-content-md5": "not base64!"}}).
		Check(t, http.StatusBadRequest, "InvalidHeaderValue", "Set Properties with an x-ms-blob-content-md5 that is not Base64")

	// Append Block and Put Page: Content-MD5 only when sent.
	ab := cc.NewAppendBlobClient("append")
	_, err = ab.Create(ctx, nil)
	must(t, err, "Create append blob")
	ar, err := ab.AppendBlock(ctx, rsc(data), nil)
	must(t, err, "AppendBlock without MD5")
	if ar.ContentMD5 != nil {
		t.Errorf("Append Block without Content-MD5 echoed %x", ar.ContentMD5)
	}
	ar, err = ab.AppendBlock(ctx, rsc(data), &appendblob.AppendBlockOptions{TransactionalValidation: blob.TransferValidationTypeMD5(md5sum(data))})
	must(t, err, "AppendBlock with MD5")
	if !bytes.Equal(ar.ContentMD5, md5sum(data)) {
		t.Errorf("Append Block with Content-MD5 echoed %x, want %x", ar.ContentMD5, md5sum(data))
	}
	pb := cc.NewPageBlobClient("pages")
	_, err = pb.Create(ctx, 1024, nil)
	must(t, err, "Create page blob")
	page := bytes.Repeat([]byte{7}, 512)
	pr, err := pb.UploadPages(ctx, rsc(page), blob.HTTPRange{Offset: 0, Count: 512}, nil)
	must(t, err, "UploadPages without MD5")
	if pr.ContentMD5 != nil {
		t.Errorf("Put Page without Content-MD5 echoed %x", pr.ContentMD5)
	}
	pr, err = pb.UploadPages(ctx, rsc(page), blob.HTTPRange{Offset: 512, Count: 512}, &pageblob.UploadPagesOptions{TransactionalValidation: blob.TransferValidationTypeMD5(md5sum(page))})
	must(t, err, "UploadPages with MD5")
	if !bytes.Equal(pr.ContentMD5, md5sum(page)) {
		t.Errorf("Put Page with Content-MD5 echoed %x, want %x", pr.ContentMD5, md5sum(page))
	}

	// Copy Blob From URL echoes, and the copy keeps, the source's MD5.
	dst := cc.NewBlobClient("copy")
	cr, err := dst.CopyFromURL(ctx, cc.NewBlobClient("n").URL()+"?"+f.fullAccountSAS(), nil)
	must(t, err, "CopyFromURL")
	if !bytes.Equal(cr.ContentMD5, md5sum(data)) {
		t.Errorf("Copy Blob From URL echoed Content-MD5 %x, want the source's %x", cr.ContentMD5, md5sum(data))
	}
	if p := props(t, dst); !bytes.Equal(p.ContentMD5, md5sum(data)) {
		t.Errorf("copy's Content-MD5 %x, want the source's %x", p.ContentMD5, md5sum(data))
	}
}

// TestGetBlockListFiltering: blocklisttype picks the lists, a snapshot
// has only committed blocks, and an unknown type is refused.
func TestGetBlockListFiltering(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	cc := f.createContainer("blocklists", nil)
	bb := cc.NewBlockBlobClient("b")
	for i := range 3 {
		_, err := bb.StageBlock(ctx, blockID(i), rsc(bytes.Repeat([]byte{byte(i)}, 10+i)), nil)
		must(t, err, "StageBlock %d", i)
	}
	_, err := bb.CommitBlockList(ctx, []string{blockID(0), blockID(1)}, nil)
	must(t, err, "CommitBlockList")
	snap, err := bb.CreateSnapshot(ctx, nil)
	must(t, err, "CreateSnapshot")
	_, err = bb.StageBlock(ctx, blockID(3), rsc([]byte("later")), nil)
	must(t, err, "StageBlock 3")

	names := func(bs []*blockblob.Block) []string {
		out := []string{}
		for _, b := range bs {
			out = append(out, *b.Name)
		}
		return out
	}
	for _, tc := range []struct {
		typ                    blockblob.BlockListType
		snapshot               *string
		committed, uncommitted []string
	}{
		{blockblob.BlockListTypeCommitted, nil, []string{blockID(0), blockID(1)}, []string{}},
		{blockblob.BlockListTypeUncommitted, nil, []string{}, []string{blockID(3)}},
		{blockblob.BlockListTypeAll, nil, []string{blockID(0), blockID(1)}, []string{blockID(3)}},
		{blockblob.BlockListTypeAll, snap.Snapshot, []string{blockID(0), blockID(1)}, []string{}},
		{blockblob.BlockListTypeUncommitted, snap.Snapshot, []string{}, []string{}},
	} {
		l, err := bb.GetBlockList(ctx, tc.typ, &blockblob.GetBlockListOptions{Snapshot: tc.snapshot})
		if !must2(t, err, "GetBlockList %s snapshot=%v", tc.typ, tc.snapshot != nil) {
			continue
		}
		if c, u := names(l.CommittedBlocks), names(l.UncommittedBlocks); fmt.Sprint(c) != fmt.Sprint(tc.committed) || fmt.Sprint(u) != fmt.Sprint(tc.uncommitted) {
			t.Errorf("GetBlockList %s snapshot=%v: committed %v uncommitted %v, want %v %v", tc.typ, tc.snapshot != nil, c, u, tc.committed, tc.uncommitted)
		}
	}
	f.signer().Send(t, testkit.Request{Method: http.MethodGet, URL: withQuery(bb.URL(), "comp=blocklist&blocklisttype=some")}).
		Check(t, http.StatusBadRequest, "InvalidQueryParameterValue", "blocklisttype=some")
}

// must2 is must that lets the test go on, reporting whether err was nil.
func must2(t *testing.T, err error, format string, args ...any) bool {
	t.Helper()
	if err != nil {
		t.Errorf(format+": %v", append(args, err)...)
		return false
	}
	return true
}

// TestListingMarkers: List Containers' NextMarker is "/account/name" and
// List Blobs' the next blob's name; a marker is where the next page
// starts; names of digits sort as strings; maxresults outside 1..5000 or
// not a number is refused, above 5000 capped.
func TestListingMarkers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sk := f.signer()
	digits := []string{"100", "1000", "123", "200", "99"}
	for _, n := range digits {
		f.createContainer("d"+n, nil)
	}
	nextMarker := regexp.MustCompile(`<NextMarker>([^<]*)</NextMarker>`)
	r := sk.Send(t, testkit.Request{Method: http.MethodGet, URL: f.env.BlobURL + "?comp=list&prefix=d&maxresults=2"})
	if m := nextMarker.FindSubmatch(r.Body); m == nil || string(m[1]) != "/devstoreaccount1/d123" {
		t.Errorf("List Containers NextMarker: %s", r.Body)
	}
	// Both the marker Azure hands out and a bare name start the next page there.
	for _, marker := range []string{"/devstoreaccount1/d123", "d123"} {
		r := sk.Send(t, testkit.Request{Method: http.MethodGet, URL: f.env.BlobURL + "?comp=list&prefix=d&maxresults=2&marker=" + url.QueryEscape(marker)})
		if !bytes.Contains(r.Body, []byte("<Name>d123</Name>")) || !bytes.Contains(r.Body, []byte("<Name>d200</Name>")) || bytes.Contains(r.Body, []byte("<Name>d1000</Name>")) {
			t.Errorf("List Containers marker %q: %s", marker, r.Body)
		}
	}
	// A made-up marker is refused (Java's recording
	// ServiceApiTests.listContainersError).
	sk.Send(t, testkit.Request{Method: http.MethodGet, URL: f.env.BlobURL + "?comp=list&marker=" + url.QueryEscape("garbage continuation token")}).
		Check(t, http.StatusBadRequest, "OutOfRangeInput", "List Containers with a made-up marker")
	var all []string
	pager := f.svc.NewListContainersPager(&service.ListContainersOptions{Prefix: ptr("d"), MaxResults: ptr(int32(1))})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		must(t, err, "List Containers page")
		for _, c := range page.ContainerItems {
			all = append(all, strings.TrimPrefix(*c.Name, "d"))
		}
	}
	if fmt.Sprint(all) != fmt.Sprint(digits) {
		t.Errorf("List Containers one by one: %v, want %v", all, digits)
	}

	cc := f.createContainer("blobs", nil)
	for _, n := range digits {
		upload(t, cc.NewBlockBlobClient(n), []byte(n), nil)
	}
	r = sk.Send(t, testkit.Request{Method: http.MethodGet, URL: withQuery(cc.URL(), "restype=container&comp=list&maxresults=2")})
	if m := nextMarker.FindSubmatch(r.Body); m == nil || string(m[1]) != "123" {
		t.Errorf("List Blobs NextMarker: %s", r.Body)
	}
	items, pages := listFlat(t, cc, &container.ListBlobsFlatOptions{MaxResults: ptr(int32(1))})
	if got := blobNames(items); fmt.Sprint(got) != fmt.Sprint(digits) || pages != len(digits) {
		t.Errorf("List Blobs one by one: %v in %d pages, want %v", got, pages, digits)
	}

	for _, c := range []struct {
		v, code string
	}{{"0", "OutOfRangeQueryParameterValue"}, {"-1", "OutOfRangeQueryParameterValue"}, {"abc", "InvalidQueryParameterValue"}, {"1.5", "InvalidQueryParameterValue"}} {
		sk.Send(t, testkit.Request{Method: http.MethodGet, URL: withQuery(cc.URL(), "restype=container&comp=list&maxresults="+c.v)}).
			Check(t, http.StatusBadRequest, c.code, "List Blobs maxresults="+c.v)
		sk.Send(t, testkit.Request{Method: http.MethodGet, URL: f.env.BlobURL + "?comp=list&maxresults=" + c.v}).
			Check(t, http.StatusBadRequest, c.code, "List Containers maxresults="+c.v)
	}
	sk.Send(t, testkit.Request{Method: http.MethodGet, URL: withQuery(cc.URL(), "restype=container&comp=list&maxresults=6000")}).
		Check(t, http.StatusOK, "", "List Blobs maxresults=6000")
}

// TestListBlobsStartFrom: startFrom is inclusive and works with markers
// and prefixes. (endBefore is a parameter of the Apache Arrow listing
// only; the SDK sends it with no other.)
func TestListBlobsStartFrom(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer("ranged", nil)
	for _, n := range []string{"a", "b", "c", "d", "e", "x/1", "x/2"} {
		upload(t, cc.NewBlockBlobClient(n), []byte(n), nil)
	}
	for _, tc := range []struct {
		opts *container.ListBlobsFlatOptions
		want []string
	}{
		{&container.ListBlobsFlatOptions{StartFrom: ptr("b")}, []string{"b", "c", "d", "e", "x/1", "x/2"}},
		{&container.ListBlobsFlatOptions{StartFrom: ptr("bb")}, []string{"c", "d", "e", "x/1", "x/2"}},
		{&container.ListBlobsFlatOptions{StartFrom: ptr("c"), MaxResults: ptr(int32(2))}, []string{"c", "d", "e", "x/1", "x/2"}},
		{&container.ListBlobsFlatOptions{Prefix: ptr("x/"), StartFrom: ptr("a")}, []string{"x/1", "x/2"}},
		{&container.ListBlobsFlatOptions{Prefix: ptr("x/"), StartFrom: ptr("x/2")}, []string{"x/2"}},
		{&container.ListBlobsFlatOptions{StartFrom: ptr("z")}, []string{}},
	} {
		items, _ := listFlat(t, cc, tc.opts)
		if got := blobNames(items); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("startFrom %v prefix %v maxresults %v: %v, want %v", deref(tc.opts.StartFrom), deref(tc.opts.Prefix), deref(tc.opts.MaxResults), got, tc.want)
		}
	}
}

// TestListingETagQuoting: List Blobs writes a blob's ETag bare, List
// Containers quoted, as Azure does.
func TestListingETagQuoting(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sk := f.signer()
	cc := f.createContainer("etags", nil)
	bb := cc.NewBlockBlobClient("b")
	up := upload(t, bb, []byte("x"), nil)
	bare := strings.Trim(string(*up.ETag), `"`)
	r := sk.Send(t, testkit.Request{Method: http.MethodGet, URL: withQuery(cc.URL(), "restype=container&comp=list")})
	if !bytes.Contains(r.Body, []byte("<Etag>"+bare+"</Etag>")) {
		t.Errorf("List Blobs: want <Etag>%s</Etag> in\n%s", bare, r.Body)
	}
	cp, err := cc.GetProperties(t.Context(), nil)
	must(t, err, "container GetProperties")
	r = sk.Send(t, testkit.Request{Method: http.MethodGet, URL: f.env.BlobURL + "?comp=list&prefix=etags"})
	if want := "<Etag>" + string(*cp.ETag) + "</Etag>"; !strings.Contains(strings.ReplaceAll(string(r.Body), "&#34;", `"`), want) {
		t.Errorf("List Containers: want %s in\n%s", want, r.Body)
	}
	items, _ := listFlat(t, cc, nil)
	if len(items) != 1 || items[0].Properties.ETag == nil || string(*items[0].Properties.ETag) != bare {
		t.Errorf("SDK listing ETag %v, want %s", items, bare)
	}
}

// TestPageBlobResizeEdges: shrinking drops the pages past the new end
// (growing back shows zeros), sizes must be 512-aligned, and Get Page
// Ranges over a range past the end lists nothing.
func TestPageBlobResizeEdges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	cc := f.createContainer("resize", nil)
	pb := cc.NewPageBlobClient("p")
	_, err := pb.Create(ctx, 2048, nil)
	must(t, err, "Create")
	page := bytes.Repeat([]byte{9}, 512)
	for _, off := range []int64{0, 1536} {
		_, err := pb.UploadPages(ctx, rsc(page), blob.HTTPRange{Offset: off, Count: 512}, nil)
		must(t, err, "UploadPages at %d", off)
	}
	ranges := func(r blob.HTTPRange) []string {
		out := []string{}
		pager := pb.NewGetPageRangesPager(&pageblob.GetPageRangesOptions{Range: r})
		for pager.More() {
			resp, err := pager.NextPage(ctx)
			if !must2(t, err, "GetPageRanges %+v", r) {
				return nil
			}
			for _, pr := range resp.PageRange {
				out = append(out, fmt.Sprintf("%d-%d", *pr.Start, *pr.End))
			}
		}
		return out
	}
	_, err = pb.Resize(ctx, 1024, nil)
	must(t, err, "Resize to 1024")
	if got := ranges(blob.HTTPRange{}); fmt.Sprint(got) != "[0-511]" {
		t.Errorf("after shrinking: page ranges %v, want [0-511]", got)
	}
	_, err = pb.Resize(ctx, 2048, nil)
	must(t, err, "Resize back to 2048")
	want := append(bytes.Clone(page), make([]byte, 1536)...)
	expectContent(t, pb.BlobClient(), want, "grown back after a shrink")
	if got := ranges(blob.HTTPRange{Offset: 4096, Count: 512}); len(got) != 0 {
		t.Errorf("page ranges past the end: %v", got)
	}
	if got := ranges(blob.HTTPRange{Offset: 0, Count: 100000}); fmt.Sprint(got) != "[0-511]" {
		t.Errorf("page ranges over a range longer than the blob: %v", got)
	}
	_, err = pb.Resize(ctx, 1000, nil)
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidHeaderValue, "Resize to 1000")
	_, err = cc.NewPageBlobClient("odd").Create(ctx, 1000, nil)
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidHeaderValue, "Create a page blob of 1000 bytes")
	_, err = pb.UploadPages(ctx, rsc(page[:500]), blob.HTTPRange{Offset: 0, Count: 500}, nil)
	checkErr(t, err, http.StatusRequestedRangeNotSatisfiable, bloberror.InvalidPageRange, "Put Page of 500 bytes")
}

// TestLeaseIDFormats: a lease ID that is not a GUID is refused as a
// malformed header, before any comparison with the lease held; a GUID
// that does not match is the lease error.
func TestLeaseIDFormats(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	cc := f.createContainer("leaseids", nil)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, []byte("x"), nil)
	bad := &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: ptr("not-a-guid")}}
	_, err := bb.SetMetadata(ctx, map[string]*string{"a": ptr("b")}, &blob.SetMetadataOptions{AccessConditions: bad})
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidHeaderValue, "Set Metadata with lease id not-a-guid")
	_, err = bb.Delete(ctx, &blob.DeleteOptions{AccessConditions: bad})
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidHeaderValue, "Delete with lease id not-a-guid")
	guid := &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: ptr("11111111-2222-3333-4444-555555555555")}}
	_, err = bb.SetMetadata(ctx, nil, &blob.SetMetadataOptions{AccessConditions: guid})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseNotPresentWithBlobOperation, "Set Metadata with a lease id on an unleased blob")

	lc, err := lease.NewBlobClient(bb, &lease.BlobClientOptions{LeaseID: ptr("{zz}")})
	must(t, err, "lease.NewBlobClient")
	_, err = lc.AcquireLease(ctx, 30, nil)
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidHeaderValue, "Acquire with proposed id {zz}")
	lc, err = lease.NewBlobClient(bb, nil)
	must(t, err, "lease.NewBlobClient")
	_, err = lc.AcquireLease(ctx, 30, nil)
	must(t, err, "AcquireLease")
	_, err = bb.SetMetadata(ctx, nil, &blob.SetMetadataOptions{AccessConditions: guid})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMismatchWithBlobOperation, "Set Metadata with another lease's id")
	_, err = bb.SetMetadata(ctx, nil, &blob.SetMetadataOptions{AccessConditions: bad})
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidHeaderValue, "Set Metadata on a leased blob with lease id not-a-guid")
	r := f.signer().Send(t, testkit.Request{Method: http.MethodPut, URL: withQuery(bb.URL(), "comp=lease"),
		Header: map[string]string{"x-ms-lease-action": "renew", "x-ms-lease-id": "12345"}})
	if r.Check(t, http.StatusBadRequest, "InvalidHeaderValue", "Renew with lease id 12345") && !bytes.Contains(r.Body, []byte("<HeaderName>x-ms-lease-id</HeaderName>")) {
		t.Errorf("Renew with lease id 12345: error does not name the header:\n%s", r.Body)
	}
	_, err = lc.ReleaseLease(ctx, nil)
	must(t, err, "ReleaseLease")
}

// TestServicePropertyValidation: retention days 1 to 365 (and required
// when enabled), at most five CORS rules, known methods, non-negative
// MaxAgeInSeconds; a refused Set changes nothing.
func TestServicePropertyValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	rule := func() *service.CORSRule {
		return &service.CORSRule{AllowedOrigins: ptr("*"), AllowedMethods: ptr("GET,PUT"), AllowedHeaders: ptr("x-ms-meta-*"), ExposedHeaders: ptr("*"), MaxAgeInSeconds: ptr(int32(60))}
	}
	_, err := f.svc.SetProperties(ctx, &service.SetPropertiesOptions{DeleteRetentionPolicy: &service.RetentionPolicy{Enabled: ptr(true), Days: ptr(int32(7))}, CORS: []*service.CORSRule{rule()}})
	must(t, err, "a valid Set Service Properties")
	for _, tc := range []struct {
		name string
		opts service.SetPropertiesOptions
		code bloberror.Code
	}{
		{"retention 0 days", service.SetPropertiesOptions{DeleteRetentionPolicy: &service.RetentionPolicy{Enabled: ptr(true), Days: ptr(int32(0))}}, bloberror.InvalidXMLDocument},
		{"retention 366 days", service.SetPropertiesOptions{DeleteRetentionPolicy: &service.RetentionPolicy{Enabled: ptr(true), Days: ptr(int32(366))}}, bloberror.InvalidXMLDocument},
		{"retention enabled without days", service.SetPropertiesOptions{DeleteRetentionPolicy: &service.RetentionPolicy{Enabled: ptr(true)}}, bloberror.InvalidXMLDocument},
		{"logging retention 400 days", service.SetPropertiesOptions{Logging: &service.Logging{Version: ptr("1.0"), Read: ptr(true), Write: ptr(true), Delete: ptr(true), RetentionPolicy: &service.RetentionPolicy{Enabled: ptr(true), Days: ptr(int32(400))}}}, bloberror.InvalidXMLDocument},
		{"six CORS rules", service.SetPropertiesOptions{CORS: []*service.CORSRule{rule(), rule(), rule(), rule(), rule(), rule()}}, bloberror.InvalidXMLDocument},
		{"CORS method FETCH", service.SetPropertiesOptions{CORS: []*service.CORSRule{{AllowedOrigins: ptr("*"), AllowedMethods: ptr("GET,FETCH"), AllowedHeaders: ptr(""), ExposedHeaders: ptr(""), MaxAgeInSeconds: ptr(int32(0))}}}, bloberror.InvalidXMLNodeValue},
		{"CORS negative MaxAgeInSeconds", service.SetPropertiesOptions{CORS: []*service.CORSRule{{AllowedOrigins: ptr("*"), AllowedMethods: ptr("GET"), AllowedHeaders: ptr(""), ExposedHeaders: ptr(""), MaxAgeInSeconds: ptr(int32(-1))}}}, bloberror.InvalidXMLNodeValue},
		{"CORS three prefixed headers", service.SetPropertiesOptions{CORS: []*service.CORSRule{{AllowedOrigins: ptr("*"), AllowedMethods: ptr("GET"), AllowedHeaders: ptr("x-a*,x-b*,x-c*"), ExposedHeaders: ptr(""), MaxAgeInSeconds: ptr(int32(0))}}}, bloberror.InvalidXMLNodeValue},
	} {
		_, err := f.svc.SetProperties(ctx, &tc.opts)
		checkErr(t, err, http.StatusBadRequest, tc.code, "%s", tc.name)
	}
	p, err := f.svc.GetProperties(ctx, nil)
	must(t, err, "GetProperties")
	if p.DeleteRetentionPolicy == nil || deref(p.DeleteRetentionPolicy.Days) != int32(7) || len(p.CORS) != 1 {
		t.Errorf("after refused Sets: retention %+v, %d CORS rules; want 7 days and 1 rule", p.DeleteRetentionPolicy, len(p.CORS))
	}
}

// TestUnicodeNames: blob names with any legal code point (supplementary
// planes, combining marks, controls XML cannot carry) round-trip through
// create, list and get.
func TestUnicodeNames(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer("unicode", nil)
	names := []string{
		"emoji-😀/𝄞-clef",
		"combining-e\u0301-a\u0308",
		"cjk-漢字/かな",
		"rtl-עברית",
		"space and +plus & amp %25",
		"ctrl-\x01-\x1f-name",
		"bmp-edge-\uFFFD-\U0010FFFD",
	}
	for _, n := range names {
		upload(t, cc.NewBlockBlobClient(n), []byte(n), nil)
	}
	items, _ := listFlat(t, cc, nil)
	if got, want := blobNames(items), sortedCopy(names); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("listed %q, want %q", got, want)
	}
	for _, n := range names {
		expectContent(t, cc.NewBlobClient(n), []byte(n), fmt.Sprintf("blob %q", n))
	}
	// Hierarchy listing: prefixes with supplementary characters.
	pager := cc.NewListBlobsHierarchyPager("/", nil)
	var prefixes []string
	for pager.More() {
		page, err := pager.NextPage(t.Context())
		must(t, err, "hierarchy page")
		for _, p := range page.Segment.BlobPrefixes {
			prefixes = append(prefixes, *p.Name)
		}
	}
	if fmt.Sprint(prefixes) != fmt.Sprint([]string{"cjk-漢字/", "emoji-😀/"}) {
		t.Errorf("prefixes %q", prefixes)
	}
	_, err := cc.NewBlobClient("ctrl-\x01-\x1f-name").GetProperties(t.Context(), nil)
	must(t, err, "GetProperties of a name with control characters")
}

// TestListBlobsUFFFFName: a name with U+FFFF, which XML cannot carry, is
// listed percent-encoded with Encoded="true" and the SDK decodes it, flat
// and as a prefix (azblob's TestContainerListBlobsInvalidBlobName and
// TestContainerListHierarchyBlobsInvalidBlobName, recorded against Azure).
func TestListBlobsUFFFFName(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("uffff"), nil)
	name := "dir1/dir2/file\uFFFF.blob"
	upload(t, cc.NewBlockBlobClient(name), []byte("x"), nil)
	items, _ := listFlat(t, cc, nil)
	if len(items) != 1 || deref(items[0].Name) != any(name) {
		t.Fatalf("flat listing: %q", blobNames(items))
	}
	page, err := cc.NewListBlobsHierarchyPager(".b", nil).NextPage(t.Context())
	must(t, err, "hierarchy listing with delimiter .b")
	if len(page.Segment.BlobItems) != 0 || len(page.Segment.BlobPrefixes) != 1 || deref(page.Segment.BlobPrefixes[0].Name) != any("dir1/dir2/file\uFFFF.b") {
		t.Errorf("hierarchy listing: %d blobs, prefixes %+v", len(page.Segment.BlobItems), page.Segment.BlobPrefixes)
	}
	expectContent(t, cc.NewBlobClient(name), []byte("x"), "Get Blob of the U+FFFF name")
}
