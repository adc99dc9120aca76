package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/background"
	"github.com/cerulean-db/cerulean/internal/blob"
	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/faults"
	"github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/pebble"
	"github.com/cerulean-db/cerulean/internal/kv/postgres"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/usage"
	"github.com/cerulean-db/cerulean/internal/liveness"
	"github.com/cerulean-db/cerulean/internal/queue"
	"github.com/cerulean-db/cerulean/internal/search/indexer"
	"github.com/cerulean-db/cerulean/internal/smb"
	"github.com/cerulean-db/cerulean/internal/svcprops"
	"github.com/cerulean-db/cerulean/internal/table"
)

// Config is how the server is set up. Zero ports pick free ones.
type Config struct {
	Host     string
	BlobPort int
	// QueuePort is the Queue service's port.
	QueuePort int
	// TablePort is the Table service's port.
	TablePort int
	// FilePort is the File service's (Azure Files REST) port.
	FilePort int
	// SMBPort is the SMB2/3 server's port, serving the same shares.
	SMBPort int
	// CosmosPort is the Cosmos DB gateway's port; CosmosHTTP serves it
	// over plain HTTP instead of HTTPS.
	CosmosPort int
	CosmosHTTP bool
	// CosmosScriptBudget bounds one server-side script run; zero means
	// cosmos.DefaultScriptBudget.
	CosmosScriptBudget time.Duration
	// SearchPort is the Azure AI Search service's port, plain HTTP unless
	// SearchHTTPS (then with the certificate the Cosmos gateway uses);
	// SearchAdminKeys and SearchQueryKeys are its api-keys (nil means
	// search.DefaultAdminKey and search.DefaultQueryKey).
	SearchPort      int
	SearchHTTPS     bool
	SearchAdminKeys []string
	SearchQueryKeys []string
	DataDir         string
	InMemory        bool
	// Store, when set, is a PostgreSQL connection string (postgres:// or
	// postgresql://): the store is that shared database instead of the
	// embedded one, and DataDir holds only local files (certificates,
	// derived Search indexes). StoreSchema optionally names the schema.
	Store       string
	StoreSchema string
	Accounts    *azauth.Accounts
	Logger      *slog.Logger
	// Now is the clock the services use; nil means time.Now.
	Now func() time.Time

	// StorageHTTPS serves Blob, Queue, Table and File over HTTPS with the
	// certificate the Cosmos gateway uses; StorageCertFile and
	// StorageKeyFile (PEM, as Azurite's --cert and --key take them) serve
	// them over HTTPS with that certificate instead.
	StorageHTTPS                    bool
	StorageCertFile, StorageKeyFile string
	// CertDir is where the generated HTTPS certificate is kept, so that a
	// client trusts it once; empty means DataDir, or memory only with
	// InMemory (the command line gives in-memory servers a directory in
	// the user's cache, see CertificatePath).
	CertDir string

	// BlobVersioning keeps previous versions of blobs;
	// ContainerDeleteRetentionDays (0 to 365) keeps deleted containers
	// restorable that long, 0 not at all. Azure sets both through the
	// management plane.
	BlobVersioning               bool
	ContainerDeleteRetentionDays int
	// BlobLastAccessTracking reports when each blob was last read or
	// written (Azure's last access time tracking policy, also set through
	// the management plane).
	BlobLastAccessTracking bool
	// ShareDeleteRetentionDays (0 to 365) keeps deleted file shares, with
	// their snapshots, restorable that long, 0 not at all: share soft
	// delete, which Azure also sets through the management plane.
	ShareDeleteRetentionDays int
	// FileLargeShares gives a share created without a quota 100 TiB, as
	// an account with large file shares on (set in the management plane)
	// does; 5 TiB otherwise.
	FileLargeShares bool

	// AdminHost and AdminPort are where the operations endpoint (health,
	// readiness, metrics, pprof, the web console) listens: loopback unless
	// AdminHost says otherwise, a free port when AdminPort is 0.
	// AdminDisabled serves none.
	AdminHost     string
	AdminPort     int
	AdminDisabled bool
	// AdminAllowedHosts are the Host names the web console answers
	// besides its own address and loopback port forwards
	// (console.Config.AllowedHosts).
	AdminAllowedHosts []string
	// MinFreeBytes, when not 0, is the free space the embedded store keeps
	// in reserve on its volume: below it, writes are refused (503) until
	// space is freed. AutoMinFree keeps 5% of the volume, at most 256 MiB.
	// FreeSpace replaces reading the volume (tests).
	MinFreeBytes      uint64
	FreeSpace         func() (uint64, error)
	FreeSpaceInterval time.Duration
	// FS is the embedded store's file system; nil is the OS's (tests
	// inject failing or crashing ones).
	FS vfs.FS

	// TestClock gives the services a clock that tests move forward
	// through the admin port's /clock or Server.Clock (Now is then
	// ignored).
	TestClock bool
	// FaultInjection turns fault injection on, with Faults as its first
	// rules (the admin port's /faults replaces them).
	FaultInjection bool
	Faults         []faults.Rule

	// MaxConnections bounds the connections each HTTP listener holds
	// open at once; 0 is DefaultMaxConnections (connlimit.go).
	MaxConnections int

	// BeforeStoreClose, when set, runs once in Shutdown after the
	// listeners and every background loop have stopped and before the
	// store closes: the store is quiet and still open (tests check the
	// services' invariants there, Server.CheckInvariants).
	BeforeStoreClose func(ctx context.Context, s *Server)
}

