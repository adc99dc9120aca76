package testkit

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
)

// FileService returns an Azure Files service client for url that signs
// with the account key, and the credential (for signing SAS).
func FileService(t testing.TB, url, account, key string) (*service.SharedKeyCredential, *service.Client) {
	t.Helper()
	cred, err := service.NewSharedKeyCredential(account, key)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.NewClientWithSharedKeyCredential(url, cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cred, svc
}

// AcquireRelease takes a lease on fc with an ID the SDK picks and releases
// it, returning the first error the service answers.
func AcquireRelease(t testing.TB, fc *file.Client) error {
	t.Helper()
	lc, err := lease.NewFileClient(fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.Acquire(t.Context(), nil); err != nil {
		return err
	}
	_, err = lc.Release(t.Context(), nil)
	return err
}

// DirectoryNames lists every page of dc: each page's directories, then
// its files, by name as the service writes them.
func DirectoryNames(t testing.TB, dc *directory.Client) []string {
	t.Helper()
	var names []string
	pager := dc.NewListFilesAndDirectoriesPager(nil)
	for pager.More() {
		page, err := pager.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range page.Segment.Directories {
			names = append(names, *d.Name)
		}
		for _, f := range page.Segment.Files {
			names = append(names, *f.Name)
		}
	}
	return names
}
