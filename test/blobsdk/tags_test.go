package blobsdk_test

import (
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// blobTags returns a blob's (or snapshot's) tags as a map.
func blobTags(t *testing.T, bc *blob.Client, opts *blob.GetTagsOptions) map[string]string {
	t.Helper()
	resp, err := bc.GetTags(t.Context(), opts)
	must(t, err, "Get Blob Tags")
	out := map[string]string{}
	for _, tag := range resp.BlobTagSet {
		out[*tag.Key] = *tag.Value
	}
	return out
}

func ifTags(expr string) *blob.AccessConditions {
	return &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfTags: &expr}}
}

// TestTagsRoundTrip: tags set on upload come back from Get Blob Tags, the
// tag count shows on Get Properties, Download and listings, and Set Blob
// Tags replaces them without changing the blob's ETag.
func TestTagsRoundTrip(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("tags"), nil)
	bb := cc.NewBlockBlobClient("tagged")
	first := map[string]string{"project": "cerulean", "Stage": "a b+c-d.e/f:g=h_i", "empty": ""}
	upload(t, bb, []byte("data"), &blockblob.UploadOptions{Tags: first})
	if got := blobTags(t, bb.BlobClient(), nil); !maps.Equal(got, first) {
		t.Errorf("tags after upload = %v, want %v", got, first)
	}
	p := props(t, bb.BlobClient())
	if deref(p.TagCount) != any(int64(3)) {
		t.Errorf("Get Properties TagCount = %v, want 3", deref(p.TagCount))
	}
	dl, err := bb.DownloadStream(t.Context(), nil)
	must(t, err, "Download")
	_ = dl.Body.Close()
	if deref(dl.TagCount) != any(int64(3)) {
		t.Errorf("Download TagCount = %v, want 3", deref(dl.TagCount))
	}

	second := map[string]string{"project": "other"}
	_, err = bb.SetTags(t.Context(), second, nil)
	must(t, err, "Set Blob Tags")
	if got := blobTags(t, bb.BlobClient(), nil); !maps.Equal(got, second) {
		t.Errorf("tags after Set Blob Tags = %v, want %v", got, second)
	}
	if after := props(t, bb.BlobClient()); !sameETag(etagOf(after.ETag), etagOf(p.ETag)) {
		t.Errorf("Set Blob Tags changed the ETag: %v -> %v", etagOf(p.ETag), etagOf(after.ETag))
	}

	plain := cc.NewBlockBlobClient("plain")
	upload(t, plain, []byte("x"), nil)
	if got := blobTags(t, plain.BlobClient(), nil); len(got) != 0 {
		t.Errorf("tags of an untagged blob = %v, want none", got)
	}
	if pp := props(t, plain.BlobClient()); pp.TagCount != nil {
		t.Errorf("untagged blob TagCount = %v, want absent", *pp.TagCount)
	}

	items, _ := listFlat(t, cc, &container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{Tags: true}})
	found := map[string]map[string]string{}
	for _, it := range items {
		tags := map[string]string{}
		if it.BlobTags != nil {
			for _, tag := range it.BlobTags.BlobTagSet {
				tags[*tag.Key] = *tag.Value
			}
		}
		found[*it.Name] = tags
	}
	if !maps.Equal(found["tagged"], second) || len(found["plain"]) != 0 {
		t.Errorf("List Blobs include=tags = %v", found)
	}

	// Overwriting a blob without x-ms-tags drops its tags, as Azure does.
	upload(t, bb, []byte("new"), nil)
	if got := blobTags(t, bb.BlobClient(), nil); len(got) != 0 {
		t.Errorf("tags after overwrite = %v, want none", got)
	}
}

// TestTagsValidation: Azure's limits answer 400 with its codes.
func TestTagsValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("tags-bad"), nil)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, []byte("x"), nil)
	eleven := map[string]string{}
	for i := range 11 {
		eleven[string(rune('a'+i))] = "v"
	}
	cases := []struct {
		name string
		tags map[string]string
		code bloberror.Code
	}{
		{"eleven tags", eleven, "TagsTooLarge"},
		{"empty key", map[string]string{"": "v"}, "InvalidTag"},
		{"key of 129", map[string]string{strings.Repeat("k", 129): "v"}, "InvalidTag"},
		{"value of 257", map[string]string{"k": strings.Repeat("v", 257)}, "InvalidTag"},
		{"forbidden character", map[string]string{"k": "a&b"}, "InvalidTag"},
		{"non-ASCII key", map[string]string{"clé": "v"}, "InvalidTag"},
	}
	for _, tc := range cases {
		_, err := bb.SetTags(t.Context(), tc.tags, nil)
		checkErr(t, err, http.StatusBadRequest, tc.code, "Set Blob Tags with %s", tc.name)
		_, err = cc.NewBlockBlobClient("new").Upload(t.Context(), rsc([]byte("x")), &blockblob.UploadOptions{Tags: tc.tags})
		checkErr(t, err, http.StatusBadRequest, tc.code, "Upload with %s", tc.name)
	}
	// The limits themselves are allowed.
	ok := map[string]string{strings.Repeat("k", 128): strings.Repeat("v", 256)}
	for i := range 9 {
		ok[string(rune('a'+i))] = ""
	}
	_, err := bb.SetTags(t.Context(), ok, nil)
	must(t, err, "Set Blob Tags at the limits")
	if got := blobTags(t, bb.BlobClient(), nil); !maps.Equal(got, ok) {
		t.Errorf("tags at the limits did not round-trip: %d of %d", len(got), len(ok))
	}
	_, err = cc.NewBlockBlobClient("missing").SetTags(t.Context(), map[string]string{"k": "v"}, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Set Blob Tags on a missing blob")
}