// AutoMinFree, as Config.MinFreeBytes, sizes the reserve from the
// volume: 5% of it, at most 256 MiB.
const AutoMinFree = pebble.AutoReserve

// bodyIdleTimeout is how long a request body may stall between reads.
const bodyIdleTimeout = time.Minute

// Server is a running cerulean.
type Server struct {
	store kv.Store
	// dirLock is the data directory's lock, nil unless the store is embedded.
	dirLock *dataDirLock
	// inFlight counts the HTTP requests being served, for what a
	// shutdown waits for.
	inFlight atomic.Int64
	// certPath is the generated certificate's file, "" in memory.
	certPath string
	log      *slog.Logger
	blobAddr string
	// queueAddr is the Queue service's host:port; stopQueueSweeper ends
	// its background removal of expired messages.
	queueAddr        string
	stopQueueSweeper func()
	// processes is this process's liveness record; stopBlobSweeper ends
	// the periodic reclaiming of abandoned staged uploads.
	processes       *liveness.Registry
	stopBlobSweeper func()
	// stopFileSweeper ends the closing of handles whose process is gone.
	stopFileSweeper func()
	// stopBlobPurger ends the removal of soft-deleted blob data whose
	// retention has passed.
	stopBlobPurger func()
	// stopFilePurger ends the removal of deleted shares whose retention
	// has passed.
	stopFilePurger func()
	// stopCosmosSweeper ends the loop that removes expired Cosmos items.
	stopCosmosSweeper func()
	// stopSearchCatchUp ends the loop that keeps the Search service's
	// bleve indexes caught up with the documents in kv, and closes them.
	stopSearchCatchUp func()
	// indexers run Search indexers; stopIndexerSchedule ends the loop
	// that starts the scheduled ones.
	indexers            *indexer.Engine
	stopIndexerSchedule func()
	tableAddr           string // the Table service's host:port
	fileAddr            string // the File service's host:port
	smbAddr             string // the SMB server's host:port
	smb                 *smb.Server
	cosmosAddr          string           // the Cosmos DB gateway's host:port
	cosmosScheme        string           // "https", or "http" with Config.CosmosHTTP
	searchAddr          string           // the Azure AI Search service's host:port
	searchScheme        string           // "http", or "https" with Config.SearchHTTPS
	cert                *tls.Certificate // the HTTPS services' certificate, once made
	storageTLS          *tls.Config      // Blob, Queue, Table and File over HTTPS; nil for HTTP
	servers             []*http.Server
	maxConns            int // Config.MaxConnections
	wg                  sync.WaitGroup
	later               *background.Tasks // work that follows a request's answer
	errs                chan error
	// checked are the services CheckInvariants asks (invariants.go);
	// onStoreClose is Config.BeforeStoreClose until Shutdown runs it.
	checked      []checkedService
	onStoreClose func(ctx context.Context, s *Server)
	ops          // metrics, the test clock, fault injection and the admin port
}

