package ceruleantest_test

import (
	"context"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/cerulean-db/cerulean/ceruleantest"
)

// connect is the client newClient makes from the connection string conn
// with the SDK's default options; a string the SDK refuses stops the test.
func connect[C, O any](t *testing.T, newClient func(conn string, options *O) (C, error), conn string) C {
	t.Helper()
	c, err := newClient(conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func putBlob(t *testing.T, conn, container, name, content string) {
	t.Helper()
	client := connect(t, azblob.NewClientFromConnectionString, conn)
	if _, err := client.CreateContainer(context.Background(), container, nil); err != nil {
		t.Fatalf("create container: %v", err)
	}
	if _, err := client.UploadBuffer(context.Background(), container, name, []byte(content), nil); err != nil {
		t.Fatalf("upload: %v", err)
	}
}

func getBlob(t *testing.T, conn, container, name string) string {
	t.Helper()
	client := connect(t, azblob.NewClientFromConnectionString, conn)
	resp, err := client.DownloadStream(context.Background(), container, name, nil)
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEveryEndpointAnswers: the Queue and File services answer their
// SDKs on the URLs the connection string names, and the SMB server
// accepts connections.
func TestEveryEndpointAnswers(t *testing.T) {
	t.Parallel()
	srv := ceruleantest.Start(t)
	ctx := context.Background()
	queues := connect(t, azqueue.NewServiceClientFromConnectionString, srv.ConnectionString)
	if _, err := queues.CreateQueue(ctx, "jobs", nil); err != nil {
		t.Fatalf("create queue: %v", err)
	}
	if strings.TrimSuffix(queues.URL(), "/")+"/" != srv.QueueURL {
		t.Errorf("queue client URL %s, want QueueURL %s", queues.URL(), srv.QueueURL)
	}
	files := connect(t, service.NewClientFromConnectionString, srv.ConnectionString)
	if _, err := files.CreateShare(ctx, "docs", nil); err != nil {
		t.Fatalf("create share: %v", err)
	}
	if strings.TrimSuffix(files.URL(), "/")+"/" != srv.FileURL {
		t.Errorf("file client URL %s, want FileURL %s", files.URL(), srv.FileURL)
	}
	conn, err := net.Dial("tcp", srv.SMBAddr)
	if err != nil {
		t.Fatalf("SMB: %v", err)
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if srv.DataDir != "" {
		t.Errorf("DataDir %q, want the in-memory store", srv.DataDir)
	}
}

// TestDataDirOutlivesTheServer: a second server on the same directory
// finds the first one's data and presents the same certificate.
func TestDataDirOutlivesTheServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	first, err := ceruleantest.New(ctx, ceruleantest.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	putBlob(t, first.ConnectionString, "kept", "a.txt", "still here")
	pool := first.CertPool()
	if err := first.Close(ctx); err != nil {
		t.Fatal(err)
	}
	second := ceruleantest.Start(t, ceruleantest.WithDataDir(dir))
	if got := getBlob(t, second.ConnectionString, "kept", "a.txt"); got != "still here" {
		t.Errorf("after a restart the blob reads %q, want %q", got, "still here")
	}
	if !second.CertPool().Equal(pool) || second.DataDir != dir {
		t.Errorf("the restarted server presents another certificate, or reports DataDir %q for %q", second.DataDir, dir)
	}
}

// TestTempDir: New's temporary store is durable (on disk) while the
// server runs and removed by Close; a second Close returns the first's
// result.
func TestTempDir(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, err := ceruleantest.New(ctx, ceruleantest.Options{TempDir: true})
	if err != nil {
		t.Fatal(err)
	}
	putBlob(t, srv.ConnectionString, "box", "b", "on disk")
	if entries, err := os.ReadDir(srv.DataDir); err != nil || len(entries) == 0 {
		t.Fatalf("temporary data directory %q: %d entries, %v; want the store's files", srv.DataDir, len(entries), err)
	}
	if err := srv.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(srv.DataDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Close the temporary data directory: %v, want it removed", err)
	}
	if err := srv.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}

	// Start's temporary store is the test's own temporary directory.
	started := ceruleantest.Start(t, ceruleantest.WithTempDir())
	putBlob(t, started.ConnectionString, "box", "b", "on disk")
	if started.DataDir == "" {
		t.Error("WithTempDir: the store is in memory")
	}
}

func TestDataDirAndTempDirExcludeEachOther(t *testing.T) {
	t.Parallel()
	_, err := ceruleantest.New(context.Background(), ceruleantest.Options{DataDir: t.TempDir(), TempDir: true})
	if err == nil || !strings.Contains(err.Error(), "exclude each other") {
		t.Fatalf("New with DataDir and TempDir: %v, want a refusal", err)
	}
}

// TestCosmosHTTP: with CosmosHTTP the SDK reaches the gateway without a
// custom transport, and nothing is served over HTTPS to trust.
func TestCosmosHTTP(t *testing.T) {
	t.Parallel()
	srv := ceruleantest.Start(t, ceruleantest.WithCosmosHTTP())
	if !strings.HasPrefix(srv.CosmosEndpoint, "http://127.0.0.1:") {
		t.Fatalf("CosmosEndpoint %s, want plain HTTP on loopback", srv.CosmosEndpoint)
	}
	cred, err := azcosmos.NewKeyCredential(srv.CosmosKey)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azcosmos.NewClientWithKey(srv.CosmosEndpoint, cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CreateDatabase(context.Background(), azcosmos.DatabaseProperties{ID: "plain"}, nil); err != nil {
		t.Fatalf("create database over HTTP: %v", err)
	}
	if !srv.CertPool().Equal(x509.NewCertPool()) {
		t.Error("CertPool trusts a certificate though no service is served over HTTPS")
	}
}

// TestSearchHTTPS: Search over HTTPS answers the server's HTTP client
// with the admin key, and a client that does not trust the certificate
// is refused; the query key cannot create an index.
func TestSearchHTTPS(t *testing.T) {
	t.Parallel()
	srv := ceruleantest.Start(t, ceruleantest.WithSearchHTTPS())
	if !strings.HasPrefix(srv.SearchEndpoint, "https://127.0.0.1:") {
		t.Fatalf("SearchEndpoint %s, want HTTPS on loopback", srv.SearchEndpoint)
	}
	request := func(client *http.Client, method, key, body string) (int, error) {
		req, err := http.NewRequest(method, srv.SearchEndpoint+"/indexes?api-version=2024-07-01", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("api-key", key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Body.Close()
	}
	index := `{"name":"hotels","fields":[{"name":"id","type":"Edm.String","key":true}]}`
	if status, err := request(srv.HTTPClient(), http.MethodPost, srv.SearchAdminKey, index); err != nil || status != http.StatusCreated {
		t.Fatalf("create index with the admin key: %d, %v; want 201", status, err)
	}
	if status, err := request(srv.HTTPClient(), http.MethodPost, srv.SearchQueryKey, strings.Replace(index, "hotels", "motels", 1)); err != nil || status != http.StatusForbidden {
		t.Errorf("create index with the query key: %d, %v; want 403", status, err)
	}
	var unknownAuthority x509.UnknownAuthorityError
	if _, err := request(&http.Client{}, http.MethodGet, srv.SearchAdminKey, ""); !errors.As(err, &unknownAuthority) {
		t.Errorf("a client without the server's certificate: %v, want an unknown authority error", err)
	}
}

// TestLogger: the server's log goes to the logger given. (The log is a
// file: the server's goroutines write it while the test runs.)
func TestLogger(t *testing.T) {
	t.Parallel()
	log, err := os.Create(filepath.Join(t.TempDir(), "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = log.Close() })
	ceruleantest.Start(t, ceruleantest.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	if b, err := os.ReadFile(log.Name()); err != nil || !strings.Contains(string(b), "service listening") {
		t.Errorf("log %q (%v), want the services' start lines", b, err)
	}
}

// TestClockExpiresALease: a 15 s lease expires at once when the test
// moves the clock 16 s.
func TestClockExpiresALease(t *testing.T) {
	srv := ceruleantest.Start(t, ceruleantest.WithTestClock())
	ctx := context.Background()
	blobs := connect(t, azblob.NewClientFromConnectionString, srv.ConnectionString)
	if _, err := blobs.CreateContainer(ctx, "leases", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := blobs.UploadBuffer(ctx, "leases", "b", []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	b := blobs.ServiceClient().NewContainerClient("leases").NewBlobClient("b")
	first, _ := lease.NewBlobClient(b, nil)
	second, _ := lease.NewBlobClient(b, nil)
	if _, err := first.AcquireLease(ctx, 15, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := second.AcquireLease(ctx, 15, nil); err == nil {
		t.Fatal("a second lease was granted while the first is held")
	}
	before := srv.Now()
	if now, err := srv.AdvanceClock(16 * time.Second); err != nil || now.Sub(before) < 16*time.Second {
		t.Fatalf("AdvanceClock: %v, %v", now, err)
	}
	if _, err := second.AcquireLease(ctx, 15, nil); err != nil {
		t.Fatalf("the first lease did not expire: %v", err)
	}
	if _, err := ceruleantest.Start(t).AdvanceClock(time.Second); !errors.Is(err, ceruleantest.ErrNoTestClock) {
		t.Errorf("AdvanceClock without a test clock: %v", err)
	}
}

// TestTestsUseOnlyThePublicAPI: these tests stand for a user's, so they
// import cerulean's public package and nothing internal.
func TestTestsUseOnlyThePublicAPI(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: cannot list the tests' imports")
	}
	out, err := exec.Command(goTool, "list", "-f", "{{.Name}} {{join .XTestImports \" \"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := strings.Fields(string(out))
	if len(imports) < 2 || imports[0] != "ceruleantest" || !slices.Contains(imports, "github.com/cerulean-db/cerulean/ceruleantest") {
		t.Fatalf("go list answered %q: not this package's test imports", out)
	}
	for _, p := range imports[1:] {
		if strings.HasPrefix(p, "github.com/cerulean-db/cerulean/") && p != "github.com/cerulean-db/cerulean/ceruleantest" {
			t.Errorf("the tests import %s", p)
		}
	}
}
