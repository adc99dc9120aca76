package filesdk_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
)

// TestCaseInsensitiveNames: Azure Files names are case-insensitive and
// case-preserving, as on NTFS. A path in any case finds the entry; a
// directory whose name differs only in case from a directory is refused
// with ResourceAlreadyExists, from a file with ResourceTypeMismatch; a
// file created in another case replaces the file's content and keeps its
// stored name (microsoft/AzureStorageExplorer issue 5211); a rename to
// another case stores the new case; listings show stored names.
func TestCaseInsensitiveNames(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "names")
	root := sc.NewRootDirectoryClient()
	if _, err := sc.NewDirectoryClient("SubDirC").Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	hello := sc.NewDirectoryClient("SubDirC").NewFileClient("Hello.txt")
	cr, err := hello.Create(ctx, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	upload(t, hello, 0, []byte("hi"))

	upper := sc.NewDirectoryClient("SUBDIRC").NewFileClient("HELLO.TXT")
	p, err := upper.GetProperties(ctx, nil)
	if err != nil || *p.ID != *cr.ID {
		t.Fatalf("properties in another case: %v (id %v, want %s)", err, p.ID, *cr.ID)
	}
	if got := download(t, sc.NewDirectoryClient("subdirc").NewFileClient("hello.TXT"), file.HTTPRange{}); string(got) != "hi" {
		t.Fatalf("download in another case: %q", got)
	}
	_, err = sc.NewDirectoryClient("subdirc").Create(ctx, nil)
	wantCode(t, err, fileerror.ResourceAlreadyExists)
	// Over a file, a directory meets another type of resource:
	// ResourceTypeMismatch, as Azure answered the Create Directory that
	// microsoft/vscode-azurestorage issue 848 reports.
	_, err = sc.NewDirectoryClient("SUBDIRC/hello.txt").Create(ctx, nil)
	wantCode(t, err, fileerror.ResourceTypeMismatch)
	_, err = sc.NewDirectoryClient("SubDirC/Hello.txt").Create(ctx, nil)
	wantCode(t, err, fileerror.ResourceTypeMismatch)

	// Created again in another case: the same file, its name unchanged.
	again, err := upper.Create(ctx, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *again.ID != *cr.ID {
		t.Errorf("a create in another case made file %s, want %s replaced", *again.ID, *cr.ID)
	}
	if got := listNames(t, sc.NewDirectoryClient("subDirC")); !slices.Equal(got, []string{"Hello.txt"}) {
		t.Errorf("listing after a create in another case: %v", got)
	}
	if got := download(t, hello, file.HTTPRange{}); !bytes.Equal(got, make([]byte, 5)) {
		t.Errorf("content after a create in another case: %q", got)
	}

	// A rename changing only case.
	if _, err := sc.NewDirectoryClient("SubDirC").Rename(ctx, "subdirc", nil); err != nil {
		t.Fatal(err)
	}
	if got := listNames(t, root); !slices.Equal(got, []string{"subdirc"}) {
		t.Errorf("root after renaming SubDirC to subdirc: %v", got)
	}
	if _, err := sc.NewDirectoryClient("SUBDIRC").GetProperties(ctx, nil); err != nil {
		t.Errorf("the renamed directory in another case: %v", err)
	}
	if _, err := sc.NewDirectoryClient("subdirc").NewFileClient("hello.txt").Rename(ctx, "subdirc/HELLO.txt", nil); err != nil {
		t.Fatal(err)
	}
	if got := listNames(t, sc.NewDirectoryClient("SubDirC")); !slices.Equal(got, []string{"HELLO.txt"}) {
		t.Errorf("after renaming hello.txt to HELLO.txt: %v", got)
	}

	// Another file renamed onto a name differing only in case meets the
	// file there as it would meet it by the same name.
	other := root.NewFileClient("other.txt")
	if _, err := other.Create(ctx, 0, nil); err != nil {
		t.Fatal(err)
	}
	_, err = other.Rename(ctx, "SUBDIRC/hello.TXT", nil)
	wantCode(t, err, fileerror.ResourceAlreadyExists)
	if _, err := other.Rename(ctx, "SUBDIRC/hello.TXT", &file.RenameOptions{ReplaceIfExists: to.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if got := listNames(t, sc.NewDirectoryClient("subdirc")); !slices.Equal(got, []string{"hello.TXT"}) {
		t.Errorf("after replacing HELLO.txt by hello.TXT: %v", got)
	}
}

// TestListingOrderIgnoresCase: List Directories and Files orders entries
// by their names ignoring case, as the Go SDK recording
// TestListDirsAndFiles shows Azure doing (lol.file before SomeDirectory),
// page after page.
func TestListingOrderIgnoresCase(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "order")
	root := sc.NewRootDirectoryClient()
	for _, d := range []string{"SomeDirectory", "Zeta"} {
		if _, err := sc.NewDirectoryClient(d).Create(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"lol.file", "alpha", "BETA"} {
		if _, err := root.NewFileClient(n).Create(ctx, 0, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The SDK splits a page into its directories and its files: pages of
	// one entry keep the order whole.
	var got []string
	pager := root.NewListFilesAndDirectoriesPager(&directory.ListFilesAndDirectoriesOptions{MaxResults: to.Ptr[int32](1)})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range page.Segment.Directories {
			got = append(got, *d.Name)
		}
		for _, f := range page.Segment.Files {
			got = append(got, *f.Name)
		}
	}
	if want := []string{"alpha", "BETA", "lol.file", "SomeDirectory", "Zeta"}; !slices.Equal(got, want) {
		t.Errorf("listed %v, want %v", got, want)
	}
}
