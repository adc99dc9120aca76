package server

import (
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/cerulean-db/cerulean/internal/admin"
	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/blob"
	"github.com/cerulean-db/cerulean/internal/console"
	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/faults"
	"github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/usage"
	"github.com/cerulean-db/cerulean/internal/metrics"
	"github.com/cerulean-db/cerulean/internal/queue"
	"github.com/cerulean-db/cerulean/internal/search"
	"github.com/cerulean-db/cerulean/internal/table"
	"github.com/cerulean-db/cerulean/internal/testclock"
)

// StoredData is where each service's data lies in the store: the first
// byte of its keys (its keyspace.Space), and which keys are objects. The
// store keeps their bytes, records and objects (kv/usage).
var StoredData = []usage.Space{
	{Name: "blob", Prefix: []byte(keyspace.BlobSpace), Object: blob.ObjectKey},
	{Name: "queue", Prefix: []byte(keyspace.QueueSpace), Object: queue.ObjectKey},
	{Name: "table", Prefix: []byte(keyspace.TableSpace), Object: table.ObjectKey},
	{Name: "file", Prefix: []byte(keyspace.FileSpace), Object: file.ObjectKey},
	{Name: "cosmos", Prefix: []byte(keyspace.CosmosSpace), Object: cosmos.ObjectKey},
	{Name: "search", Prefix: []byte(keyspace.SearchSpace), Object: search.ObjectKey},
}

// ops is what the server keeps for operating it: metrics, the test
// clock, fault injection and the admin port.
type ops struct {
	metrics *metrics.Metrics
	// counted is the store every service writes through: the server's
	// store, keeping each service's stored bytes, records and objects.
	counted *usage.Store
	// clock is the test clock (nil unless Config.TestClock).
	clock *testclock.Clock
	// wallNow is the clock of what a test clock must not move: the
	// liveness of front ends and the check of clients' x-ms-date
	// (nil means time.Now).
	wallNow func() time.Time
	// faults is the fault injector (nil unless Config.FaultInjection).
	faults    *faults.Injector
	adminAddr string
	// stopWatch ends the wait for the store to fail.
	stopWatch chan struct{}
}

// setupOps makes the metrics, the test clock and the fault injector
// before any service starts; with a test clock, cfg.Now becomes it.
func (s *Server) setupOps(cfg *Config) error {
	s.metrics = metrics.New()
	if o, ok := s.counted.Store.(kv.Observable); ok {
		o.Observe(s.metrics)
	}
	s.wallNow = cfg.Now
	if cfg.TestClock {
		s.clock = testclock.New()
		cfg.Now = s.clock.Now
	}
	if cfg.FaultInjection || len(cfg.Faults) > 0 {
		var err error
		if s.faults, err = faults.New(cfg.Faults, cfg.Logger, s.metrics.FaultInjected); err != nil {
			return err
		}
		cfg.Logger.Warn("fault injection is on: matching requests get throttling and transient failures", "rules", faults.String(cfg.Faults))
	}
	s.metrics.Register(metrics.NewUsage(s.counted, cfg.Logger))
	s.watchStore()
	return nil
}

// watchStore reports a store that failed for good (a failed sync) as a
// fatal error: serving on would answer every request with an error, and
// only a restart recovers what was acknowledged.
func (s *Server) watchStore() {
	f, ok := s.counted.Store.(kv.Fallible)
	if !ok {
		return
	}
	stop := make(chan struct{})
	s.stopWatch = stop
	s.wg.Go(func() {
		select {
		case <-f.Failed():
			s.errs <- fmt.Errorf("the store failed and cannot tell which writes are durable, so cerulean stops instead of acknowledging more (restart it: every acknowledged write is recovered from the write-ahead log): %w", f.Failure())
		case <-stop:
		}
	})
}

