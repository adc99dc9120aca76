package servertest

import (
	"context"
	"crypto/x509"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/faults"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/search"
	"github.com/cerulean-db/cerulean/internal/server"
	"github.com/cerulean-db/cerulean/internal/testkit"
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
	// CertPool trusts the certificate the Storage services present with
	// WithStorageTLS or WithStorageCert (nil over plain HTTP).
	CertPool *x509.CertPool
	// AdminURL is the operations endpoint, "http://127.0.0.1:port".
	AdminURL string
}

type options struct {
	dataDir string
	now     func() time.Time
	// cosmosTLS serves the Cosmos DB gateway over HTTPS; searchTLS the
	// Search service.
	cosmosTLS, searchTLS bool
	// scriptBudget bounds Cosmos server-side script runs (0: the default).
	scriptBudget time.Duration
	// store is a PostgreSQL connection string; schema the schema in it.
	store, schema string
	// storageTLS serves the Storage services over HTTPS, with the PEM
	// pair in certFile and keyFile when set.
	storageTLS        bool
	certFile, keyFile string
	// accountsEnv, when set, is the environment the accounts are loaded
	// from (AZURITE_ACCOUNTS, CERULEAN_ACCOUNTS).
	accountsEnv func(string) string
	// blobVersioning and containerRetention are the Blob service's data
	// protection settings.
	blobVersioning     bool
	containerRetention int
	// testClock and faults turn on the tools for testing concurrency.
	testClock bool
	faults    []faults.Rule
	faultsOn  bool
	// reserve and freeSpace drive the store's free-space check.
	reserve   uint64
	freeSpace func() (uint64, error)
	// maxConns bounds each HTTP listener's open connections (0: the
	// server's default).
	maxConns int
}

// WithMaxConnections bounds the connections each HTTP listener holds open.
func WithMaxConnections(n int) Option { return func(o *options) { o.maxConns = n } }

// WithFreeSpace keeps reserve bytes free on the store's volume, reading
// the free space from free (every 10 ms) instead of the file system.
func WithFreeSpace(reserve uint64, free func() (uint64, error)) Option {
	return func(o *options) { o.reserve, o.freeSpace = reserve, free }
}

// WithTestClock gives the services a clock the test moves forward
// (Env.Server.Clock, or POST /clock/advance on Env.AdminURL).
func WithTestClock() Option { return func(o *options) { o.testClock = true } }

// WithFaults turns fault injection on with rules (none: configured later
// through Env.Server.Faults or PUT /faults on Env.AdminURL).
func WithFaults(rules ...faults.Rule) Option {
	return func(o *options) { o.faultsOn, o.faults = true, rules }
}

// WithStorageTLS serves Blob, Queue, Table and File over HTTPS with the
// server's generated certificate; Env.CertPool trusts it.
func WithStorageTLS() Option { return func(o *options) { o.storageTLS = true } }

// WithStorageCert serves Blob, Queue, Table and File over HTTPS with the
// PEM certificate and key in certFile and keyFile (as --cert and --key);
// Env.CertPool trusts the certificate.
func WithStorageCert(certFile, keyFile string) Option {
	return func(o *options) { o.storageTLS, o.certFile, o.keyFile = true, certFile, keyFile }
}

// WithAccountsEnv loads the accounts as the server binary does, from the
// AZURITE_ACCOUNTS and CERULEAN_ACCOUNTS values getenv returns.
func WithAccountsEnv(getenv func(string) string) Option {
	return func(o *options) { o.accountsEnv = getenv }
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

// WithPostgres runs the server on the PostgreSQL database dsn, in schema
// (created if missing). Servers given the same dsn and schema share one
// store, as front ends of one deployment do.
func WithPostgres(dsn, schema string) Option {
	return func(o *options) { o.store, o.schema = dsn, schema }
}

// StoreEnv, set to "postgres", runs every server a test starts without a
// store of its own on the test PostgreSQL cluster (testkit.PostgresDSN),
// in a fresh schema: the whole SDK suite on the shared-database engine.
const StoreEnv = "CERULEAN_TEST_STORE"

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
	if o.store == "" && o.dataDir == "" && os.Getenv(StoreEnv) == "postgres" {
		o.store, o.schema = testkit.PostgresDSN(t), testkit.PostgresSchema()
	}
	if o.store != "" && o.dataDir == "" {
		o.dataDir = t.TempDir()
	}
	var accounts *azhttp.Accounts
	if o.accountsEnv != nil {
		var err error
		if accounts, err = azhttp.LoadAccounts(o.accountsEnv); err != nil {
			t.Fatalf("load accounts: %v", err)
		}
	}
	srv, err := server.Start(context.Background(), server.Config{
		Accounts:                     accounts,
		StorageHTTPS:                 o.storageTLS,
		StorageCertFile:              o.certFile,
		StorageKeyFile:               o.keyFile,
		Host:                         "127.0.0.1",
		DataDir:                      o.dataDir,
		InMemory:                     o.dataDir == "",
		Store:                        o.store,
		StoreSchema:                  o.schema,
		Logger:                       slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:                          o.now,
		CosmosHTTP:                   !o.cosmosTLS,
		SearchHTTPS:                  o.searchTLS,
		CosmosScriptBudget:           o.scriptBudget,
		BlobVersioning:               o.blobVersioning,
		ContainerDeleteRetentionDays: o.containerRetention,
		TestClock:                    o.testClock,
		MinFreeBytes:                 o.reserve,
		FreeSpace:                    o.freeSpace,
		FreeSpaceInterval:            10 * time.Millisecond,
		FaultInjection:               o.faultsOn,
		Faults:                       o.faults,
		MaxConnections:               o.maxConns,
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
	urls := srv.StorageURLs(azhttp.DevAccount)
	var pool *x509.CertPool
	if cert := srv.StorageCertificate(); cert != nil {
		pool = x509.NewCertPool()
		pool.AddCert(cert)
	}
	return &Env{
		CertPool:         pool,
		BlobURL:          urls.Blob,
		QueueURL:         urls.Queue,
		TableURL:         urls.Table,
		FileURL:          urls.File,
		SMBAddr:          srv.SMBAddr(),
		Account:          azhttp.DevAccount,
		Key:              azhttp.DevKey,
		ConnectionString: srv.ConnectionString(azhttp.DevAccount, azhttp.DevKey),
		Store:            srv.Store(),
		Server:           srv,
		CosmosURL:        srv.CosmosURL(),
		CosmosKey:        cosmos.EmulatorKey,
		SearchURL:        srv.SearchURL(), SearchAdminKey: search.DefaultAdminKey, SearchQueryKey: search.DefaultQueryKey,
		AdminURL: "http://" + srv.AdminAddr(),
	}
}
