package blobsdk_test

import (
	"fmt"
	"net/http"
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
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

// TestCopyBlob: a copy within the server completes at once, keeps content,
// block list, headers and metadata, and reports its copy properties.
func TestCopyBlob(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	src := f.createContainer(cname("copy-src"), nil)
	dst := f.createContainer(cname("copy-dst"), nil)
	sb := src.NewBlockBlobClient("source")
	blocks := [][]byte{randBytes(1, 100<<10), randBytes(2, 5<<20), randBytes(3, 10)}
	var ids []string
	var all []byte
	for i, b := range blocks {
		_, err := sb.StageBlock(t.Context(), blockID(i), rsc(b), nil)
		must(t, err, "StageBlock %d", i)
		ids = append(ids, blockID(i))
		all = append(all, b...)
	}
	_, err := sb.CommitBlockList(t.Context(), ids, &blockblob.CommitBlockListOptions{
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: ptr("text/plain")},
		Metadata:    map[string]*string{"origin": ptr("src")},
	})
	must(t, err, "CommitBlockList")

	db := dst.NewBlockBlobClient("copy")
	resp, err := db.StartCopyFromURL(t.Context(), sb.URL(), nil)
	must(t, err, "StartCopyFromURL")
	if deref(resp.CopyStatus) != blob.CopyStatusTypeSuccess || deref(resp.CopyID) == "" {
		t.Fatalf("copy status %v id %v", deref(resp.CopyStatus), deref(resp.CopyID))
	}
	expectContent(t, db.BlobClient(), all, "copy")
	p := props(t, db.BlobClient())
	if deref(p.ContentType) != "text/plain" || deref(p.CopyStatus) != blob.CopyStatusTypeSuccess || deref(p.CopyID) != deref(resp.CopyID) {
		t.Errorf("copy properties: type %v status %v id %v", deref(p.ContentType), deref(p.CopyStatus), deref(p.CopyID))
	}
	if v, ok := metaLookup(p.Metadata, "origin"); !ok || v != "src" {
		t.Errorf("copied metadata %v", flatMeta(p.Metadata))
	}
	bl, err := db.GetBlockList(t.Context(), blockblob.BlockListTypeCommitted, nil)
	must(t, err, "GetBlockList of the copy")
	if len(bl.CommittedBlocks) != 3 || deref(bl.CommittedBlocks[1].Name) != ids[1] {
		t.Errorf("copy's block list has %d blocks", len(bl.CommittedBlocks))
	}

	// The copy is independent of its source.
	upload(t, sb, []byte("changed"), nil)
	expectContent(t, db.BlobClient(), all, "copy after the source changed")

	// Metadata given with the copy replaces the source's.
	db2 := dst.NewBlockBlobClient("copy2")
	_, err = db2.StartCopyFromURL(t.Context(), sb.URL(), &blob.StartCopyFromURLOptions{Metadata: map[string]*string{"mine": ptr("1")}})
	must(t, err, "copy with metadata")
	p2 := props(t, db2.BlobClient())
	if _, ok := metaLookup(p2.Metadata, "origin"); ok {
		t.Errorf("source metadata kept despite x-ms-meta: %v", flatMeta(p2.Metadata))
	}

	// A later Put Blob clears the copy properties.
	upload(t, db2, []byte("own"), nil)
	if p := props(t, db2.BlobClient()); p.CopyID != nil {
		t.Errorf("copy id kept after an overwrite: %v", deref(p.CopyID))
	}

	_, err = db.AbortCopyFromURL(t.Context(), *resp.CopyID, nil)
	mustErr(t, err, http.StatusConflict, bloberror.NoPendingCopyOperation, "abort a finished copy")
}

// TestCopyBlobConditionsAndLeases covers source and destination conditions
// and the destination's lease.
func TestCopyBlobConditionsAndLeases(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("copy-cond"), nil)
	sb := cc.NewBlockBlobClient("src")
	upload(t, sb, []byte("source"), nil)
	srcETag := etagOf(props(t, sb.BlobClient()).ETag)
	db := cc.NewBlockBlobClient("dst")
	upload(t, db, []byte("old destination"), nil)

	stale := azcore.ETag(`"0x1"`)
	_, err := db.StartCopyFromURL(t.Context(), sb.URL(), &blob.StartCopyFromURLOptions{
		SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfMatch: &stale}})
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.SourceConditionNotMet, "stale source If-Match")
	_, err = db.StartCopyFromURL(t.Context(), sb.URL(), &blob.StartCopyFromURLOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &stale}}})
	// Copy Blob names the side whose condition failed (the Go SDK's
	// recording go-azblob-TestBlobStartCopyDestIfMatchFalse).
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.TargetConditionNotMet, "stale destination If-Match")
	_, err = db.StartCopyFromURL(t.Context(), sb.URL(), &blob.StartCopyFromURLOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: ptr(azcore.ETagAny)}}})
	mustErr(t, err, http.StatusConflict, bloberror.BlobAlreadyExists, "If-None-Match * on an existing destination")
	expectContent(t, db.BlobClient(), []byte("old destination"), "destination after rejected copies")

	_, err = db.StartCopyFromURL(t.Context(), sb.URL(), &blob.StartCopyFromURLOptions{
		SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfMatch: &srcETag}})
	must(t, err, "copy with a matching source If-Match")
	expectContent(t, db.BlobClient(), []byte("source"), "destination after copy")

	lc := blobLease(t, db, "")
	_, err = lc.AcquireLease(t.Context(), -1, nil)
	must(t, err, "lease the destination")
	_, err = db.StartCopyFromURL(t.Context(), sb.URL(), nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "copy onto a leased destination without the id")
	_, err = db.AbortCopyFromURL(t.Context(), "00000000-0000-0000-0000-000000000001", nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "abort on an infinitely leased destination without the id")
	_, err = db.StartCopyFromURL(t.Context(), sb.URL(), &blob.StartCopyFromURLOptions{
		AccessConditions: &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: lc.LeaseID()}}})
	must(t, err, "copy onto a leased destination with the id")

	_, err = cc.NewBlockBlobClient("x").StartCopyFromURL(t.Context(), cc.NewBlobClient("missing").URL(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "copy of a missing source")
}