// instrument counts and times a service's requests and lets fault
// injection answer them.
func (s *Server) instrument(service string, h http.Handler) http.Handler {
	var hook func(http.ResponseWriter, *http.Request, string) error
	if s.faults != nil {
		hook = s.faults.For(service)
	}
	return s.metrics.Instrument(service, hook, h)
}

// startAdmin serves the operations endpoint, loopback unless configured.
func (s *Server) startAdmin(cfg Config) error {
	if cfg.AdminDisabled {
		return nil
	}
	host := cfg.AdminHost
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(cfg.AdminPort)))
	if err != nil {
		return fmt.Errorf("listen for admin: %w", err)
	}
	ui, err := s.console(cfg)
	if err != nil {
		return errors.Join(err, ln.Close())
	}
	h := admin.Handler(admin.Config{Store: s.store, Metrics: s.metrics.Handler(), Clock: s.clock, Faults: s.faults, Console: ui, CertificatePEM: s.certificatePEM()})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 1 << 20}
	s.servers = append(s.servers, srv)
	s.wg.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.errs <- fmt.Errorf("admin endpoint: %w", err)
		}
	})
	s.adminAddr = ln.Addr().String()
	s.log.Info("admin endpoint listening (health, readiness, metrics, pprof, console)", "addr", "http://"+s.adminAddr+"/")
	return nil
}

// stopWatching ends watchStore's wait; Shutdown calls it before waiting
// for its goroutines.
func (s *Server) stopWatching() {
	if s.stopWatch != nil {
		close(s.stopWatch)
		s.stopWatch = nil
	}
}

// AdminAddr is the operations endpoint's host:port ("" when disabled).
func (s *Server) AdminAddr() string { return s.adminAddr }

// Clock is the test clock, nil unless the server was started with one.
func (s *Server) Clock() *testclock.Clock { return s.clock }

// Faults is the fault injector, nil unless fault injection is on.
func (s *Server) Faults() *faults.Injector { return s.faults }

// Metrics are the server's metrics.
func (s *Server) Metrics() *metrics.Metrics { return s.metrics }

// consoleAccounts are the Storage accounts the console signs for: the
// development account (its key, base64, as configured), then every other
// configured account with its first key.
func consoleAccounts(accts *azauth.Accounts) (devKey string, more []console.StorageAccount) {
	devKey = azauth.DevKey
	if a, ok := accts.Lookup(azauth.DevAccount); ok && len(a.Keys) > 0 {
		devKey = base64.StdEncoding.EncodeToString(a.Keys[0])
	}
	for _, name := range accts.Names() {
		if a, ok := accts.Lookup(name); ok && name != azauth.DevAccount && len(a.Keys) > 0 {
			more = append(more, console.StorageAccount{Name: name, Key: a.Keys[0]})
		}
	}
	return devKey, more
}

// console is the web console over this server's own services, signing as
// the configured Storage accounts (consoleAccounts), with the Cosmos key
// and the first Search admin key, and trusting the server's certificates.
func (s *Server) console(cfg Config) (http.Handler, error) {
	urls := s.StorageURLs(azauth.DevAccount)
	pool := x509.NewCertPool()
	for _, c := range []*x509.Certificate{s.HTTPSCertificate(), s.StorageCertificate()} {
		if c != nil {
			pool.AddCert(c)
		}
	}
	devKey, more := consoleAccounts(cfg.Accounts)
	searchKey := search.DefaultAdminKey
	if len(cfg.SearchAdminKeys) > 0 {
		searchKey = cfg.SearchAdminKeys[0]
	}
	return console.New(console.Config{
		BlobURL: urls.Blob, QueueURL: urls.Queue, TableURL: urls.Table, FileURL: urls.File,
		Account: azauth.DevAccount, Key: devKey, MoreAccounts: more,
		CosmosURL: s.CosmosURL(), CosmosKey: cosmos.EmulatorKey,
		SearchURL: s.SearchURL(), SearchAdminKey: searchKey,
		RootCAs: pool, Logger: cfg.Logger, AllowedHosts: cfg.AdminAllowedHosts,
	})
}
