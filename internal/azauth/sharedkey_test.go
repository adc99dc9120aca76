package azauth_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
)

// TestSharedKeySDKBlob lets the azblob SDK sign real requests and checks
// that the server accepts them.
func TestSharedKeySDKBlob(t *testing.T) {
	auth := &azauth.Authenticator{Accounts: testAccounts(t), Service: "blob"}
	srv, got := newAuthServer(t, auth)
	cred, err := azblob.NewSharedKeyCredential(azauth.DevAccount, azauth.DevKey)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azblob.NewClientWithSharedKeyCredential(srv.URL+"/"+azauth.DevAccount, cred, clientOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cc := client.ServiceClient().NewContainerClient("c1")
	// Metadata keys a1 and a_b sort differently by bytes and by the SDK's
	// culture-aware order; values with inner spaces are signed as sent.
	meta := map[string]*string{"a1": to.Ptr("1"), "a_b": to.Ptr("x  y"), "Zed": to.Ptr("z")}
	tests := []struct {
		name string
		call func() error
	}{
		{"create container", func() error {
			_, err := cc.Create(ctx, &container.CreateOptions{Metadata: meta})
			return err
		}},
		{"set container metadata", func() error {
			_, err := cc.SetMetadata(ctx, &container.SetMetadataOptions{Metadata: meta})
			return err
		}},
		{"upload with escaped name", func() error {
			_, err := cc.NewBlockBlobClient("dir/sub file+ü%.txt").UploadBuffer(ctx, []byte("hello"), &blockblob.UploadBufferOptions{
				HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr("text/plain"), BlobContentLanguage: to.Ptr("en")},
				Metadata:    meta,
			})
			return err
		}},
		{"ranged conditional download", func() error {
			_, err := cc.NewBlobClient("b").DownloadStream(ctx, &blob.DownloadStreamOptions{
				Range: blob.HTTPRange{Offset: 1, Count: 3},
				AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{
					IfMatch: to.Ptr(azcore.ETag(`"0x8D"`)),
				}},
			})
			return err
		}},
		{"snapshot properties", func() error {
			bc, err := cc.NewBlobClient("b").WithSnapshot("2026-01-01T00:00:00.0000000Z")
			if err != nil {
				return err
			}
			_, err = bc.GetProperties(ctx, nil)
			return err
		}},
		{"delete blob", func() error {
			_, err := cc.NewBlobClient("a/b/c").Delete(ctx, nil)
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			access, _, authErr := got.get()
			if authErr != nil {
				t.Fatalf("server rejected SDK signature: %v (client: %v)", authErr, err)
			}
			if access.Kind != azauth.AccessSharedKey || access.Account != azauth.DevAccount {
				t.Fatalf("access = %+v", access)
			}
		})
	}
}

func TestSharedKeySDKRejects(t *testing.T) {
	auth := &azauth.Authenticator{Accounts: testAccounts(t), Service: "blob"}
	srv, got := newAuthServer(t, auth)
	tests := []struct {
		name, account, key string
		want               *azerr.Error
	}{
		{"key1 of second account", "acct2", azauth.Key1, nil},
		{"key2 of second account", "acct2", azauth.Key2, nil},
		{"wrong key", azauth.DevAccount, azauth.Key1, azerr.ErrAuthenticationFailed},
		{"unknown account", "nosuch", azauth.DevKey, azerr.ErrAuthenticationFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cred, err := azblob.NewSharedKeyCredential(tc.account, tc.key)
			if err != nil {
				t.Fatal(err)
			}
			client, err := azblob.NewClientWithSharedKeyCredential(srv.URL+"/"+tc.account, cred, clientOptions())
			if err != nil {
				t.Fatal(err)
			}
			_, err = client.CreateContainer(context.Background(), "c1", nil)
			_, _, authErr := got.get()
			azauth.CheckErr(t, authErr, tc.want)
			if tc.want != nil && !bloberror.HasCode(err, bloberror.Code(tc.want.Code)) {
				t.Fatalf("SDK error = %v, want code %s", err, tc.want.Code)
			}
		})
	}
}

// rewrite turns whatever request the SDK builds into another one before
// the SDK signs it, so the SDK's signer covers queue and file requests too.
type rewrite struct {
	method, target string
	header         map[string]string
}