// Start opens the store and starts serving every service.
func Start(ctx context.Context, cfg Config) (_ *Server, err error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Accounts == nil {
		cfg.Accounts = azauth.NewAccounts(azauth.Account{Name: azauth.DevAccount, Keys: [][]byte{mustKey(azauth.DevKey)}})
	}
	var dirLock *dataDirLock
	if cfg.Store == "" && !cfg.InMemory && cfg.DataDir != "" && cfg.FS == nil {
		if dirLock, err = lockDataDir(cfg.DataDir); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				dirLock.release()
			}
		}()
	}
	store, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := checkDataFormat(ctx, cfg, store); err != nil {
		return nil, errors.Join(err, store.Close())
	}
	engine := store
	counted, err := usage.Open(ctx, engine, StoredData, cfg.Logger)
	if err != nil {
		return nil, errors.Join(err, engine.Close())
	}
	store = counted
	s := &Server{store: store, ops: ops{counted: counted}, dirLock: dirLock, log: cfg.Logger, errs: make(chan error, 8), later: background.NewTasks(), maxConns: cfg.MaxConnections, onStoreClose: cfg.BeforeStoreClose}
	if err := s.setupOps(&cfg); err != nil {
		return nil, errors.Join(err, store.Close())
	}
	if err := s.setupStorageTLS(cfg); err != nil {
		return nil, errors.Join(err, store.Close())
	}
	if cfg.ContainerDeleteRetentionDays < 0 || cfg.ContainerDeleteRetentionDays > svcprops.MaxDeleteRetentionDays {
		return nil, errors.Join(fmt.Errorf("container delete retention of %d days: want 0 to %d", cfg.ContainerDeleteRetentionDays, svcprops.MaxDeleteRetentionDays), store.Close())
	}
	if cfg.ShareDeleteRetentionDays < 0 || cfg.ShareDeleteRetentionDays > svcprops.MaxDeleteRetentionDays {
		return nil, errors.Join(fmt.Errorf("share delete retention of %d days: want 0 to %d", cfg.ShareDeleteRetentionDays, svcprops.MaxDeleteRetentionDays), store.Close())
	}
	blobs := blob.New(blob.Config{Store: store, Accounts: cfg.Accounts, Now: cfg.Now, Logger: cfg.Logger},
		blob.WithVersioning(cfg.BlobVersioning), blob.WithContainerRetention(cfg.ContainerDeleteRetentionDays),
		blob.WithLastAccessTracking(cfg.BlobLastAccessTracking))
	if cfg.Store == "" {
		// The embedded store is this process's alone: every upload it
		// finds staged was interrupted by the previous run.
		if _, err := blobs.SweepStaged(ctx); err != nil {
			return nil, errors.Join(err, store.Close())
		}
	}
	// Purging at start also finishes container moves a crash cut short.
	if _, err := blobs.PurgeExpired(ctx); err != nil {
		return nil, errors.Join(err, store.Close())
	}
	s.stopBlobPurger = blobs.StartPurger(time.Hour)
	// Front ends sharing a store reclaim each other's abandoned work only
	// once its owner is gone.
	s.processes, err = liveness.Register(ctx, store, s.wallNow, cfg.Logger)
	if err != nil {
		return nil, errors.Join(err, store.Close())
	}
	blobs.UseProcesses(s.processes)
	blobs.CollectLater(s.later.Go)
	s.stopBlobSweeper = blobs.StartSweeper(liveness.TTL)
	if s.blobAddr, err = s.serveStorage(cfg.Host, cfg.BlobPort, "blob", blobs, blob.NewHandler(blobs)); err != nil {
		return nil, err
	}
	queues := queue.New(queue.Config{Store: store, Accounts: cfg.Accounts, Now: cfg.Now, Logger: cfg.Logger})
	if s.queueAddr, err = s.serveStorage(cfg.Host, cfg.QueuePort, "queue", queues, queue.NewHandler(queues)); err != nil {
		return nil, err
	}
	s.stopQueueSweeper = queues.StartSweeper(5 * time.Minute)
	tables := table.New(table.Config{Store: store, Accounts: cfg.Accounts, Now: cfg.Now, Logger: cfg.Logger})
	if s.tableAddr, err = s.serveStorage(cfg.Host, cfg.TablePort, "table", tables, table.NewHandler(tables)); err != nil {
		return nil, err
	}
	files := file.New(file.Config{Store: store, Accounts: cfg.Accounts, Now: cfg.Now, Logger: cfg.Logger},
		file.WithShareRetention(cfg.ShareDeleteRetentionDays), file.WithLargeShares(cfg.FileLargeShares))
	if cfg.Store == "" {
		// No SMB session outlives the process that served it.
		if _, err := files.SweepOrphanHandles(ctx); err != nil {
			return nil, errors.Join(err, s.Shutdown(context.Background()))
		}
		// Data of deleted files and shares a crash left to delete.
		if _, err := files.CollectGarbage(ctx); err != nil {
			return nil, errors.Join(err, s.Shutdown(context.Background()))
		}
	}
	files.UseProcesses(s.processes)
	files.CollectLater(s.later.Go)
	s.stopFileSweeper = files.StartSweeper(liveness.TTL)
	// Purging at start also finishes share moves a crash cut short.
	if _, err := files.PurgeExpired(ctx); err != nil {
		return nil, errors.Join(err, s.Shutdown(context.Background()))
	}
	s.stopFilePurger = files.StartPurger(time.Hour)
	if s.fileAddr, err = s.serveStorage(cfg.Host, cfg.FilePort, "file", files, file.NewHandler(files)); err != nil {
		return nil, err
	}
	if err := s.startSMB(cfg, files); err != nil {
		return nil, errors.Join(err, s.Shutdown(context.Background()))
	}
	cosmosSvc, err := cosmos.New(cosmos.Config{Store: store, Now: cfg.Now, ClientNow: s.wallNow, Logger: cfg.Logger, ScriptBudget: cfg.CosmosScriptBudget})
	if err != nil {
		return nil, errors.Join(err, s.Shutdown(context.Background()))
	}
	cosmosSvc.ObserveScripts(s.metrics.ScriptRan)
	s.checkInvariantsOf("cosmos", cosmosSvc)
	if err := s.startCosmos(cfg, cosmosSvc); err != nil {
		return nil, errors.Join(err, s.Shutdown(context.Background()))
	}
	// Expired items already read as absent; the sweeper removes them and
	// records their expiry in the change feed.
	s.stopCosmosSweeper = cosmosSvc.StartTTLSweeper(30 * time.Second)
	if err := s.startSearch(cfg, sources{blobs, tables, cosmosSvc}); err != nil {
		return nil, errors.Join(err, s.Shutdown(context.Background()))
	}
	if err := s.startAdmin(cfg); err != nil {
		return nil, errors.Join(err, s.Shutdown(context.Background()))
	}
	// What the start wrote (the data format, this process's liveness
	// record, the sweeps) may use the embedded store's emergency margin
	// on a nearly full volume; from here on, writes keep the reserve.
	if p, ok := engine.(*pebble.Store); ok {
		p.EndStartup()
	}
	return s, nil
}

