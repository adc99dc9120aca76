package testkit

import (
	"testing"

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
