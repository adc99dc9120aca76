package servertest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/search"
	"github.com/cerulean-db/cerulean/internal/server"
)

// Env is a running server and how to reach it.
type Env struct {
	BlobURL  string // service URL, ending in "/"
	QueueURL string // queue service URL, ending in "/"
	TableURL string // table service URL, ending in "/"
	FileURL  string // file service URL, ending in "/"
	// SMBAddr is the SMB server's host:port (smbclient -p takes the port).
	SMBAddr string
	// CosmosURL is the Cosmos DB gateway's endpoint, ending in "/" (plain
	// HTTP unless WithCosmosTLS); CosmosKey its master key.
	CosmosURL, CosmosKey string
	// SearchURL is the Azure AI Search endpoint, "http://host:port";
	// SearchAdminKey and SearchQueryKey its api-keys.
	SearchURL, SearchAdminKey, SearchQueryKey string
	Account, Key                              string
	ConnectionString                          string
	Store                                     kv.Store
	Server                                    *server.Server
}

type options struct {
	dataDir string
	now     func() time.Time
	// cosmosTLS serves the Cosmos DB gateway over HTTPS; searchTLS the
	// Search service.
	cosmosTLS, searchTLS bool
	// scriptBudget bounds Cosmos server-side script runs (0: the default).
	scriptBudget time.Duration
	// blobVersioning and containerRetention are the Blob service's data
	// protection settings.
	blobVersioning     bool
	containerRetention int
}

// Option changes how Start sets the server up.
type Option func(*options)

// WithDataDir uses a durable store in dir instead of memory.
func WithDataDir(dir string) Option { return func(o *options) { o.dataDir = dir } }

// WithCosmosTLS serves the Cosmos DB gateway over HTTPS with its
// self-signed certificate instead of plain HTTP.
func WithCosmosTLS() Option { return func(o *options) { o.cosmosTLS = true } }

// WithScriptBudget sets the time one Cosmos stored procedure, trigger or
// UDF run may take.
func WithScriptBudget(d time.Duration) Option { return func(o *options) { o.scriptBudget = d } }

// WithSearchTLS serves Search over HTTPS with the server's certificate
// (kept in the data directory with WithDataDir).
func WithSearchTLS() Option { return func(o *options) { o.searchTLS = true } }

// WithBlobDataProtection turns on blob versioning and keeps deleted
// containers restorable for containerRetentionDays (0: not at all).
func WithBlobDataProtection(versioning bool, containerRetentionDays int) Option {
	return func(o *options) { o.blobVersioning, o.containerRetention = versioning, containerRetentionDays }
}

// WithClock drives the services' clock.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// Start starts a server on random loopback ports, stopped at cleanup.
// Request logs go to stderr only when CERULEAN_TEST_LOG is set.
func Start(t testing.TB, opts ...Option) *Env {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	out := io.Writer(io.Discard)
	if os.Getenv("CERULEAN_TEST_LOG") != "" {
		out = os.Stderr
	}
	srv, err := server.Start(context.Background(), server.Config{
		Host:                         "127.0.0.1",
		DataDir:                      o.dataDir,
		InMemory:                     o.dataDir == "",
		Logger:                       slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:                          o.now,
		CosmosHTTP:                   !o.cosmosTLS,
		SearchHTTPS:                  o.searchTLS,
		CosmosScriptBudget:           o.scriptBudget,
		BlobVersioning:               o.blobVersioning,
		ContainerDeleteRetentionDays: o.containerRetention,
	})
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	blobURL := fmt.Sprintf("http://%s/%s/", srv.BlobAddr(), azhttp.DevAccount)
	queueURL := fmt.Sprintf("http://%s/%s/", srv.QueueAddr(), azhttp.DevAccount)
	tableURL := fmt.Sprintf("http://%s/%s/", srv.TableAddr(), azhttp.DevAccount)
	fileURL := fmt.Sprintf("http://%s/%s/", srv.FileAddr(), azhttp.DevAccount)
	return &Env{
		BlobURL:  blobURL,
		QueueURL: queueURL,
		TableURL: tableURL,
		FileURL:  fileURL,
		SMBAddr:  srv.SMBAddr(),
		Account:  azhttp.DevAccount,
		Key:      azhttp.DevKey,
		ConnectionString: fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=http://%s/%s;QueueEndpoint=http://%s/%s;TableEndpoint=http://%s/%s;FileEndpoint=http://%s/%s;",
			azhttp.DevAccount, azhttp.DevKey, srv.BlobAddr(), azhttp.DevAccount, srv.QueueAddr(), azhttp.DevAccount, srv.TableAddr(), azhttp.DevAccount, srv.FileAddr(), azhttp.DevAccount),
		Store:     srv.Store(),
		Server:    srv,
		CosmosURL: srv.CosmosURL(),
		CosmosKey: cosmos.EmulatorKey,
		SearchURL: srv.SearchURL(), SearchAdminKey: search.DefaultAdminKey, SearchQueryKey: search.DefaultQueryKey,
	}
}