// TestCopyFromURLAndSnapshotsAndSAS: synchronous copy, copying a snapshot,
// and source authorization across accounts' rules.
func TestCopyFromURLAndSnapshotsAndSAS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	private := f.createContainer(cname("copy-private"), nil)
	sb := private.NewBlockBlobClient("src")
	upload(t, sb, []byte("version one"), nil)
	snap, err := sb.CreateSnapshot(t.Context(), nil)
	must(t, err, "CreateSnapshot")
	upload(t, sb, []byte("version two"), nil)
	snapClient, _ := sb.WithSnapshot(*snap.Snapshot)

	dst := f.createContainer(cname("copy-sync"), nil)
	db := dst.NewBlockBlobClient("from-snapshot")
	_, err = db.StartCopyFromURL(t.Context(), snapClient.URL(), nil)
	must(t, err, "copy a snapshot")
	expectContent(t, db.BlobClient(), []byte("version one"), "copy of a snapshot")

	// Copy Blob From URL authorizes the source with a SAS in its URL.
	sasURL, err := sb.GetSASURL(sas.BlobPermissions{Read: true}, time.Now().Add(time.Hour), nil)
	must(t, err, "GetSASURL")
	sync := dst.NewBlockBlobClient("sync")
	r, err := sync.CopyFromURL(t.Context(), sasURL, nil)
	must(t, err, "CopyFromURL with a SAS source")
	if r.CopyStatus == nil || string(*r.CopyStatus) != string(blob.CopyStatusTypeSuccess) {
		t.Fatalf("sync copy status %v", deref(r.CopyStatus))
	}
	expectContent(t, sync.BlobClient(), []byte("version two"), "sync copy")

	// Through an anonymous client, a private source cannot be verified; a
	// public one can.
	anonDst, err := container.NewClientWithNoCredential(withQuery(dst.URL(), f.fullAccountSAS()), nil)
	must(t, err, "SAS container client")
	_, err = anonDst.NewBlockBlobClient("anon").StartCopyFromURL(t.Context(), sb.URL(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.CannotVerifyCopySource, "copy of a private source under a SAS (Azure answers it as missing)")
	_, err = private.SetAccessPolicy(t.Context(), &container.SetAccessPolicyOptions{Access: ptr(container.PublicAccessTypeBlob)})
	must(t, err, "make the source public")
	_, err = anonDst.NewBlockBlobClient("anon").StartCopyFromURL(t.Context(), sb.URL(), nil)
	must(t, err, "copy of a public source under a SAS")
	_, err = db.StartCopyFromURL(t.Context(), "not a url at all %%", nil)
	mustErr(t, err, http.StatusBadRequest, bloberror.InvalidSourceBlobURL, "malformed copy source")
}

// TestCopyAppendBlobSeal: a copy of an append blob is sealed as its
// source is unless x-ms-seal-blob says otherwise, and a copy unsealed by
// x-ms-seal-blob: false takes appends. Source: the Go SDK's recorded
// tests TestCopySealedBlob and TestCopyUnsealedBlob (also replayed by the
// parity suite).
func TestCopyAppendBlobSeal(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	cc := f.createContainer(cname("copy-seal"), nil)
	sealed := cc.NewAppendBlobClient("sealed")
	_, err := sealed.Create(ctx, nil)
	must(t, err, "create append blob")
	_, err = sealed.Seal(ctx, nil)
	must(t, err, "seal the source")
	open := cc.NewAppendBlobClient("open")
	_, err = open.Create(ctx, nil)
	must(t, err, "create append blob")

	for _, c := range []struct {
		name string
		src  *appendblob.Client
		seal *bool
		want bool
	}{
		{"sealed source, no x-ms-seal-blob", sealed, nil, true},
		{"sealed source, x-ms-seal-blob: true", sealed, ptr(true), true},
		{"sealed source, x-ms-seal-blob: false", sealed, ptr(false), false},
		{"open source, x-ms-seal-blob: true", open, ptr(true), true},
		{"open source, no x-ms-seal-blob", open, nil, false},
	} {
		dst := cc.NewAppendBlobClient("copy")
		_, err := dst.BlobClient().StartCopyFromURL(ctx, c.src.URL(), &blob.StartCopyFromURLOptions{SealBlob: c.seal})
		must(t, err, "Copy Blob, %s", c.name)
		if got := deref(props(t, dst.BlobClient()).IsSealed) == true; got != c.want {
			t.Errorf("%s: copy sealed %v, want %v", c.name, got, c.want)
		}
		_, err = dst.AppendBlock(ctx, rsc([]byte("more")), nil)
		if c.want {
			checkErr(t, err, http.StatusConflict, bloberror.Code("BlobIsSealed"), "append to a sealed copy ("+c.name+")")
			continue
		}
		must(t, err, "append to an unsealed copy (%s)", c.name)
		_, err = dst.Delete(ctx, nil)
		must(t, err, "delete the copy")
	}
}

