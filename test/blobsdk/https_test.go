package blobsdk_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// Production-style host names, resolved to the test server.
const (
	prodBlobHost      = "devstoreaccount1.blob.core.windows.net"
	prodSecondaryHost = "devstoreaccount1-secondary.blob.core.windows.net"
)

// productionOptions are client options whose transport resolves the
// production host names to the server and trusts its certificate.
func productionOptions(env *servertest.Env) *service.ClientOptions {
	o := clientOptions(nil)
	o.Transport = testkit.ResolvingClient(env.CertPool, map[string]string{
		prodBlobHost: env.Server.BlobAddr(), prodSecondaryHost: env.Server.BlobAddr(),
		"devstoreaccount1.blob.localhost": env.Server.BlobAddr(),
	})
	return o
}

// newProductionFixture starts a server serving Blob over HTTPS with a
// certificate for *.blob.core.windows.net (given as --cert/--key PEM
// files) and returns it with a Shared Key client addressing it as
// https://devstoreaccount1.blob.core.windows.net/.
func newProductionFixture(t *testing.T) (*fixture, *service.Client) {
	t.Helper()
	certFile, keyFile := testkit.TLSCertFiles(t, "*.blob.core.windows.net")
	f := newFixture(t, servertest.WithStorageCert(certFile, keyFile))
	svc, err := service.NewClientWithSharedKeyCredential("https://"+prodBlobHost+"/", f.cred, productionOptions(f.env))
	must(t, err, "production-style client")
	return f, svc
}

// TestProductionURLOverHTTPS runs an everyday flow through the SDK's
// production code path: account in the host, HTTPS on 443, Shared Key
// signed over the path the SDK sent.
func TestProductionURLOverHTTPS(t *testing.T) {
	t.Parallel()
	f, svc := newProductionFixture(t)
	if !strings.HasPrefix(f.env.BlobURL, "https://") || !strings.HasPrefix(f.env.ConnectionString, "DefaultEndpointsProtocol=https;") {
		t.Errorf("endpoints %s, %s: want https", f.env.BlobURL, f.env.ConnectionString)
	}
	ctx := t.Context()
	name := cname("https")
	cc := svc.NewContainerClient(name)
	_, err := cc.Create(ctx, nil)
	must(t, err, "Create Container over HTTPS")
	bb := cc.NewBlockBlobClient("dir/hello.txt")
	first := upload(t, bb, []byte("hello over tls"), &blockblob.UploadOptions{Metadata: strMeta(map[string]string{"MixedCase": "v"})})
	expectContent(t, cc.NewBlobClient("dir/hello.txt"), []byte("hello over tls"), "Get Blob over HTTPS")

	// The listing names the account URL as the client addressed it.
	pager := cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{Metadata: true}})
	page, err := pager.NextPage(ctx)
	must(t, err, "List Blobs over HTTPS")
	if got := deref(page.ServiceEndpoint); got != "https://"+prodBlobHost+"/" {
		t.Errorf("ServiceEndpoint = %v, want https://%s/", got, prodBlobHost)
	}
	if len(page.Segment.BlobItems) != 1 || deref(page.Segment.BlobItems[0].Name) != "dir/hello.txt" {
		t.Fatalf("listing: %+v", page.Segment.BlobItems)
	}
	// The metadata name keeps its case through the TLS listener (read
	// raw: the SDK lowercases names it parses from listings).
	hc := testkit.ResolvingClient(f.env.CertPool, map[string]string{prodBlobHost: f.env.Server.BlobAddr()})
	resp, err := hc.Get("https://" + prodBlobHost + "/" + name + "?restype=container&comp=list&include=metadata&" + f.fullAccountSAS())
	must(t, err, "raw List Blobs over HTTPS")
	listing, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	must(t, err, "read listing")
	if !bytes.Contains(listing, []byte("<MixedCase>v</MixedCase>")) {
		t.Errorf("listing %s: want the metadata name MixedCase as sent", listing)
	}

	// Conditional writes.
	_, err = bb.Upload(ctx, rsc([]byte("stale")), &blockblob.UploadOptions{AccessConditions: &blob.AccessConditions{
		ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: ptr(azcore.ETag(`"0x1"`))}}})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Put Blob If-Match a stale ETag")
	upload(t, bb, []byte("second"), &blockblob.UploadOptions{AccessConditions: &blob.AccessConditions{
		ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: first.ETag}}})

	// Leases.
	lc, err := lease.NewBlobClient(bb, nil)
	must(t, err, "lease client")
	_, err = lc.AcquireLease(ctx, 15, nil)
	must(t, err, "Acquire Lease over HTTPS")
	_, err = bb.Upload(ctx, rsc([]byte("no lease")), nil)
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "Put Blob on a leased blob without its lease")
	_, err = lc.ReleaseLease(ctx, nil)
	must(t, err, "Release Lease over HTTPS")

	// A copy whose source is named by a production-style URL.
	dst := cc.NewBlobClient("copy")
	_, err = dst.StartCopyFromURL(ctx, bb.URL(), nil)
	must(t, err, "Copy Blob from %s", bb.URL())
	expectContent(t, dst, []byte("second"), "Get Blob of the copy")
}