func (p rewrite) Do(req *policy.Request) (*http.Response, error) {
	raw := req.Raw()
	u, err := url.Parse(p.target)
	if err != nil {
		return nil, err
	}
	raw.Method = p.method
	raw.URL.Path, raw.URL.RawPath, raw.URL.RawQuery = u.Path, u.RawPath, u.RawQuery
	for k, v := range p.header {
		raw.Header.Set(k, v)
	}
	return req.Next()
}

func TestSharedKeySDKQueueAndFile(t *testing.T) {
	tests := []struct {
		service string
		rw      rewrite
	}{
		{"queue", rewrite{http.MethodGet, "/devstoreaccount1/q1/messages?numofmessages=5&peekonly=true", nil}},
		{"queue", rewrite{http.MethodDelete, "/devstoreaccount1/q1/messages/id1?popreceipt=AgAAAA%2B%2F%3D%3D", nil}},
		{"file", rewrite{http.MethodPut, "/devstoreaccount1/share/dir%20a/f.txt?comp=range", map[string]string{"x-ms-range": "bytes=0-9", "x-ms-write": "clear"}}},
		{"file", rewrite{http.MethodGet, "/devstoreaccount1/share?restype=share&comp=metadata", nil}},
	}
	for _, tc := range tests {
		t.Run(tc.service+" "+tc.rw.method+" "+tc.rw.target, func(t *testing.T) {
			auth := &azauth.Authenticator{Accounts: testAccounts(t), Service: tc.service}
			srv, got := newAuthServer(t, auth)
			cred, err := azblob.NewSharedKeyCredential(azauth.DevAccount, azauth.DevKey)
			if err != nil {
				t.Fatal(err)
			}
			client, err := azblob.NewClientWithSharedKeyCredential(srv.URL+"/"+azauth.DevAccount, cred, clientOptions(tc.rw))
			if err != nil {
				t.Fatal(err)
			}
			_, _ = client.ServiceClient().GetProperties(context.Background(), nil)
			access, calls, authErr := got.get()
			if calls == 0 || authErr != nil || access.Kind != azauth.AccessSharedKey {
				t.Fatalf("calls=%d access=%+v err=%v", calls, access, authErr)
			}
		})
	}
}