// TestIfTags: x-ms-if-tags gates writes and reads, alone and together with
// If-Match in one request; each must hold.
func TestIfTags(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("iftags"), nil)
	bb := cc.NewBlockBlobClient("b")
	put := upload(t, bb, []byte("v1"), &blockblob.UploadOptions{Tags: map[string]string{"state": "draft", "n": "5"}})
	etag := etagOf(put.ETag)

	both := func(expr string, match string) *blob.AccessConditions {
		ac := ifTags(expr)
		m := etag
		if match != "" {
			m = azcore.ETag(match)
		}
		ac.ModifiedAccessConditions.IfMatch = &m
		return ac
	}
	_, err := bb.Upload(t.Context(), rsc([]byte("v2")), &blockblob.UploadOptions{AccessConditions: both(`"state" = 'draft'`, `"0x1"`)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "upload with matching tags but a stale If-Match")
	_, err = bb.Upload(t.Context(), rsc([]byte("v2")), &blockblob.UploadOptions{AccessConditions: both(`"state" = 'final'`, "")})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "upload with the current If-Match but tags that do not match")
	expectContent(t, bb.BlobClient(), []byte("v1"), "after refused conditional uploads")

	_, err = bb.Upload(t.Context(), rsc([]byte("v2")), &blockblob.UploadOptions{
		Tags:             map[string]string{"state": "final"},
		AccessConditions: both(`"state" = 'draft' AND "n" >= '5' AND "n" < '6'`, ""),
	})
	must(t, err, "upload with tags and If-Match both holding")
	expectContent(t, bb.BlobClient(), []byte("v2"), "after the conditional upload")

	// Reads and the other writes take the condition too.
	_, err = bb.GetProperties(t.Context(), &blob.GetPropertiesOptions{AccessConditions: ifTags(`"state" = 'draft'`)})
	checkErr(t, err, http.StatusPreconditionFailed, "", "Get Properties with tags that do not match")
	_, err = bb.GetTags(t.Context(), &blob.GetTagsOptions{BlobAccessConditions: ifTags(`"state" = 'draft' OR "state" = 'final'`)})
	must(t, err, "Get Blob Tags with an OR that holds")
	_, err = bb.SetMetadata(t.Context(), map[string]*string{"k": to.Ptr("v")}, &blob.SetMetadataOptions{AccessConditions: ifTags(`"missing" = ''`)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Set Metadata on a tag the blob lacks")
	_, err = bb.SetTags(t.Context(), map[string]string{"x": "y"}, &blob.SetTagsOptions{AccessConditions: ifTags(`"state" <> 'final'`)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Set Blob Tags with <> on the current value")
	_, err = bb.Delete(t.Context(), &blob.DeleteOptions{AccessConditions: ifTags(`"state" = 'draft'`)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Delete with tags that do not match")
	_, err = bb.Delete(t.Context(), &blob.DeleteOptions{AccessConditions: ifTags(`"state" = 'final'`)})
	must(t, err, "Delete with matching tags")

	_, err = cc.NewBlockBlobClient("c").Upload(t.Context(), rsc([]byte("x")), &blockblob.UploadOptions{AccessConditions: ifTags(`"state" == 'final'`)})
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidHeaderValue, "a malformed x-ms-if-tags")
}

// TestTagsSnapshotsAndCopies: a snapshot keeps the tags its blob had when
// it was taken; a copy takes x-ms-tags, never the source's tags.
func TestTagsSnapshotsAndCopies(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("tags-snap"), nil)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, []byte("x"), &blockblob.UploadOptions{Tags: map[string]string{"v": "1"}})
	snap, err := bb.CreateSnapshot(t.Context(), nil)
	must(t, err, "Create Snapshot")
	_, err = bb.SetTags(t.Context(), map[string]string{"v": "2"}, nil)
	must(t, err, "Set Blob Tags")
	if got := blobTags(t, bb.BlobClient(), &blob.GetTagsOptions{Snapshot: snap.Snapshot}); got["v"] != "1" {
		t.Errorf("snapshot tags = %v, want v=1", got)
	}
	sc, err := bb.WithSnapshot(*snap.Snapshot)
	must(t, err, "WithSnapshot")
	_, err = sc.SetTags(t.Context(), map[string]string{"v": "3"}, nil)
	checkErr(t, err, http.StatusBadRequest, "", "Set Blob Tags on a snapshot")

	dst := cc.NewBlockBlobClient("copy")
	_, err = dst.StartCopyFromURL(t.Context(), bb.URL(), &blob.StartCopyFromURLOptions{BlobTags: map[string]string{"copied": "yes"}})
	must(t, err, "Copy Blob with x-ms-tags")
	if got := blobTags(t, dst.BlobClient(), nil); !maps.Equal(got, map[string]string{"copied": "yes"}) {
		t.Errorf("copy tags = %v, want copied=yes only", got)
	}
}