// TestHTTPSOnlySAS: a SAS signed with spr=https works over HTTPS and is
// refused over plain HTTP, in either URL style.
func TestHTTPSOnlySAS(t *testing.T) {
	t.Parallel()
	f, svc := newProductionFixture(t)
	plain := newFixture(t)
	name := cname("sprhttps")
	for _, s := range []*service.Client{svc, plain.svc} {
		_, err := s.NewContainerClient(name).Create(t.Context(), nil)
		must(t, err, "Create Container")
		upload(t, s.NewContainerClient(name).NewBlockBlobClient("b"), []byte("secret"), nil)
	}
	qp, err := sas.BlobSignatureValues{
		Protocol: sas.ProtocolHTTPS, ExpiryTime: time.Now().Add(time.Hour),
		Permissions: (&sas.BlobPermissions{Read: true}).String(), ContainerName: name, BlobName: "b",
	}.SignWithSharedKey(f.cred)
	must(t, err, "signing an HTTPS-only SAS")

	over := func(u string, opts *service.ClientOptions) error {
		bc, err := blob.NewClientWithNoCredential(u+"?"+qp.Encode(), &blob.ClientOptions{ClientOptions: opts.ClientOptions})
		must(t, err, "SAS client for %s", u)
		resp, err := bc.DownloadStream(t.Context(), nil)
		if err != nil {
			return err
		}
		defer func() { _ = resp.Body.Close() }()
		got, err := io.ReadAll(resp.Body)
		if err == nil && !bytes.Equal(got, []byte("secret")) {
			t.Errorf("%s: got %q", u, got)
		}
		return err
	}
	must(t, over("https://"+prodBlobHost+"/"+name+"/b", productionOptions(f.env)), "Get Blob with an spr=https SAS over HTTPS")
	err = over(plain.env.BlobURL+name+"/b", clientOptions(nil))
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationProtocolMismatch, "Get Blob with an spr=https SAS over plain HTTP")
	_, port, _ := net.SplitHostPort(plain.env.Server.BlobAddr())
	hostStyle := clientOptions(nil)
	hostStyle.Transport = testkit.ResolvingClient(nil, map[string]string{"devstoreaccount1.blob.localhost": plain.env.Server.BlobAddr()})
	err = over("http://devstoreaccount1.blob.localhost:"+port+"/"+name+"/b", hostStyle)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationProtocolMismatch, "Get Blob with an spr=https SAS over plain HTTP, host style")
}

// TestBlobSecondary: the secondary endpoint reads the primary's data,
// refuses writes, and is the only one that answers Get Blob Service
// Stats; Get User Delegation Key is refused to a Shared Key caller.
func TestBlobSecondary(t *testing.T) {
	t.Parallel()
	f, svc := newProductionFixture(t)
	ctx := t.Context()
	name := cname("secondary")
	_, err := svc.NewContainerClient(name).Create(ctx, nil)
	must(t, err, "Create Container")
	upload(t, svc.NewContainerClient(name).NewBlockBlobClient("b"), []byte("replicated"), nil)

	sec, err := service.NewClientWithSharedKeyCredential("https://"+prodSecondaryHost+"/", f.cred, productionOptions(f.env))
	must(t, err, "secondary client")
	expectContent(t, sec.NewContainerClient(name).NewBlobClient("b"), []byte("replicated"), "Get Blob on the secondary")
	_, err = sec.NewContainerClient(name).NewBlockBlobClient("b").Upload(ctx, rsc([]byte("x")), nil)
	checkErr(t, err, http.StatusForbidden, bloberror.InsufficientAccountPermissions, "Put Blob on the secondary")
	_, err = sec.NewContainerClient(cname("new")).Create(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.InsufficientAccountPermissions, "Create Container on the secondary")

	// Path style: /devstoreaccount1-secondary/ on the same port.
	pathSec, err := service.NewClientWithSharedKeyCredential(strings.Replace(f.env.BlobURL, "/devstoreaccount1/", "/devstoreaccount1-secondary/", 1), f.cred, productionOptions(f.env))
	must(t, err, "path-style secondary client")
	expectContent(t, pathSec.NewContainerClient(name).NewBlobClient("b"), []byte("replicated"), "Get Blob on the path-style secondary")

	before := time.Now().Add(-time.Minute)
	for what, s := range map[string]*service.Client{"host style": sec, "path style": pathSec} {
		stats, err := s.GetStatistics(ctx, nil)
		must(t, err, "Get Blob Service Stats on the secondary (%s)", what)
		geo := stats.GeoReplication
		if geo == nil || geo.Status == nil || *geo.Status != service.BlobGeoReplicationStatusLive || geo.LastSyncTime == nil || geo.LastSyncTime.Before(before) {
			t.Errorf("%s: GeoReplication = %+v, want live and in sync", what, geo)
		}
	}
	_, err = svc.GetStatistics(ctx, nil)
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidQueryParameterValue, "Get Blob Service Stats on the primary")

	now := time.Now().UTC()
	_, err = svc.GetUserDelegationCredential(ctx, service.KeyInfo{Start: ptr(now.Format(sas.TimeFormat)), Expiry: ptr(now.Add(time.Hour).Format(sas.TimeFormat))}, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Get User Delegation Key with Shared Key")
}

