package blobsdk_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
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
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
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
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.CannotVerifyCopySource, "source If-Match that fails (test_page_blob.py test_upload_pages_from_url_with_source_if_match)")
	_, err = cc.NewBlockBlobClient("cond").UploadBlobFromURL(ctx, srcURL, &blockblob.UploadBlobFromURLOptions{
		SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfNoneMatch: srcProps.ETag},
	})
	checkErr(t, err, http.StatusNotModified, bloberror.CannotVerifyCopySource, "source If-None-Match on the source's ETag")
	_, err = cc.NewBlockBlobClient("cond").UploadBlobFromURL(ctx, srcURL, &blockblob.UploadBlobFromURLOptions{
		SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfTags: ptr(`"team"='blue'`)},
	})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.CannotVerifyCopySource, "x-ms-source-if-tags that fails")
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
	// A Bearer token this server cannot verify (it has no Entra ID) is
	// what Azure answers to one that does not verify: 401
	// CannotVerifyCopySource, as the Go SDK's recordings
	// TestPutBlobFromURLCopySourceAuthNegative and
	// TestAppendBlockFromURLCopySourceAuthNegative show.
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

// sourceOp is one operation that reads a blob of this server named by a
// URL: it copies from src into a destination named dst in cc and returns
// the bytes the destination should then hold.
type sourceOp struct {
	name string
	run  func(ctx context.Context, cc *container.Client, dst, src string) error
}

// sourceOps are every operation that takes x-ms-copy-source: Copy Blob
// (asynchronous), Copy Blob From URL, and the four From URL writes. Each
// leaves the destination holding the whole source.
func sourceOps(size int64) []sourceOp {
	return []sourceOp{
		{"Copy Blob", func(ctx context.Context, cc *container.Client, dst, src string) error {
			_, err := cc.NewBlobClient(dst).StartCopyFromURL(ctx, src, nil)
			return err
		}},
		{"Copy Blob From URL", func(ctx context.Context, cc *container.Client, dst, src string) error {
			_, err := cc.NewBlobClient(dst).CopyFromURL(ctx, src, nil)
			return err
		}},
		{"Put Blob From URL", func(ctx context.Context, cc *container.Client, dst, src string) error {
			_, err := cc.NewBlockBlobClient(dst).UploadBlobFromURL(ctx, src, nil)
			return err
		}},
		{"Put Block From URL", func(ctx context.Context, cc *container.Client, dst, src string) error {
			bb := cc.NewBlockBlobClient(dst)
			if _, err := bb.StageBlockFromURL(ctx, blockID(0), src, nil); err != nil {
				return err
			}
			_, err := bb.CommitBlockList(ctx, []string{blockID(0)}, nil)
			return err
		}},
		{"Append Block From URL", func(ctx context.Context, cc *container.Client, dst, src string) error {
			ab := cc.NewAppendBlobClient(dst)
			if _, err := ab.Create(ctx, nil); err != nil {
				return err
			}
			_, err := ab.AppendBlockFromURL(ctx, src, nil)
			return err
		}},
		{"Put Page From URL", func(ctx context.Context, cc *container.Client, dst, src string) error {
			pb := cc.NewPageBlobClient(dst)
			if _, err := pb.Create(ctx, size, nil); err != nil {
				return err
			}
			_, err := pb.UploadPagesFromURL(ctx, src, 0, 0, size, nil)
			return err
		}},
	}
}