// checkDataFormat refuses a store a newer release wrote, before anything
// reads a record from it, and marks an older one as holding the records
// this release writes (each old record is rewritten binary on its next
// write; docs/decisions/20261122_binary_records.md).
func checkDataFormat(ctx context.Context, cfg Config, store kv.Store) error {
	what := "data directory " + cfg.DataDir
	switch {
	case cfg.Store != "":
		what = "database"
	case cfg.InMemory:
		return nil // nothing older or newer to find
	}
	prev, err := record.OpenDataFormat(ctx, store, what)
	if err != nil {
		return err
	}
	if prev != 0 && prev != record.DataFormat {
		cfg.Logger.Info("store upgraded: records are rewritten in the new format as they change",
			"from_data_format", prev, "to_data_format", record.DataFormat)
	}
	return nil
}

func openStore(ctx context.Context, cfg Config) (kv.Store, error) {
	if cfg.Store != "" {
		return postgres.Open(ctx, cfg.Store, postgres.Options{Schema: cfg.StoreSchema})
	}
	if cfg.InMemory {
		return memory.Open(), nil
	}
	if cfg.DataDir == "" {
		return nil, errors.New("a data directory is required unless the store is in memory")
	}
	store, err := pebble.Open(cfg.DataDir, pebble.Options{FS: cfg.FS, MinFreeBytes: cfg.MinFreeBytes, FreeSpace: cfg.FreeSpace, FreeSpaceInterval: cfg.FreeSpaceInterval, Logger: cfg.Logger})
	if errors.Is(err, syscall.EWOULDBLOCK) {
		// The store's own lock: held by a release without the pid file.
		return nil, dataDirInUse(cfg.DataDir, 0)
	}
	return store, err
}