// TestStorageHTTPSGeneratedCert: --storage-https serves Blob with the
// generated certificate, valid for 127.0.0.1 and for production-style
// names under localhost, and no longer answers plain HTTP.
func TestStorageHTTPSGeneratedCert(t *testing.T) {
	t.Parallel()
	f := newFixture(t, servertest.WithStorageTLS())
	if f.env.CertPool == nil || !strings.HasPrefix(f.env.BlobURL, "https://127.0.0.1:") {
		t.Fatalf("BlobURL %s, cert pool %v", f.env.BlobURL, f.env.CertPool)
	}
	_, port, _ := net.SplitHostPort(f.env.Server.BlobAddr())
	for _, u := range []string{f.env.BlobURL, "https://devstoreaccount1.blob.localhost:" + port + "/"} {
		svc, err := service.NewClientWithSharedKeyCredential(u, f.cred, productionOptions(f.env))
		must(t, err, "client for %s", u)
		_, err = svc.NewContainerClient(cname("gen")).Create(t.Context(), nil)
		must(t, err, "Create Container at %s", u)
	}
	resp, err := http.Get("http://" + f.env.Server.BlobAddr() + "/devstoreaccount1?comp=list")
	if err == nil {
		_ = resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("plain HTTP answered %d on the HTTPS port", resp.StatusCode)
		}
	}
}

// TestAzuriteTestingKey: AZURITE_ACCOUNTS with a second key that is not
// valid base64 ("testing_key", from Azurite's own test setup) starts, and
// requests signed with that key as Azurite's clients decode it (Node's
// Buffer.from(key, "base64"), which the JavaScript SDK uses) are
// accepted. The Go SDK's NewSharedKeyCredential refuses "testing_key"
// itself, so the test hands it the same bytes in standard base64.
func TestAzuriteTestingKey(t *testing.T) {
	t.Parallel()
	const key1 = "a2V5LW9uZS1rZXktb25lLWtleS1vbmUta2V5LW9uZQ=="
	f := newFixture(t, servertest.WithAccountsEnv(func(name string) string {
		if name == "AZURITE_ACCOUNTS" {
			return "account1:" + key1 + ":testing_key"
		}
		return ""
	}))
	if _, err := service.NewSharedKeyCredential("account1", "testing_key"); err == nil {
		t.Fatal("the Go SDK now decodes testing_key; sign with it directly")
	}
	nodeBytes, _ := hex.DecodeString("b5eb2d8a783f91ec") // Buffer.from("testing_key", "base64")
	cred2, err := service.NewSharedKeyCredential("account1", base64.StdEncoding.EncodeToString(nodeBytes))
	must(t, err, "credential for the second key")
	acctURL := strings.Replace(f.env.BlobURL, "/devstoreaccount1/", "/account1/", 1)

	// Shared Key with the second key.
	svc, err := service.NewClientWithSharedKeyCredential(acctURL, cred2, clientOptions(nil))
	must(t, err, "account1 client")
	name := cname("testingkey")
	_, err = svc.NewContainerClient(name).Create(t.Context(), nil)
	must(t, err, "Create Container signed with testing_key")
	upload(t, svc.NewContainerClient(name).NewBlockBlobClient("b"), []byte("azurite"), nil)

	// A SAS signed with the second key.
	qp, err := sas.BlobSignatureValues{
		Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour),
		Permissions: (&sas.BlobPermissions{Read: true}).String(), ContainerName: name, BlobName: "b",
	}.SignWithSharedKey(cred2)
	must(t, err, "signing a SAS with testing_key")
	bc, err := blob.NewClientWithNoCredential(acctURL+name+"/b?"+qp.Encode(), &blob.ClientOptions{ClientOptions: clientOptions(nil).ClientOptions})
	must(t, err, "SAS client")
	expectContent(t, bc, []byte("azurite"), "Get Blob with a SAS signed with testing_key")

	// A key that is neither is still refused.
	wrong, err := service.NewSharedKeyCredential("account1", base64.StdEncoding.EncodeToString([]byte("not the key")))
	must(t, err, "wrong credential")
	bad, err := service.NewClientWithSharedKeyCredential(acctURL, wrong, clientOptions(nil))
	must(t, err, "client with a wrong key")
	_, err = bad.GetProperties(t.Context(), nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Get Blob Service Properties with a wrong key")
}
