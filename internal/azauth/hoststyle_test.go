package azauth_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

func TestHostAccount(t *testing.T) {
	accts := testAccounts(t)
	tests := []struct {
		host, want string
		ok         bool
	}{
		{"devstoreaccount1.blob.localhost:10000", "devstoreaccount1", true},
		{"devstoreaccount1.blob.core.windows.net", "devstoreaccount1", true},
		{"DevStoreAccount1.Blob.Core.Windows.Net:443", "devstoreaccount1", true},
		{"devstoreaccount1-secondary.blob.core.windows.net", "devstoreaccount1-secondary", true},
		{"acct2.table.localhost", "acct2", true},
		{"127.0.0.1:10000", "", false},
		{"[::1]:10000", "", false},
		{"localhost:10000", "", false},
		{"devstoreaccount1", "", false},        // a single label is a machine, not an account
		{"devstoreaccount1.:10000", "", false}, // nothing after the label
		{"unknown.blob.core.windows.net", "", false},
		{"-secondary.blob.core.windows.net", "", false},
		{"unknown-secondary.blob.core.windows.net", "", false},
	}
	for _, tc := range tests {
		got, ok := azhttp.HostAccount(tc.host, accts)
		if got != tc.want || ok != tc.ok {
			t.Errorf("HostAccount(%q) = %q, %v; want %q, %v", tc.host, got, ok, tc.want, tc.ok)
		}
	}
}

// TestHostStyleRewrite checks what a handler behind HostStyle sees.
func TestHostStyleRewrite(t *testing.T) {
	accts := testAccounts(t)
	var gotPath, gotURL, gotURI string
	var gotHost bool
	h := azhttp.HostStyle(accts, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotURL, gotURI, gotHost = r.URL.Path, azhttp.AccountURL(r, "devstoreaccount1"), r.RequestURI, azhttp.IsHostStyle(r)
	}))
	tests := []struct {
		host, target               string
		wantPath, wantURL, wantURI string
		wantHost                   bool
	}{
		{"devstoreaccount1.blob.localhost:10000", "/c/b%2Fx?comp=list", "/devstoreaccount1/c/b/x", "http://devstoreaccount1.blob.localhost:10000/", "/c/b%2Fx?comp=list", true},
		{"devstoreaccount1.blob.localhost:10000", "/?comp=list", "/devstoreaccount1/", "http://devstoreaccount1.blob.localhost:10000/", "/?comp=list", true},
		{"devstoreaccount1-secondary.blob.localhost", "/c", "/devstoreaccount1-secondary/c", "http://devstoreaccount1-secondary.blob.localhost/", "/c", true},
		{"127.0.0.1:10000", "/devstoreaccount1/c", "/devstoreaccount1/c", "http://127.0.0.1:10000/devstoreaccount1/", "/devstoreaccount1/c", false},
	}
	for _, tc := range tests {
		r := httptest.NewRequest(http.MethodGet, "http://"+tc.host+tc.target, nil)
		r.RequestURI = tc.target
		h.ServeHTTP(httptest.NewRecorder(), r)
		if gotPath != tc.wantPath || gotURL != tc.wantURL || gotURI != tc.wantURI || gotHost != tc.wantHost {
			t.Errorf("%s%s: path %q url %q uri %q host-style %v; want %q %q %q %v", tc.host, tc.target,
				gotPath, gotURL, gotURI, gotHost, tc.wantPath, tc.wantURL, tc.wantURI, tc.wantHost)
		}
	}
}

// hostDialer sends every connection to addr, whatever host the client
// names: production-style host names resolved to the test server.
func hostDialer(addr string) *http.Client {
	d := &net.Dialer{}
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}}
}

// newHostStyleServer is newAuthServer behind HostStyle: the handler takes
// the account from the rewritten path, the primary one for a secondary.
func newHostStyleServer(t *testing.T, auth *azauth.Authenticator) (*httptest.Server, *outcome) {
	t.Helper()
	o := &outcome{}
	h := authHandler(auth, o, func(account string) string { return strings.TrimSuffix(account, azhttp.SecondarySuffix) })
	srv := httptest.NewServer(azhttp.HostStyle(auth.Accounts, azhttp.Wrap(auth.Service, quietLogger, nil, azhttp.WriteError, h)))
	t.Cleanup(srv.Close)
	return srv, o
}