// TestCopySourceHostForms: a source on this server, authorized by a SAS
// in its URL, is read whatever form its URL takes — path style on
// 127.0.0.1, localhost or [::1], with the port the client reached,
// another of this server's ports or none; production style with the
// account as the first label of the host (account.blob.localhost, the
// Azure host name, any case), the account's read-only secondary in
// either style, and a second account of this server — by every
// operation that takes x-ms-copy-source, from a client that reached the
// server path style or host style; asynchronous Copy Blob also with the
// caller's own Shared Key instead of a SAS. Azure reads the source over its
// URL's scheme, so an https-only SAS (spr=https) holds for an https
// source URL and fails like that source's GET (403) for an http one.
func TestCopySourceHostForms(t *testing.T) {
	t.Parallel()
	const key2 = "c2Vjb25kLWFjY291bnQta2V5LXNlY29uZC1hY2NvdW50LWtleQ=="
	f := newFixture(t, servertest.WithAccountsEnv(func(name string) string {
		if name == "AZURITE_ACCOUNTS" {
			return "account2:" + key2
		}
		return ""
	}))
	ctx := t.Context()
	const size = 1024 // whole pages, for Put Page From URL
	data := randBytes(44, size)
	_, port, err := net.SplitHostPort(f.env.Server.BlobAddr())
	must(t, err, "blob address")
	queue, err := url.Parse(f.env.QueueURL)
	must(t, err, "queue URL")
	acct := f.env.Account

	// The source in this account, and one in account2 read with account2's key.
	srcContainer := cname("hostform-src")
	upload(t, f.createContainer(srcContainer, nil).NewBlockBlobClient("source"), data, nil)
	sign := func(cred *service.SharedKeyCredential, container string, proto sas.Protocol) string {
		qp, err := sas.BlobSignatureValues{Protocol: proto, ExpiryTime: time.Now().Add(time.Hour), Permissions: "r",
			ContainerName: container, BlobName: "source"}.SignWithSharedKey(cred)
		must(t, err, "sign the source SAS")
		return "/" + container + "/source?" + qp.Encode()
	}
	path := sign(f.cred, srcContainer, sas.ProtocolHTTPSandHTTP)
	cred2, err := service.NewSharedKeyCredential("account2", key2)
	must(t, err, "account2 credential")
	svc2, err := service.NewClientWithSharedKeyCredential(strings.Replace(f.env.BlobURL, "/"+acct+"/", "/account2/", 1), cred2, clientOptions(nil))
	must(t, err, "account2 client")
	other := svc2.NewContainerClient(cname("hostform-other"))
	_, err = other.Create(ctx, nil)
	must(t, err, "create account2's container")
	upload(t, other.NewBlockBlobClient("source"), data, nil)
	otherPath := sign(cred2, strings.TrimPrefix(other.URL(), svc2.URL()), sas.ProtocolHTTPSandHTTP)

	forms := []struct{ name, url string }{
		{"127.0.0.1 with the port reached", "http://127.0.0.1:" + port + "/" + acct + path},
		{"127.0.0.1 without a port", "http://127.0.0.1/" + acct + path},
		{"localhost with the port reached", "http://localhost:" + port + "/" + acct + path},
		{"localhost without a port", "http://localhost/" + acct + path},
		{"[::1]", "http://[::1]:" + port + "/" + acct + path},
		{"another port of this server", "http://" + queue.Host + "/" + acct + path},
		{"https path style", "https://127.0.0.1:" + port + "/" + acct + path},
		{"account.blob.localhost with the port", "http://" + acct + ".blob.localhost:" + port + path},
		{"account.blob.localhost without a port", "http://" + acct + ".blob.localhost" + path},
		{"Azure's host name", "https://" + acct + ".blob.core.windows.net" + path},
		{"host in upper case", "http://" + strings.ToUpper(acct) + ".BLOB.LOCALHOST:" + port + path},
		{"secondary host", "http://" + acct + "-secondary.blob.localhost:" + port + path},
		{"secondary path style", "http://127.0.0.1:" + port + "/" + acct + "-secondary" + path},
		{"another account, path style", "http://127.0.0.1:" + port + "/account2" + otherPath},
		{"another account, host style", "http://account2.blob.localhost:" + port + otherPath},
		{"https-only SAS on an https URL", "https://" + acct + ".blob.localhost:" + port + sign(f.cred, srcContainer, sas.ProtocolHTTPS)},
	}

	// The destination client reaches the server path style, then host style.
	hostStyle := clientOptions(nil)
	hostStyle.Transport = testkit.ResolvingClient(nil, map[string]string{acct + ".blob.localhost": f.env.Server.BlobAddr()})
	hostSvc, err := service.NewClientWithSharedKeyCredential("http://"+acct+".blob.localhost:"+port+"/", f.cred, hostStyle)
	must(t, err, "host-style client")
	clients := []struct {
		name string
		svc  *service.Client
	}{{"path-style client", f.svc}, {"host-style client", hostSvc}}
	n := 0
	for _, c := range clients {
		cc := c.svc.NewContainerClient(cname("hostform-dst"))
		_, err := cc.Create(ctx, nil)
		must(t, err, "create the destination container (%s)", c.name)
		for _, form := range forms {
			for _, op := range sourceOps(size) {
				n++
				dst := fmt.Sprintf("dst%d", n)
				if err := op.run(ctx, cc, dst, form.url); err != nil {
					t.Errorf("%s, %s, source %s (%s): %v", c.name, op.name, form.name, form.url, err)
					continue
				}
				expectContent(t, cc.NewBlobClient(dst), data, fmt.Sprintf("%s, %s, source %s", c.name, op.name, form.name))
			}
		}
	}

	// Copy Blob (asynchronous) may read a source of the caller's own
	// account with the caller's Shared Key, whatever form the URL takes;
	// a private source of another account is CannotVerifyCopySource 404,
	// as Azure answers an anonymous read of a private blob.
	async := f.svc.NewContainerClient(cname("hostform-async"))
	_, err = async.Create(ctx, nil)
	must(t, err, "create container")
	for i, form := range forms {
		u, err := url.Parse(form.url)
		must(t, err, "parse %s", form.url)
		u.RawQuery = ""
		dst := async.NewBlobClient(fmt.Sprintf("async%d", i))
		_, err = dst.StartCopyFromURL(ctx, u.String(), nil)
		if strings.HasPrefix(form.name, "another account") {
			checkErr(t, err, http.StatusNotFound, bloberror.CannotVerifyCopySource, "Copy Blob with the caller's key of another account's private source, "+form.name)
			continue
		}
		must(t, err, "Copy Blob with the caller's Shared Key, source %s", form.name)
		expectContent(t, dst, data, "Copy Blob with the caller's Shared Key, source "+form.name)
	}

	// An https-only SAS on an http source URL: the source's own GET would
	// be refused (AuthorizationProtocolMismatch, 403), so the copy cannot
	// verify it.
	httpOnly := "http://127.0.0.1:" + port + "/" + acct + sign(f.cred, srcContainer, sas.ProtocolHTTPS)
	cc := f.svc.NewContainerClient(cname("hostform-proto"))
	_, err = cc.Create(ctx, nil)
	must(t, err, "create container")
	for _, op := range sourceOps(size) {
		err := op.run(ctx, cc, "proto", httpOnly)
		checkErr(t, err, http.StatusForbidden, bloberror.CannotVerifyCopySource, op.name+" with an https-only source SAS on an http source URL")
	}
}

