package servertest

import (
	"context"
	"crypto/x509"
	"errors"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/ceruleantest"
	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/embedhook"
	"github.com/cerulean-db/cerulean/internal/faults"
	"github.com/cerulean-db/cerulean/internal/kv"
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
	// Embedded is the server as the public ceruleantest package started
	// it (Env.Server is the same server, internals included).
	Embedded *ceruleantest.Server
}

type options struct {
	dataDir string
	// uncheckedBecause, when set, is why the store cannot be checked as
	// the server stops (the test destroys it on purpose).
	uncheckedBecause string
	now              func() time.Time
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
	blobLastAccess     bool
	// shareRetention is the File service's share soft delete, in days.
	shareRetention int
	largeShares    bool
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

// WithoutInvariantCheck skips the store check when the server stops, for
// a test that destroys the store on purpose (reason says how); use it
// only there, so that every other server's store is checked.
func WithoutInvariantCheck(reason string) Option {
	return func(o *options) { o.uncheckedBecause = reason }
}

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

// WithBlobLastAccessTracking turns on the Blob service's last access time
// tracking.
func WithBlobLastAccessTracking() Option { return func(o *options) { o.blobLastAccess = true } }

// WithShareRetention keeps deleted file shares restorable for days (share
// soft delete).
func WithShareRetention(days int) Option { return func(o *options) { o.shareRetention = days } }

// WithFileLargeShares gives shares created without a quota 100 TiB, as an
// account with large file shares does.
func WithFileLargeShares() Option { return func(o *options) { o.largeShares = true } }

// WithClock drives the services' clock.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// Start starts a server on random loopback ports through ceruleantest,
// the public embedding API, with what only cerulean's own tests may set
// added through its internal hooks; it is stopped at cleanup. When it
// stops (at cleanup, or when the test shuts it down itself), once its
// listeners and background work are quiet and before its store closes,
// every service's stored invariants are checked (Server.CheckInvariants)
// and a violation fails the test. Request logs go to stderr only when
// CERULEAN_TEST_LOG is set.
func Start(t testing.TB, opts ...Option) *Env {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	public := ceruleantest.Options{
		DataDir:        o.dataDir,
		CosmosHTTP:     !o.cosmosTLS,
		SearchHTTPS:    o.searchTLS,
		TestClock:      o.testClock,
		FaultInjection: o.faultsOn,
	}
	if os.Getenv("CERULEAN_TEST_LOG") != "" {
		public.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if o.store == "" && o.dataDir == "" && os.Getenv(StoreEnv) == "postgres" {
		o.store, o.schema = testkit.PostgresDSN(t), testkit.PostgresSchema()
	}
	if o.store != "" && o.dataDir == "" {
		public.DataDir = t.TempDir()
	}
	var accounts *azauth.Accounts
	if o.accountsEnv != nil {
		var err error
		if accounts, err = azauth.LoadAccounts(o.accountsEnv); err != nil {
			t.Fatalf("load accounts: %v", err)
		}
	}
	var srv *server.Server
	ctx := embedhook.WithHooks(context.Background(), embedhook.Hooks{
		Configure: func(cfg *server.Config) {
			cfg.Accounts = accounts
			cfg.StorageHTTPS, cfg.StorageCertFile, cfg.StorageKeyFile = o.storageTLS, o.certFile, o.keyFile
			cfg.Store, cfg.StoreSchema = o.store, o.schema
			cfg.Now = o.now
			cfg.CosmosScriptBudget = o.scriptBudget
			cfg.BlobVersioning, cfg.ContainerDeleteRetentionDays = o.blobVersioning, o.containerRetention
			cfg.BlobLastAccessTracking = o.blobLastAccess
			cfg.ShareDeleteRetentionDays, cfg.FileLargeShares = o.shareRetention, o.largeShares
			cfg.MinFreeBytes, cfg.FreeSpace, cfg.FreeSpaceInterval = o.reserve, o.freeSpace, 10*time.Millisecond
			cfg.Faults = o.faults
			cfg.MaxConnections = o.maxConns
			cfg.BeforeStoreClose = checkInvariants(t, o.uncheckedBecause)
		},
		Started: func(s *server.Server) { srv = s },
	})
	embedded, err := ceruleantest.New(ctx, public)
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := embedded.Close(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	var pool *x509.CertPool
	if cert := srv.StorageCertificate(); cert != nil {
		pool = x509.NewCertPool()
		pool.AddCert(cert)
	}
	return &Env{
		CertPool:         pool,
		BlobURL:          embedded.BlobURL,
		QueueURL:         embedded.QueueURL,
		TableURL:         embedded.TableURL,
		FileURL:          embedded.FileURL,
		SMBAddr:          embedded.SMBAddr,
		Account:          embedded.Account,
		Key:              embedded.Key,
		ConnectionString: embedded.ConnectionString,
		Store:            srv.Store(),
		Server:           srv,
		Embedded:         embedded,
		CosmosURL:        embedded.CosmosEndpoint,
		CosmosKey:        embedded.CosmosKey,
		SearchURL:        embedded.SearchEndpoint, SearchAdminKey: embedded.SearchAdminKey, SearchQueryKey: embedded.SearchQueryKey,
		AdminURL: embedded.AdminURL,
	}
}

// invariantChecks counts the stops whose invariants were checked.
var invariantChecks atomic.Int64

// InvariantChecks is how many server stops in this test process had
// their store's invariants checked (a suite can show that the check ran).
func InvariantChecks() int64 { return invariantChecks.Load() }

// checkInvariants is the cleanup habit of bbolt's btesting: a server's
// store is checked when the server stops, whether the test passed or not,
// and a violation fails the test. A test that closed the store itself
// leaves nothing to check; that is logged, not failed.
func checkInvariants(t testing.TB, uncheckedBecause string) func(context.Context, *server.Server) {
	return func(ctx context.Context, s *server.Server) {
		if uncheckedBecause != "" {
			t.Logf("store invariants not checked: %s", uncheckedBecause)
			return
		}
		err := errors.Join(testkit.KeysAscending(ctx, s.Store()), s.CheckInvariants(ctx))
		if errors.Is(err, kv.ErrClosed) {
			t.Logf("store invariants not checked: the test closed the store")
			return
		}
		invariantChecks.Add(1)
		if err != nil {
			t.Errorf("store invariants violated when the server stopped: %v", err)
			return
		}
		t.Logf("store invariants hold as the server stops")
	}
}