// serveStorage registers the Storage service svc, called name, with
// CheckInvariants and serves h for it on host:port; a listener that
// cannot start shuts down what the server has started so far.
func (s *Server) serveStorage(host string, port int, name string, svc invariantChecker, h http.Handler) (string, error) {
	s.checkInvariantsOf(name, svc)
	addr, err := s.listenStorage(host, port, name, h)
	if err != nil {
		return "", errors.Join(err, s.Shutdown(context.Background()))
	}
	return addr, nil
}

func (s *Server) listen(host string, port int, name string, h http.Handler) (string, error) {
	return s.listenTLS(host, port, name, h, nil)
}

// listenTLS is listen over TLS when cfg is not nil. Storage services
// (plain HTTP) keep the raw header case for Shared Key; a TLS service
// does not need it.
func (s *Server) listenTLS(host string, port int, name string, h http.Handler, cfg *tls.Config) (string, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return "", fmt.Errorf("listen for %s: %w", name, err)
	}
	ln = limitConnections(ln, s.maxConns, name, s.log)
	scheme := "http"
	if cfg != nil {
		ln, scheme = tls.NewListener(ln, cfg), "https"
	} else {
		ln = azhttp.CaseListener(ln)
	}
	return s.serve(ln, name, scheme, h), nil
}

// serve serves h on ln until Shutdown and returns ln's address; scheme is
// what the log line says it is served over.
func (s *Server) serve(ln net.Listener, name, scheme string, h http.Handler) string {
	srv := &http.Server{
		Handler:           s.countInFlight(azhttp.IdleReadTimeout(bodyIdleTimeout, s.instrument(name, h))),
		ConnContext:       azhttp.CaseConnContext,
		ConnState:         s.metrics.ConnState(name),
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	s.servers = append(s.servers, srv)
	s.wg.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.errs <- fmt.Errorf("%s service: %w", name, err)
		}
	})
	s.log.Info("service listening", "service", name, "addr", ln.Addr().String(), "scheme", scheme)
	return ln.Addr().String()
}

// countInFlight counts the requests h is serving.
func (s *Server) countInFlight(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		h.ServeHTTP(w, r)
	})
}

// AwaitCollection waits until the data that the deletes and overwrites
// answered so far freed has been collected (they are answered first):
// for tests that measure the store.
func (s *Server) AwaitCollection() { s.later.Wait() }

