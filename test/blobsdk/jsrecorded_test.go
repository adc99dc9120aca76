package blobsdk_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// Behaviours @azure/storage-blob's recordings (test/parity/testdata/blob/
// js-*) showed, each checked here through the Go SDK.

// TestSnapshotMakesAVersion: with versioning on, Snapshot Blob gives the
// blob a new current version a millisecond after the snapshot, its ETag
// unchanged, and answers with that version's ID (recordings createSnapshot
// and "get blob tags should work with a snapshot").
func TestSnapshotMakesAVersion(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	f := newFixture(t, servertest.WithClock(clock.Now), servertest.WithBlobDataProtection(true, 0))
	cc := f.createContainer(cname("snapver"), nil)
	bb := cc.NewBlockBlobClient("doc")
	put := upload(t, bb, []byte("content"), nil)
	clock.Advance(time.Second)
	snap, err := bb.CreateSnapshot(t.Context(), nil)
	must(t, err, "Create Snapshot")
	if want := "2026-03-01T12:00:01.0010000Z"; deref(snap.VersionID) != any(want) || deref(snap.Snapshot) != any("2026-03-01T12:00:01.0000000Z") {
		t.Fatalf("snapshot %v, version %v; want the snapshot at the clock's time and version %s", deref(snap.Snapshot), deref(snap.VersionID), want)
	}
	if !sameETag(etagOf(snap.ETag), etagOf(put.ETag)) {
		t.Errorf("ETag moved from %v to %v", etagOf(put.ETag), etagOf(snap.ETag))
	}
	p := props(t, bb.BlobClient())
	if deref(p.VersionID) != deref(snap.VersionID) || !sameETag(etagOf(p.ETag), etagOf(put.ETag)) {
		t.Errorf("current version %v ETag %v, want %v and the upload's ETag", deref(p.VersionID), etagOf(p.ETag), deref(snap.VersionID))
	}
	var ids []string
	for _, it := range versionsOf(t, cc, "doc", container.ListBlobsInclude{}) {
		if it.VersionID != nil {
			ids = append(ids, *it.VersionID)
		}
	}
	if got := strings.Join(ids, " "); got != *put.VersionID+" "+*snap.VersionID {
		t.Errorf("versions %s, want the upload's and the snapshot's", got)
	}
}

// TestUncommittedBlob: a blob of uncommitted blocks only lists its
// length, type, inferred tier, lease and ServerEncrypted false, nothing
// else; Delete Blob deletes it (recording "listBlobsFlat to list
// uncommitted blobs").
func TestUncommittedBlob(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("uncommitted"), nil)
	bb := cc.NewBlockBlobClient("staged")
	_, err := bb.StageBlock(t.Context(), blockID(1), rsc([]byte("abc")), nil)
	must(t, err, "Put Block")
	r := f.signer().Send(t, testkit.Request{Method: http.MethodGet, URL: cc.URL() + "?restype=container&comp=list&include=uncommittedblobs"})
	r.Check(t, http.StatusOK, "", "List Blobs")
	const want = "<Properties><Content-Length>0</Content-Length><BlobType>BlockBlob</BlobType><AccessTier>Hot</AccessTier><AccessTierInferred>true</AccessTierInferred><LeaseStatus>unlocked</LeaseStatus><LeaseState>available</LeaseState><ServerEncrypted>false</ServerEncrypted></Properties>"
	if !strings.Contains(string(r.Body), want) {
		t.Fatalf("listing %s, want the uncommitted blob as %s", r.Body, want)
	}
	_, err = bb.Delete(t.Context(), nil)
	must(t, err, "Delete Blob of uncommitted blocks")
	items, _ := listFlat(t, cc, &container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{UncommittedBlobs: true}})
	if len(items) != 0 {
		t.Fatalf("after the delete %d blobs listed", len(items))
	}
	_, err = bb.Delete(t.Context(), &blob.DeleteOptions{})
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "second Delete Blob")
}

// TestFindBlobsEchoesPaging: Find Blobs by Tags names the marker and
// maxresults it was given (recording "find blob by tags should work").
func TestFindBlobsEchoesPaging(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("findpage"), nil)
	for _, n := range []string{"a", "b"} {
		upload(t, cc.NewBlockBlobClient(n), []byte(n), nil)
		_, err := cc.NewBlobClient(n).SetTags(t.Context(), map[string]string{"k": "v"}, nil)
		must(t, err, "Set Blob Tags")
	}
	s := f.signer()
	r := s.Send(t, testkit.Request{Method: http.MethodGet, URL: cc.URL() + "?restype=container&comp=blobs&maxresults=1&where=k%3D%27v%27"})
	r.Check(t, http.StatusOK, "", "Find Blobs by Tags")
	if !strings.Contains(string(r.Body), "</Where><MaxResults>1</MaxResults><Blobs>") || strings.Contains(string(r.Body), "<Marker>") {
		t.Fatalf("first page %s: want MaxResults after Where, no Marker", r.Body)
	}
	next := between(string(r.Body), "<NextMarker>", "</NextMarker>")
	r = s.Send(t, testkit.Request{Method: http.MethodGet, URL: cc.URL() + "?restype=container&comp=blobs&maxresults=1&where=k%3D%27v%27&marker=" + next})
	r.Check(t, http.StatusOK, "", "Find Blobs by Tags, second page")
	if !strings.Contains(string(r.Body), "<Marker>"+next+"</Marker><Where>") {
		t.Fatalf("second page %s: want its marker echoed before Where", r.Body)
	}
}

// between is the text of s between the first open and the close after it.
func between(s, open, close string) string {
	_, rest, _ := strings.Cut(s, open)
	v, _, _ := strings.Cut(rest, close)
	return v
}