// TestCopySourceTagOption: x-ms-copy-source-tag-option on Copy Blob From
// URL and Put Blob From URL — REPLACE, the default, gives the destination
// the request's x-ms-tags (none when absent) whatever tags it or the
// source had; COPY gives it the source's tags. Source: the Go SDK's live
// tests TestPutBlobFromURLWithCopySourceTagsDefault, ...Replace and
// ...Copy, whose source SAS carries the tag permission.
func TestCopySourceTagOption(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	cc := f.createContainer(cname("copy-tags"), nil)
	src := cc.NewBlockBlobClient("source")
	upload(t, src, []byte("tagged"), &blockblob.UploadOptions{Tags: map[string]string{"source": "tags"}})
	srcURL, err := src.BlobClient().GetSASURL(sas.BlobPermissions{Read: true, Tag: true}, time.Now().Add(time.Hour), nil)
	must(t, err, "source SAS")

	// The Go SDK's CopyFromURLOptions has no field for the option, so
	// Copy Blob From URL sends it through a client whose pipeline adds the
	// header before the request is signed.
	withOption := func(opt string) *container.Client {
		if opt == "" {
			return cc
		}
		o := clientOptions(nil)
		o.PerCallPolicies = []policy.Policy{headerPolicy{"x-ms-copy-source-tag-option", opt}}
		svc, err := service.NewClientWithSharedKeyCredential(f.env.BlobURL, f.cred, o)
		must(t, err, "client sending x-ms-copy-source-tag-option")
		return svc.NewContainerClient(strings.TrimPrefix(cc.URL(), f.env.BlobURL))
	}
	ops := []struct {
		name string
		run  func(dst string, tags map[string]string, opt string) error
	}{
		{"Copy Blob From URL", func(dst string, tags map[string]string, opt string) error {
			_, err := withOption(opt).NewBlobClient(dst).CopyFromURL(ctx, srcURL, &blob.CopyFromURLOptions{BlobTags: tags})
			return err
		}},
		{"Put Blob From URL", func(dst string, tags map[string]string, opt string) error {
			o := &blockblob.UploadBlobFromURLOptions{Tags: tags}
			if opt != "" {
				o.CopySourceTags = ptr(blockblob.BlobCopySourceTags(opt))
			}
			_, err := cc.NewBlockBlobClient(dst).UploadBlobFromURL(ctx, srcURL, o)
			return err
		}},
	}
	for i, op := range ops {
		for j, c := range []struct {
			name string
			tags map[string]string
			opt  string
			want map[string]string
		}{
			{"default with x-ms-tags", map[string]string{"dest": "tags"}, "", map[string]string{"dest": "tags"}},
			{"REPLACE with x-ms-tags", map[string]string{"dest": "tags"}, "REPLACE", map[string]string{"dest": "tags"}},
			{"REPLACE without x-ms-tags", nil, "REPLACE", map[string]string{}},
			{"COPY", nil, "COPY", map[string]string{"source": "tags"}},
		} {
			dst := fmt.Sprintf("dst%d-%d", i, j)
			upload(t, cc.NewBlockBlobClient(dst), []byte("old"), &blockblob.UploadOptions{Tags: map[string]string{"old": "tags"}})
			must(t, op.run(dst, c.tags, c.opt), "%s, %s", op.name, c.name)
			got, err := cc.NewBlobClient(dst).GetTags(ctx, nil)
			must(t, err, "Get Blob Tags")
			have := map[string]string{}
			for _, tag := range got.BlobTagSet {
				have[*tag.Key] = *tag.Value
			}
			if fmt.Sprint(have) != fmt.Sprint(c.want) {
				t.Errorf("%s, %s: destination tags %v, want %v", op.name, c.name, have, c.want)
			}
		}
	}
}

// headerPolicy sets one request header on every call.
type headerPolicy struct{ name, value string }

func (p headerPolicy) Do(req *policy.Request) (*http.Response, error) {
	req.Raw().Header.Set(p.name, p.value)
	return req.Next()
}