// TestSharedKeyForms checks hand-written strings-to-sign of the forms no
// SDK in go.mod produces: Shared Key Lite, the Table service's forms, and
// the documented (byte-ordered, whitespace-collapsed) Shared Key form.
func TestSharedKeyForms(t *testing.T) {
	const date = "Mon, 01 Jun 2026 12:00:00 GMT"
	tests := []struct {
		name, service, method, target string
		header                        map[string]string
		scheme, toSign                string
		want                          *azerr.Error
	}{
		{
			name: "blob lite", service: "blob", method: "PUT", target: "/devstoreaccount1/c1/hello.txt?comp=metadata&timeout=30",
			header: map[string]string{"Content-Type": "text/plain", "x-ms-date": date, "x-ms-meta-m1": "v1", "x-ms-version": "2026-06-06"},
			scheme: "SharedKeyLite",
			toSign: "PUT\n\ntext/plain\n\nx-ms-date:" + date + "\nx-ms-meta-m1:v1\nx-ms-version:2026-06-06\n/devstoreaccount1/devstoreaccount1/c1/hello.txt?comp=metadata",
		},
		{
			name: "queue lite with Date header", service: "queue", method: "GET", target: "/devstoreaccount1/q1/messages",
			header: map[string]string{"Date": date, "x-ms-version": "2026-06-06"},
			scheme: "SharedKeyLite",
			toSign: "GET\n\n\n" + date + "\nx-ms-version:2026-06-06\n/devstoreaccount1/devstoreaccount1/q1/messages",
		},
		{
			name: "documented header order and whitespace", service: "blob", method: "PUT", target: "/devstoreaccount1/c1?restype=container",
			header: map[string]string{"x-ms-date": date, "x-ms-meta-a_b": "x  y", "x-ms-meta-a1": "1", "Content-Length": "0"},
			scheme: "SharedKey",
			toSign: "PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:" + date + "\nx-ms-meta-a1:1\nx-ms-meta-a_b:x y\n/devstoreaccount1/devstoreaccount1/c1\nrestype:container",
		},
		{
			name: "pre-2015 zero content length", service: "file", method: "PUT", target: "/devstoreaccount1/s1?restype=share",
			header: map[string]string{"x-ms-date": date, "Content-Length": "0"},
			scheme: "SharedKey",
			toSign: "PUT\n\n\n0\n\n\n\n\n\n\n\n\nx-ms-date:" + date + "\n/devstoreaccount1/devstoreaccount1/s1\nrestype:share",
		},
		{
			name: "path without repeated account", service: "blob", method: "GET", target: "/devstoreaccount1/c1/b?comp=list&a=2&A=1",
			header: map[string]string{"x-ms-date": date},
			scheme: "SharedKey",
			toSign: "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:" + date + "\n/devstoreaccount1/c1/b\na:1,2\ncomp:list",
		},
		{
			name: "table shared key", service: "table", method: "POST", target: "/devstoreaccount1/Tables",
			header: map[string]string{"Content-Type": "application/json", "x-ms-date": date},
			scheme: "SharedKey",
			toSign: "POST\n\napplication/json\n" + date + "\n/devstoreaccount1/devstoreaccount1/Tables",
		},
		{
			name: "table shared key lite with comp", service: "table", method: "GET", target: "/devstoreaccount1/mytable?comp=acl&timeout=5",
			header: map[string]string{"x-ms-date": date},
			scheme: "SharedKeyLite",
			toSign: date + "\n/devstoreaccount1/devstoreaccount1/mytable?comp=acl",
		},
		{
			name: "table entity signed unescaped, sent escaped", service: "table", method: "GET", target: "/devstoreaccount1/t1(PartitionKey=%27p%27,RowKey=%27r%27)",
			header: map[string]string{"x-ms-date": date},
			scheme: "SharedKeyLite",
			toSign: date + "\n/devstoreaccount1/devstoreaccount1/t1(PartitionKey='p',RowKey='r')",
		},
		{
			name: "table with blob form", service: "table", method: "GET", target: "/devstoreaccount1/Tables",
			header: map[string]string{"x-ms-date": date},
			scheme: "SharedKey",
			toSign: "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:" + date + "\n/devstoreaccount1/devstoreaccount1/Tables",
			want:   azerr.ErrAuthenticationFailed,
		},
		{
			name: "decoded newline cannot pose as query", service: "blob", method: "GET", target: "/devstoreaccount1/c1%0Acomp:list",
			header: map[string]string{"x-ms-date": date},
			scheme: "SharedKey",
			toSign: "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:" + date + "\n/devstoreaccount1/devstoreaccount1/c1\ncomp:list",
			want:   azerr.ErrAuthenticationFailed,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			auth := &azauth.Authenticator{Accounts: testAccounts(t), Service: tc.service}
			r := newRequest(tc.method, tc.target, tc.header)
			r.Header.Set("Authorization", tc.scheme+" "+azauth.DevAccount+":"+sign(t, azauth.DevKey, tc.toSign))
			account, c, b := splitPath(r.URL.Path)
			access, err := auth.Authenticate(r, account, c, b)
			azauth.CheckErr(t, err, tc.want)
			if tc.want == nil && access.Kind != azauth.AccessSharedKey {
				t.Fatalf("access = %+v", access)
			}
		})
	}
}

func TestSharedKeyMalformed(t *testing.T) {
	sig := sign(t, azauth.DevKey, "anything")
	tests := []struct {
		header string
		want   *azerr.Error
	}{
		{"SharedKey devstoreaccount1", azerr.ErrInvalidAuthenticationInfo},
		{"SharedKey :" + sig, azerr.ErrInvalidAuthenticationInfo},
		{"Bearer eyJ0eXAiOiJKV1QifQ", azerr.ErrInvalidAuthenticationInfo},
		{"SharedKey acct2:" + sig, azerr.ErrAuthenticationFailed},
		{"SharedKey devstoreaccount1:not base64!", azerr.ErrAuthenticationFailed},
		{"SharedKey devstoreaccount1:" + sig, azerr.ErrAuthenticationFailed},
	}
	auth := &azauth.Authenticator{Accounts: testAccounts(t), Service: "blob"}
	for _, tc := range tests {
		t.Run(tc.header, func(t *testing.T) {
			r := newRequest("GET", "/devstoreaccount1/c1", map[string]string{"Authorization": tc.header})
			_, err := auth.Authenticate(r, azauth.DevAccount, "c1", "")
			azauth.CheckErr(t, err, tc.want)
		})
	}
}