// InFlight is how many requests the HTTP services are serving now: what
// a Shutdown begun now waits for.
func (s *Server) InFlight() int { return int(s.inFlight.Load()) }

// BlobAddr is the blob service's host:port.
func (s *Server) BlobAddr() string { return s.blobAddr }

// QueueAddr is the queue service's host:port.
func (s *Server) QueueAddr() string { return s.queueAddr }

// TableAddr is the table service's host:port.
func (s *Server) TableAddr() string { return s.tableAddr }

// FileAddr is the File service's host:port.
func (s *Server) FileAddr() string { return s.fileAddr }

// SearchAddr is the Azure AI Search service's host:port.
func (s *Server) SearchAddr() string { return s.searchAddr }

// SearchURL is the Azure AI Search endpoint, "http://host:port" (https
// with SearchHTTPS).
func (s *Server) SearchURL() string { return s.searchScheme + "://" + s.searchAddr }

// SMBAddr is the SMB server's host:port.
func (s *Server) SMBAddr() string { return s.smbAddr }

// startSMB serves SMB2/3 on the File service's model, so that SMB opens
// are the handles FileREST lists and respects.
func (s *Server) startSMB(cfg Config, files *file.Service) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.SMBPort)))
	if err != nil {
		return fmt.Errorf("listen for smb: %w", err)
	}
	s.smb = smb.New(smb.Config{Files: files, Accounts: cfg.Accounts, Logger: cfg.Logger, Now: cfg.Now})
	s.metrics.CountConnections("smb", s.smb.Connections)
	s.wg.Go(func() {
		if err := s.smb.Serve(ln); err != nil {
			s.errs <- fmt.Errorf("smb service: %w", err)
		}
	})
	s.smbAddr = ln.Addr().String()
	s.log.Info("service listening", "service", "smb", "addr", s.smbAddr)
	return nil
}

// Store is the server's store (tests inspect it).
func (s *Server) Store() kv.Store { return s.store }

// Err delivers a listener's fatal error.
func (s *Server) Err() <-chan error { return s.errs }

// Shutdown stops accepting, lets in-flight requests finish until ctx ends,
// then closes the store.
func (s *Server) Shutdown(ctx context.Context) error {
	var errs []error
	if s.smb != nil {
		errs = append(errs, s.smb.Close(ctx))
	}
	for _, srv := range s.servers {
		if err := srv.Shutdown(ctx); err != nil {
			errs = append(errs, err, srv.Close())
		}
	}
	s.stopWatching()
	// Deleted data still being collected is left registered for the
	// sweep at the next start.
	s.later.Stop()
	s.wg.Wait()
	if s.stopSearchCatchUp != nil {
		s.stopSearchCatchUp()
	}
	if s.indexers != nil {
		s.stopIndexerSchedule()
		s.indexers.Close()
	}
	if s.stopQueueSweeper != nil {
		s.stopQueueSweeper()
	}
	if s.stopBlobPurger != nil {
		s.stopBlobPurger()
	}
	if s.stopFilePurger != nil {
		s.stopFilePurger()
	}
	if s.stopCosmosSweeper != nil {
		s.stopCosmosSweeper()
	}
	if s.stopBlobSweeper != nil {
		s.stopBlobSweeper()
	}
	if s.stopFileSweeper != nil {
		s.stopFileSweeper()
	}
	if s.processes != nil {
		// The record expires by itself; deleting it only spares the other
		// front ends the wait, so a store that cannot take the deletion
		// (a database that went away) is no reason to fail the shutdown.
		if err := s.processes.Close(ctx); err != nil {
			s.log.Warn("could not remove this process's liveness record; it expires by itself", "err", err)
		}
		s.processes = nil
	}
	s.beforeStoreClose(ctx)
	errs = append(errs, s.store.Close())
	s.dirLock.release()
	return errors.Join(errs...)
}

func mustKey(k string) []byte {
	accts, err := azauth.ParseAccounts("x:" + k)
	if err != nil {
		panic(err)
	}
	return accts[0].Keys[0]
}