// TestHostStyleSharedKey lets the SDKs sign production-style URLs (the
// account in the host, the primary and the secondary) and checks the
// server verifies them against the path the client sent.
func TestHostStyleSharedKey(t *testing.T) {
	auth := &azauth.Authenticator{Accounts: testAccounts(t), Service: "blob"}
	srv, got := newHostStyleServer(t, auth)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	cred, err := azblob.NewSharedKeyCredential(azauth.DevAccount, azauth.DevKey)
	if err != nil {
		t.Fatal(err)
	}
	opts := &azblob.ClientOptions{ClientOptions: azcore.ClientOptions{
		Retry: policy.RetryOptions{MaxRetries: -1}, Transport: hostDialer(srv.Listener.Addr().String()),
	}}
	ctx := context.Background()
	for _, host := range []string{"devstoreaccount1", "devstoreaccount1-secondary"} {
		url := "http://" + host + ".blob.localhost:" + strconv.Itoa(port) + "/"
		client, err := azblob.NewClientWithSharedKeyCredential(url, cred, opts)
		if err != nil {
			t.Fatal(err)
		}
		cc := client.ServiceClient().NewContainerClient("c1")
		if _, err := cc.Create(ctx, &container.CreateOptions{}); err != nil {
			t.Fatalf("%s: create: %v", host, err)
		}
		if _, err := cc.NewBlobClient("dir/a b").GetProperties(ctx, nil); err != nil {
			t.Fatalf("%s: get properties: %v", host, err)
		}
		if access, _, authErr := got.get(); authErr != nil || access.Kind != azauth.AccessSharedKey {
			t.Fatalf("%s: access %+v, %v", host, access, authErr)
		}
	}

	// The queue SDK signs the same way.
	qauth := &azauth.Authenticator{Accounts: testAccounts(t), Service: "queue"}
	qsrv, qgot := newHostStyleServer(t, qauth)
	qcred, err := azqueue.NewSharedKeyCredential(azauth.DevAccount, azauth.DevKey)
	if err != nil {
		t.Fatal(err)
	}
	qport := qsrv.Listener.Addr().(*net.TCPAddr).Port
	qc, err := azqueue.NewServiceClientWithSharedKeyCredential("http://devstoreaccount1.queue.localhost:"+strconv.Itoa(qport)+"/", qcred,
		&azqueue.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}, Transport: hostDialer(qsrv.Listener.Addr().String())}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := qc.NewQueueClient("q1").Create(ctx, nil); err != nil {
		t.Fatalf("queue create: %v", err)
	}
	if access, _, authErr := qgot.get(); authErr != nil || access.Kind != azauth.AccessSharedKey {
		t.Fatalf("queue: access %+v, %v", access, authErr)
	}
}

// TestHostStyleSignsSentPath: a host-style request signed as though the
// account were also in its path is refused, and a path-style one signed
// without the repeated account (as some clients do) is still accepted.
func TestHostStyleSignsSentPath(t *testing.T) {
	accts := testAccounts(t)
	auth := &azauth.Authenticator{Accounts: accts, Service: "blob"}
	date := "Mon, 02 Jan 2026 15:04:05 GMT"
	stringToSign := func(resource string) string {
		return "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:" + date + "\nx-ms-version:2025-01-05\n" + resource
	}
	check := func(host, target, resource string, wantOK bool) {
		t.Helper()
		var err error
		h := azhttp.HostStyle(accts, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			account, container, blob := splitPath(r.URL.Path)
			_, err = auth.Authenticate(r, account, container, blob)
		}))
		r := httptest.NewRequest(http.MethodGet, "http://"+host+target, nil)
		r.RequestURI = target
		r.Header.Set("x-ms-date", date)
		r.Header.Set("x-ms-version", "2025-01-05")
		r.Header.Set("Authorization", "SharedKey "+azauth.DevAccount+":"+sign(t, azauth.DevKey, stringToSign(resource)))
		h.ServeHTTP(httptest.NewRecorder(), r)
		if (err == nil) != wantOK {
			t.Errorf("%s%s signed %q: err = %v, want ok %v", host, target, resource, err, wantOK)
		}
	}
	check("devstoreaccount1.blob.localhost", "/c/b", "/devstoreaccount1/c/b", true)
	check("devstoreaccount1.blob.localhost", "/c/b", "/devstoreaccount1/devstoreaccount1/c/b", false)
	check("127.0.0.1:10000", "/devstoreaccount1/c/b", "/devstoreaccount1/devstoreaccount1/c/b", true)
	check("127.0.0.1:10000", "/devstoreaccount1/c/b", "/devstoreaccount1/c/b", true)
}
