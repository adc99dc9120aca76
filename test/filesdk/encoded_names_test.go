package filesdk_test

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"

	filestore "github.com/cerulean-db/cerulean/internal/file"
)

// TestEncodedNames: names holding U+FFFE or U+FFFF, which XML cannot
// carry, come back whole through the SDK's decoding of Encoded="true"
// in List Directories and Files (names, prefix, page by page) and in
// List Handles (paths, page by page), as in the azfile recordings
// TestListFileDirEncoded, TestListFileDirEncodedContinuationToken and
// TestListFileDirEncodedPrefix.
func TestEncodedNames(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "encoded")
	root := sc.NewRootDirectoryClient()
	dirName := "directory\uFFFF"
	dir := root.NewSubdirectoryClient(dirName)
	if _, err := dir.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	names := []string{dirName, "file0\uFFFE", "file1\uFFFE"}
	for _, n := range names[1:] {
		createFile(t, root.NewFileClient(n), 2048)
	}
	createFile(t, dir.NewFileClient("inner\uFFFE"), 1)

	var listed []string
	pager := root.NewListFilesAndDirectoriesPager(&directory.ListFilesAndDirectoriesOptions{MaxResults: to.Ptr(int32(1))})
	for pager.More() {
		resp, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range resp.Segment.Directories {
			listed = append(listed, *d.Name)
		}
		for _, fi := range resp.Segment.Files {
			listed = append(listed, *fi.Name)
		}
	}
	if len(listed) != len(names) || listed[0] != names[0] || listed[1] != names[1] || listed[2] != names[2] {
		t.Fatalf("listed %q, want %q", listed, names)
	}
	resp, err := root.NewListFilesAndDirectoriesPager(&directory.ListFilesAndDirectoriesOptions{Prefix: &dirName}).NextPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Prefix == nil || *resp.Prefix != dirName || len(resp.Segment.Directories) != 1 || len(resp.Segment.Files) != 0 {
		t.Fatalf("prefix listing: prefix %v, %d directories, %d files", resp.Prefix, len(resp.Segment.Directories), len(resp.Segment.Files))
	}

	svc := smb(f.env)
	paths := []string{dirName + "/inner\uFFFE", "file0\uFFFE", "file1\uFFFE"}
	for _, p := range paths {
		if _, err := svc.OpenHandle(ctx, filestore.Ref{Account: f.env.Account, Share: "encoded", Path: p}, filestore.HandleOptions{Access: rd, ShareAccess: all}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	var marker *string
	for range 10 {
		resp, err := root.ListHandles(ctx, &directory.ListHandlesOptions{Recursive: to.Ptr(true), MaxResults: to.Ptr(int32(1)), Marker: marker})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range resp.Handles {
			got = append(got, *h.Path)
		}
		if resp.NextMarker == nil || *resp.NextMarker == "" {
			break
		}
		marker = resp.NextMarker
	}
	if len(got) != len(paths) || got[0] != paths[0] || got[1] != paths[1] || got[2] != paths[2] {
		t.Fatalf("handle paths %q, want %q", got, paths)
	}
	closed, err := root.ForceCloseHandles(ctx, "*", &directory.ForceCloseHandlesOptions{Recursive: to.Ptr(true)})
	if err != nil || *closed.NumberOfHandlesClosed != 3 {
		t.Fatalf("force close: %v %v", closed, err)
	}
}
