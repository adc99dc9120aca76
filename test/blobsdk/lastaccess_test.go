package blobsdk_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestLastAccessTracking: with last access time tracking on (a
// management-plane setting in Azure, --blob-last-access-tracking here),
// Get Blob Properties, Get Blob and List Blobs report when a blob was
// last read or written, as the answers in azure-storage-blob's
// recordings from such an account show (test_smart_access_tier,
// test_put_block_blob_with_none_concurrency); Azure's documentation of
// the policy: only the first Get Blob in 24 hours counts, Get Blob
// Properties is no access, and a write between reads shows.
func TestLastAccessTracking(t *testing.T) {
	t.Parallel()
	start := time.Now().UTC().Truncate(time.Second)
	clock := testkit.NewClock(start)
	f := newFixture(t, servertest.WithClock(clock.Now), servertest.WithBlobLastAccessTracking())
	cc := f.createContainer(cname("lastaccess"), nil)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, []byte("v1"), nil)

	lastAccess := func(what string) time.Time {
		t.Helper()
		var raw *http.Response
		_, err := bb.GetProperties(policy.WithCaptureResponse(t.Context(), &raw), nil)
		must(t, err, "Get Blob Properties")
		at, err := time.Parse(http.TimeFormat, raw.Header.Get("x-ms-last-access-time"))
		if err != nil {
			t.Fatalf("%s: x-ms-last-access-time %q: %v", what, raw.Header.Get("x-ms-last-access-time"), err)
		}
		it := listedItem(t, cc, "b")
		if it.Properties.LastAccessedOn == nil || !it.Properties.LastAccessedOn.Equal(at) {
			t.Fatalf("%s: listed LastAccessTime %v, want %v", what, it.Properties.LastAccessedOn, at)
		}
		return at
	}
	read := func() {
		t.Helper()
		var raw *http.Response
		resp, err := bb.DownloadStream(policy.WithCaptureResponse(t.Context(), &raw), nil)
		must(t, err, "Get Blob")
		_ = resp.Body.Close()
		if raw.Header.Get("x-ms-last-access-time") == "" {
			t.Fatal("Get Blob without x-ms-last-access-time")
		}
	}

	if got := lastAccess("new blob"); !got.Equal(start) {
		t.Fatalf("new blob: last access %v, want its creation %v", got, start)
	}
	clock.Advance(time.Hour)
	lastAccess("after Get Blob Properties") // no access
	if got := lastAccess("again"); !got.Equal(start) {
		t.Fatalf("Get Blob Properties counted as an access: %v", got)
	}
	read()
	if got := lastAccess("after the first read"); !got.Equal(start.Add(time.Hour)) {
		t.Fatalf("after the first Get Blob: last access %v, want %v", got, start.Add(time.Hour))
	}
	clock.Advance(2 * time.Hour)
	read()
	if got := lastAccess("after a second read within a day"); !got.Equal(start.Add(time.Hour)) {
		t.Fatalf("a second Get Blob within 24 hours moved the last access to %v", got)
	}
	clock.Advance(time.Hour)
	_, err := bb.SetMetadata(t.Context(), map[string]*string{"k": ptr("v")}, nil)
	must(t, err, "Set Blob Metadata")
	if got := lastAccess("after a write"); !got.Equal(start.Add(4 * time.Hour)) {
		t.Fatalf("after a write: last access %v, want the write's time %v", got, start.Add(4*time.Hour))
	}
	clock.Advance(24 * time.Hour)
	read()
	if got := lastAccess("a day later"); !got.Equal(start.Add(28 * time.Hour)) {
		t.Fatalf("a Get Blob a day after the last counted one: last access %v, want %v", got, start.Add(28*time.Hour))
	}

	// Without the setting nothing is reported.
	g := newFixture(t)
	plain := g.createContainer(cname("untracked"), nil).NewBlockBlobClient("b")
	upload(t, plain, []byte("v1"), nil)
	var raw *http.Response
	_, err = plain.GetProperties(policy.WithCaptureResponse(t.Context(), &raw), nil)
	must(t, err, "Get Blob Properties")
	if v := raw.Header.Get("x-ms-last-access-time"); v != "" {
		t.Fatalf("untracked account reports x-ms-last-access-time %q", v)
	}
}