// TestCopySourceDigests: x-ms-source-content-md5 and
// x-ms-source-content-crc64 are checked against the bytes read from the
// source. A match copies and is echoed (Content-MD5, x-ms-content-crc64);
// a mismatch is 400 Md5Mismatch / Crc64Mismatch and leaves the
// destination as it was. Sources: the Go SDK's live tests
// TestCopyBlobFromUrlSourceContentMD5, TestPutBlobFromUrlSourceContentMD5,
// TestAppendBlockFromURL (MD5Mismatch), TestStageBlockFromURLWithCRC64,
// TestAppendBlockFromURLWithCRC64Negative and
// TestUploadPagesFromURLWithCRC64Negative (CRC64Mismatch).
func TestCopySourceDigests(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	cc := f.createContainer(cname("source-digests"), nil)
	data := randBytes(45, 1024)
	_, srcURL := uploadSource(t, cc, data)
	sum := md5.Sum(data)
	badMD5 := md5sum([]byte("other bytes"))
	crc := binary.LittleEndian.AppendUint64(nil, testkit.AzureCRC64(data))
	badCRC := binary.LittleEndian.AppendUint64(nil, testkit.AzureCRC64(data)^1)
	md5Check := func(what string, got []byte, err error) {
		t.Helper()
		must(t, err, "%s with the source's MD5", what)
		if !bytes.Equal(got, sum[:]) {
			t.Errorf("%s: Content-MD5 %x, want %x", what, got, sum)
		}
	}
	crcCheck := func(what string, got []byte, err error) {
		t.Helper()
		must(t, err, "%s with the source's CRC64", what)
		if !bytes.Equal(got, crc) {
			t.Errorf("%s: x-ms-content-crc64 %x, want %x", what, got, crc)
		}
	}

	// Copy Blob From URL and Put Blob From URL take an MD5 only.
	cr, err := cc.NewBlobClient("copy").CopyFromURL(ctx, srcURL, &blob.CopyFromURLOptions{SourceContentMD5: sum[:]})
	md5Check("Copy Blob From URL", cr.ContentMD5, err)
	expectContent(t, cc.NewBlobClient("copy"), data, "Copy Blob From URL with the source's MD5")
	_, err = cc.NewBlobClient("copy-bad").CopyFromURL(ctx, srcURL, &blob.CopyFromURLOptions{SourceContentMD5: badMD5})
	checkErr(t, err, http.StatusBadRequest, bloberror.MD5Mismatch, "Copy Blob From URL with a wrong source MD5")
	if _, err := cc.NewBlobClient("copy-bad").GetProperties(ctx, nil); !bloberror.HasCode(err, bloberror.BlobNotFound) {
		t.Errorf("Copy Blob From URL with a wrong source MD5 left a destination: %v", err)
	}
	pr, err := cc.NewBlockBlobClient("put").UploadBlobFromURL(ctx, srcURL, &blockblob.UploadBlobFromURLOptions{SourceContentMD5: sum[:]})
	md5Check("Put Blob From URL", pr.ContentMD5, err)

	// The three range operations take either digest.
	bb := cc.NewBlockBlobClient("blocks")
	br, err := bb.StageBlockFromURL(ctx, blockID(1), srcURL, &blockblob.StageBlockFromURLOptions{SourceContentValidation: blob.SourceContentValidationTypeMD5(sum[:])})
	md5Check("Put Block From URL", br.ContentMD5, err)
	br, err = bb.StageBlockFromURL(ctx, blockID(2), srcURL, &blockblob.StageBlockFromURLOptions{SourceContentValidation: blob.SourceContentValidationTypeCRC64(crc)})
	crcCheck("Put Block From URL", br.ContentCRC64, err)
	_, err = bb.StageBlockFromURL(ctx, blockID(3), srcURL, &blockblob.StageBlockFromURLOptions{SourceContentValidation: blob.SourceContentValidationTypeCRC64(badCRC)})
	checkErr(t, err, http.StatusBadRequest, bloberror.CRC64Mismatch, "Put Block From URL with a wrong source CRC64")
	if bl := blockList(t, bb, blockblob.BlockListTypeUncommitted); len(bl.UncommittedBlocks) != 2 {
		t.Errorf("uncommitted blocks %v, want the two that matched", blocksOf(bl.UncommittedBlocks))
	}

	ab := cc.NewAppendBlobClient("log")
	_, err = ab.Create(ctx, nil)
	must(t, err, "create append blob")
	ar, err := ab.AppendBlockFromURL(ctx, srcURL, &appendblob.AppendBlockFromURLOptions{SourceContentValidation: blob.SourceContentValidationTypeCRC64(crc)})
	crcCheck("Append Block From URL", ar.ContentCRC64, err)
	_, err = ab.AppendBlockFromURL(ctx, srcURL, &appendblob.AppendBlockFromURLOptions{SourceContentValidation: blob.SourceContentValidationTypeCRC64(badCRC)})
	checkErr(t, err, http.StatusBadRequest, bloberror.CRC64Mismatch, "Append Block From URL with a wrong source CRC64")
	_, err = ab.AppendBlockFromURL(ctx, srcURL, &appendblob.AppendBlockFromURLOptions{SourceContentValidation: blob.SourceContentValidationTypeMD5(badMD5)})
	checkErr(t, err, http.StatusBadRequest, bloberror.MD5Mismatch, "Append Block From URL with a wrong source MD5")
	expectContent(t, ab.BlobClient(), data, "append blob after refused appends")

	pb := cc.NewPageBlobClient("disk")
	_, err = pb.Create(ctx, 1024, nil)
	must(t, err, "create page blob")
	ppr, err := pb.UploadPagesFromURL(ctx, srcURL, 0, 0, 1024, &pageblob.UploadPagesFromURLOptions{SourceContentValidation: blob.SourceContentValidationTypeCRC64(crc)})
	crcCheck("Put Page From URL", ppr.ContentCRC64, err)
	_, err = pb.UploadPagesFromURL(ctx, srcURL, 0, 0, 1024, &pageblob.UploadPagesFromURLOptions{SourceContentValidation: blob.SourceContentValidationTypeCRC64(badCRC)})
	checkErr(t, err, http.StatusBadRequest, bloberror.CRC64Mismatch, "Put Page From URL with a wrong source CRC64")
}
