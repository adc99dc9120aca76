package filesdk_test

import (
	"bytes"
	"net/http"
	"regexp"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"
)

// snapshotTime is Azure's x-ms-snapshot format.
var snapshotTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$`)

func createSnapshot(t *testing.T, sc *share.Client, opts *share.CreateSnapshotOptions) string {
	t.Helper()
	resp, err := sc.CreateSnapshot(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Snapshot == nil || !snapshotTime.MatchString(*resp.Snapshot) {
		t.Fatalf("x-ms-snapshot %v", resp.Snapshot)
	}
	if resp.ETag == nil || resp.LastModified == nil {
		t.Fatal("a snapshot answers its ETag and Last-Modified")
	}
	return *resp.Snapshot
}

func withSnapshot(t *testing.T, sc *share.Client, snap string) *share.Client {
	t.Helper()
	ss, err := sc.WithSnapshot(snap)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// TestShareSnapshots: a snapshot reads as the share did when it was
// taken, through every read the SDK offers on one, and refuses writes.
func TestShareSnapshots(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "snaps")
	if _, err := sc.NewDirectoryClient("d").Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	fc := sc.NewDirectoryClient("d").NewFileClient("f")
	writeFile(t, fc, 8, 0, []byte("original"))
	gone := sc.NewRootDirectoryClient().NewFileClient("gone")
	writeFile(t, gone, 3, 0, []byte("bye"))
	snap := createSnapshot(t, sc, &share.CreateSnapshotOptions{Metadata: map[string]*string{"tag": to.Ptr("v1")}})

	writeFile(t, fc, -1, 0, []byte("CHANGED!"))
	if _, err := gone.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.NewDirectoryClient("d").NewFileClient("new").Create(ctx, 1, nil); err != nil {
		t.Fatal(err)
	}

	ss := withSnapshot(t, sc, snap)
	props, err := ss.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if meta(props.Metadata, "tag") != "v1" {
		t.Errorf("snapshot metadata %v", props.Metadata)
	}
	sf := ss.NewDirectoryClient("d").NewFileClient("f")
	if got := download(t, sf, file.HTTPRange{}); string(got) != "original" {
		t.Errorf("snapshot file reads %q", got)
	}
	if got := download(t, ss.NewRootDirectoryClient().NewFileClient("gone"), file.HTTPRange{}); string(got) != "bye" {
		t.Errorf("snapshot of a deleted file reads %q", got)
	}
	if got := download(t, fc, file.HTTPRange{}); string(got) != "CHANGED!" {
		t.Errorf("live file reads %q", got)
	}
	fp, err := sf.GetProperties(ctx, nil)
	if err != nil || *fp.ContentLength != 8 {
		t.Fatalf("snapshot file properties: %v %v", fp, err)
	}
	if _, err := ss.NewDirectoryClient("d").GetProperties(ctx, nil); err != nil {
		t.Fatal(err)
	}
	var names []string
	pager := ss.NewDirectoryClient("d").NewListFilesAndDirectoriesPager(nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, fi := range page.Segment.Files {
			names = append(names, *fi.Name)
		}
	}
	if len(names) != 1 || names[0] != "f" {
		t.Errorf("snapshot directory lists %v, want [f]", names)
	}
	rl, err := sf.GetRangeList(ctx, nil)
	if err != nil || len(rl.Ranges) != 1 || *rl.Ranges[0].End != 7 {
		t.Errorf("snapshot ranges %v %v", rl.Ranges, err)
	}

	// A snapshot is read-only.
	_, err = sf.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader([]byte("x"))), nil)
	wantCode(t, err, fileerror.ShareSnapshotOperationNotSupported)
	_, err = ss.NewDirectoryClient("x").Create(ctx, nil)
	wantCode(t, err, fileerror.ShareSnapshotOperationNotSupported)
	_, err = ss.SetMetadata(ctx, nil)
	wantCode(t, err, fileerror.ShareSnapshotOperationNotSupported)
	_, err = sf.Delete(ctx, nil)
	wantCode(t, err, fileerror.ShareSnapshotOperationNotSupported)

	// An unknown or malformed snapshot.
	_, err = withSnapshot(t, sc, "2001-01-01T00:00:00.0000000Z").GetProperties(ctx, nil)
	wantCode(t, err, fileerror.ShareNotFound)
	_, err = withSnapshot(t, sc, "yesterday").GetProperties(ctx, nil)
	wantStatus(t, err, http.StatusBadRequest, "InvalidQueryParameterValue")

	if _, err := sc.Delete(ctx, &share.DeleteOptions{DeleteSnapshots: to.Ptr(share.DeleteSnapshotsOptionTypeInclude)}); err != nil {
		t.Fatal(err)
	}
}

// TestDeleteShareSnapshots: a share with snapshots is deleted only with
// them (include or include-leased); a snapshot is deleted on its own.
func TestDeleteShareSnapshots(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	for _, mode := range []share.DeleteSnapshotsOptionType{share.DeleteSnapshotsOptionTypeInclude, share.DeleteSnapshotsOptionTypeIncludeLeased} {
		sc := f.share(t, "del")
		writeFile(t, sc.NewRootDirectoryClient().NewFileClient("f"), 4, 0, []byte("data"))
		first := createSnapshot(t, sc, nil)
		createSnapshot(t, sc, nil)

		_, err := sc.Delete(ctx, nil)
		wantCode(t, err, fileerror.ShareHasSnapshots)
		if _, err := withSnapshot(t, sc, first).Delete(ctx, nil); err != nil {
			t.Fatal(err)
		}
		_, err = withSnapshot(t, sc, first).GetProperties(ctx, nil)
		wantCode(t, err, fileerror.ShareNotFound)
		// Deleting it again names the snapshot (@azure/storage-file-share's
		// recording deleteIfExists).
		_, err = withSnapshot(t, sc, first).Delete(ctx, nil)
		wantCode(t, err, fileerror.Code("ShareSnapshotNotFound"))
		if _, err := sc.Delete(ctx, &share.DeleteOptions{DeleteSnapshots: to.Ptr(mode)}); err != nil {
			t.Fatalf("delete with %s: %v", mode, err)
		}
		_, err = sc.GetProperties(ctx, nil)
		wantCode(t, err, fileerror.ShareNotFound)
	}
}

// TestListSharesWithSnapshots: include=snapshots lists each share's
// snapshots, oldest first, before the share, with <Snapshot>.
func TestListSharesWithSnapshots(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	a := f.share(t, "lista")
	f.share(t, "listb")
	s1 := createSnapshot(t, a, nil)
	s2 := createSnapshot(t, a, nil)
	type entry struct{ name, snap string }
	list := func(include bool, max int32) []entry {
		var out []entry
		pager := f.svc.NewListSharesPager(&service.ListSharesOptions{Include: service.ListSharesInclude{Snapshots: include}, MaxResults: to.Ptr(max), Prefix: to.Ptr("list")})
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range page.Shares {
				e := entry{name: *s.Name}
				if s.Snapshot != nil {
					e.snap = *s.Snapshot
				}
				out = append(out, e)
			}
		}
		return out
	}
	want := []entry{{"lista", s1}, {"lista", s2}, {"lista", ""}, {"listb", ""}}
	for _, max := range []int32{1, 2, 5000} {
		got := list(true, max)
		if len(got) != len(want) {
			t.Fatalf("maxresults %d: %v, want %v", max, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("maxresults %d: %v, want %v", max, got, want)
				break
			}
		}
	}
	if got := list(false, 5000); len(got) != 2 {
		t.Errorf("without include=snapshots: %v", got)
	}
	if _, err := a.Delete(ctx, &share.DeleteOptions{DeleteSnapshots: to.Ptr(share.DeleteSnapshotsOptionTypeInclude)}); err != nil {
		t.Fatal(err)
	}
}

// TestRangeListDiff: List Ranges with prevsharesnapshot reports the ranges
// written and cleared since that snapshot, against the live file or a
// later snapshot.
func TestRangeListDiff(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "diff")
	fc := sc.NewRootDirectoryClient().NewFileClient("f")
	writeFile(t, fc, 4096, 0, bytes.Repeat([]byte("a"), 4096))
	snap1 := createSnapshot(t, sc, nil)
	writeFile(t, fc, -1, 512, bytes.Repeat([]byte("b"), 512))
	if _, err := fc.ClearRange(ctx, file.HTTPRange{Offset: 2048, Count: 512}, nil); err != nil {
		t.Fatal(err)
	}
	snap2 := createSnapshot(t, sc, nil)
	writeFile(t, fc, -1, 3072, bytes.Repeat([]byte("c"), 100))

	type rng struct{ start, end int64 }
	check := func(name string, client *file.Client, prev string, wantRanges, wantClear []rng) {
		t.Helper()
		resp, err := client.GetRangeList(ctx, &file.GetRangeListOptions{PrevShareSnapshot: to.Ptr(prev)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got, gotClear []rng
		for _, r := range resp.Ranges {
			got = append(got, rng{*r.Start, *r.End})
		}
		for _, r := range resp.ClearRanges {
			gotClear = append(gotClear, rng{*r.Start, *r.End})
		}
		if !equalRanges(got, wantRanges) || !equalRanges(gotClear, wantClear) {
			t.Errorf("%s: ranges %v clear %v, want %v and %v", name, got, gotClear, wantRanges, wantClear)
		}
		if *resp.FileContentLength != 4096 {
			t.Errorf("%s: x-ms-content-length %d", name, *resp.FileContentLength)
		}
	}
	// 100 bytes at 3072 change their whole 512-byte page.
	check("snap1 to live", fc, snap1, []rng{{512, 1023}, {3072, 3583}}, []rng{{2048, 2559}})
	snapFile := withSnapshot(t, sc, snap2).NewRootDirectoryClient().NewFileClient("f")
	check("snap1 to snap2", snapFile, snap1, []rng{{512, 1023}}, []rng{{2048, 2559}})
	check("snap2 to live", fc, snap2, []rng{{3072, 3583}}, nil)

	_, err := fc.GetRangeList(ctx, &file.GetRangeListOptions{PrevShareSnapshot: to.Ptr("2001-01-01T00:00:00.0000000Z")})
	wantStatus(t, err, http.StatusConflict, "PreviousSnapshotNotFound")
	// Deleted and created again, the file is another generation.
	if _, err := fc.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	createFile(t, fc, 10)
	_, err = fc.GetRangeList(ctx, &file.GetRangeListOptions{PrevShareSnapshot: to.Ptr(snap1)})
	wantStatus(t, err, http.StatusConflict, "FileGenerationMismatch")

	if _, err := sc.Delete(ctx, &share.DeleteOptions{DeleteSnapshots: to.Ptr(share.DeleteSnapshotsOptionTypeInclude)}); err != nil {
		t.Fatal(err)
	}
}

func equalRanges[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSnapshotOfSnapshot: Snapshot Share sent through a snapshot's client
// is not refused: Azure ignores sharesnapshot there, even a value that is
// no snapshot time, and snapshots the live share (the azfile recording
// TestShareCreateSnapshotNegativeSnapshotOfSnapshot answers 201 to both).
// The new snapshot holds the share as it is, not as the snapshot named.
func TestSnapshotOfSnapshot(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "snapofsnap")
	fc := sc.NewRootDirectoryClient().NewFileClient("f")
	writeFile(t, fc, 2, 0, []byte("v1"))
	first := createSnapshot(t, sc, nil)
	upload(t, fc, 0, []byte("v2"))

	second := createSnapshot(t, withSnapshot(t, sc, first), nil)
	third := createSnapshot(t, withSnapshot(t, sc, "2023-03-31 20:00:00 +0000 UTC"), nil)
	if second == first || third == first || third == second {
		t.Fatalf("snapshots %s, %s, %s: want three distinct", first, second, third)
	}
	for snap, want := range map[string]string{first: "v1", second: "v2", third: "v2"} {
		got := download(t, withSnapshot(t, sc, snap).NewRootDirectoryClient().NewFileClient("f"), file.HTTPRange{})
		if string(got) != want {
			t.Errorf("snapshot %s reads %q, want %q", snap, got, want)
		}
	}
	// Any other request checks the value.
	_, err := withSnapshot(t, sc, "2023-03-31 20:00:00 +0000 UTC").GetProperties(ctx, nil)
	wantStatus(t, err, http.StatusBadRequest, "InvalidQueryParameterValue")
}
