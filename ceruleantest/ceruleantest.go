package ceruleantest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/embedhook"
	"github.com/cerulean-db/cerulean/internal/faults"
	"github.com/cerulean-db/cerulean/internal/search"
	"github.com/cerulean-db/cerulean/internal/server"
)

// Options is how New sets a server up; the zero value is an in-memory
// server with Cosmos DB over HTTPS and Search over plain HTTP.
type Options struct {
	// DataDir keeps a durable store in this directory (created when
	// missing). It outlives the server: a later server given the same
	// DataDir finds the data again, the Cosmos certificate included.
	DataDir string
	// TempDir keeps a durable store in a new temporary directory, removed
	// when the server is closed (Start uses the test's t.TempDir). It and
	// DataDir exclude each other.
	TempDir bool
	// CosmosHTTP serves the Cosmos DB gateway over plain HTTP instead of
	// HTTPS (the Cosmos SDKs expect HTTPS; some clients accept HTTP).
	CosmosHTTP bool
	// SearchHTTPS serves Azure AI Search over HTTPS with the certificate
	// the Cosmos gateway uses, instead of plain HTTP.
	SearchHTTPS bool
	// Logger receives the server's log (starts, request failures); nil
	// discards it.
	Logger *slog.Logger
	// TestClock gives the services a clock the test moves forward with
	// Server.AdvanceClock, so that lease expiry, break periods, message
	// visibility, SAS expiry and TTL arrive without a real wait.
	TestClock bool
	// Faults turns fault injection on with these rules (Server.SetFaults
	// replaces them), in serve --faults syntax:
	// "blob/PutBlob=busy@50%,cosmos=throttle@10%;retry-after=20ms".
	// Kinds: busy, throttle, timeout, reset, latency:DURATION; a rate is a
	// share spread evenly over the matching requests.
	Faults string
	// FaultInjection turns fault injection on before any rule is given
	// (Faults implies it).
	FaultInjection bool
}

// An Option changes the Options Start starts a server with.
type Option func(*Options)

// WithDataDir keeps a durable store in dir (Options.DataDir).
func WithDataDir(dir string) Option { return func(o *Options) { o.DataDir = dir } }

// WithTempDir keeps a durable store in a temporary directory removed when
// the test ends (Options.TempDir).
func WithTempDir() Option { return func(o *Options) { o.TempDir = true } }

// WithCosmosHTTP serves the Cosmos DB gateway over plain HTTP
// (Options.CosmosHTTP).
func WithCosmosHTTP() Option { return func(o *Options) { o.CosmosHTTP = true } }

// WithSearchHTTPS serves Azure AI Search over HTTPS (Options.SearchHTTPS).
func WithSearchHTTPS() Option { return func(o *Options) { o.SearchHTTPS = true } }

// WithTestClock gives the services a clock the test moves forward
// (Options.TestClock).
func WithTestClock() Option { return func(o *Options) { o.TestClock = true } }

// WithFaults turns fault injection on with rules (Options.Faults).
func WithFaults(rules string) Option {
	return func(o *Options) { o.Faults, o.FaultInjection = rules, true }
}

// WithLogger sends the server's log to logger (Options.Logger).
func WithLogger(logger *slog.Logger) Option { return func(o *Options) { o.Logger = logger } }

// Server is a running server and how to reach it. Its fields are set by
// New and Start and do not change.
type Server struct {
	// BlobURL, QueueURL, TableURL and FileURL are the Storage services'
	// URLs for Account, path-style and ending in "/"
	// (http://127.0.0.1:PORT/devstoreaccount1/).
	BlobURL, QueueURL, TableURL, FileURL string
	// SMBAddr is the SMB server's host:port, serving the File service's
	// shares.
	SMBAddr string
	// Account and Key are the development storage account
	// (devstoreaccount1) and its well-known key.
	Account, Key string
	// ConnectionString names Account, Key and the four Storage endpoints,
	// ready for azblob, azqueue, aztables and azfile's
	// NewClientFromConnectionString.
	ConnectionString string
	// CosmosEndpoint is the Cosmos DB gateway's endpoint
	// ("https://127.0.0.1:PORT/", http with CosmosHTTP), CosmosKey its
	// master key (the Cosmos DB emulator's well-known key), and
	// CosmosConnectionString both as azcosmos.NewClientFromConnectionString
	// takes them.
	CosmosEndpoint, CosmosKey, CosmosConnectionString string
	// SearchEndpoint is the Azure AI Search endpoint
	// ("http://127.0.0.1:PORT", https with SearchHTTPS); SearchAdminKey and
	// SearchQueryKey are its admin and query (read-only) api-keys.
	SearchEndpoint, SearchAdminKey, SearchQueryKey string
	// DataDir is the directory of the durable store, "" in memory.
	DataDir string
	// AdminURL is the operations endpoint ("http://127.0.0.1:PORT"):
	// /healthz, /readyz, /metrics (Prometheus), /debug/pprof/, the web
	// console, and /clock and /faults when they are on.
	AdminURL string

	srv     *server.Server
	cert    *x509.Certificate // the HTTPS services' certificate; nil if none
	client  *http.Client
	tempDir string // removed by Close

	closeOnce sync.Once
	closeErr  error
}

// New starts a server on free loopback ports; ctx bounds the start only.
// Close stops it.
func New(ctx context.Context, o Options) (*Server, error) {
	if o.TempDir && o.DataDir != "" {
		return nil, errors.New("ceruleantest: DataDir and TempDir exclude each other")
	}
	s := &Server{DataDir: o.DataDir}
	if o.TempDir {
		dir, err := os.MkdirTemp("", "ceruleantest-")
		if err != nil {
			return nil, fmt.Errorf("ceruleantest: temporary data directory: %w", err)
		}
		s.DataDir, s.tempDir = dir, dir
	}
	rules, err := faults.Parse(o.Faults)
	if err != nil {
		return nil, fmt.Errorf("ceruleantest: %w", err)
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	cfg := server.Config{
		Host:           "127.0.0.1",
		DataDir:        s.DataDir,
		InMemory:       s.DataDir == "",
		CosmosHTTP:     o.CosmosHTTP,
		SearchHTTPS:    o.SearchHTTPS,
		Logger:         logger,
		TestClock:      o.TestClock,
		FaultInjection: o.FaultInjection || o.Faults != "",
		Faults:         rules,
	}
	hooks := embedhook.FromContext(ctx)
	if hooks.Configure != nil {
		hooks.Configure(&cfg)
	}
	srv, err := server.Start(ctx, cfg)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("ceruleantest: start: %w", err), s.removeTempDir())
	}
	if hooks.Started != nil {
		hooks.Started(srv)
	}
	s.srv = srv
	s.cert = srv.HTTPSCertificate()
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = s.TLSConfig()
	s.client = &http.Client{Transport: transport}

	s.Account, s.Key = azauth.DevAccount, azauth.DevKey
	urls := srv.StorageURLs(s.Account)
	s.BlobURL, s.QueueURL, s.TableURL, s.FileURL = urls.Blob, urls.Queue, urls.Table, urls.File
	s.SMBAddr = srv.SMBAddr()
	s.ConnectionString = srv.ConnectionString(s.Account, s.Key)
	s.CosmosEndpoint, s.CosmosKey = srv.CosmosURL(), cosmos.EmulatorKey
	s.CosmosConnectionString = "AccountEndpoint=" + s.CosmosEndpoint + ";AccountKey=" + s.CosmosKey + ";"
	s.SearchEndpoint, s.SearchAdminKey, s.SearchQueryKey = srv.SearchURL(), search.DefaultAdminKey, search.DefaultQueryKey
	s.AdminURL = "http://" + srv.AdminAddr()
	return s, nil
}

// Start starts a server for a test with the options applied in order,
// and stops it when the test and its subtests end (t.Cleanup); it fails
// the test if the server cannot start or stop cleanly.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var o Options
	for _, opt := range opts {
		opt(&o)
	}
	if o.TempDir && o.DataDir == "" {
		// The test's own temporary directory is removed after the
		// server's cleanup has closed the store in it.
		o.TempDir, o.DataDir = false, t.TempDir()
	}
	s, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("ceruleantest: %v", err)
		}
	})
	return s
}

// CertPool trusts the certificate the HTTPS services present (the Cosmos
// gateway unless CosmosHTTP, Search with SearchHTTPS); it is empty when
// no service is served over HTTPS. Each call returns a new pool.
func (s *Server) CertPool() *x509.CertPool {
	pool := x509.NewCertPool()
	if s.cert != nil {
		pool.AddCert(s.cert)
	}
	return pool
}

// TLSConfig is a client TLS configuration that trusts the server's HTTPS
// services (and nothing else). Each call returns a new configuration.
func (s *Server) TLSConfig() *tls.Config {
	return &tls.Config{RootCAs: s.CertPool(), MinVersion: tls.VersionTLS12}
}

// HTTPClient is an HTTP client that trusts the server's HTTPS services:
// give it to an Azure SDK as its transport (azcore.ClientOptions.Transport)
// to reach the Cosmos gateway, or Search with SearchHTTPS. Every call
// returns the same client.
func (s *Server) HTTPClient() *http.Client { return s.client }

// Err delivers a listener's fatal error while the server runs, for a
// program that serves until something fails (tests need not watch it).
func (s *Server) Err() <-chan error { return s.srv.Err() }

// Close stops the server: it stops accepting, lets requests in flight
// finish until ctx ends, closes the store and removes a TempDir store.
// Calls after the first return the first one's result.
func (s *Server) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		s.client.CloseIdleConnections()
		err := s.srv.Shutdown(ctx)
		if err != nil {
			err = fmt.Errorf("ceruleantest: stop: %w", err)
		}
		s.closeErr = errors.Join(err, s.removeTempDir())
	})
	return s.closeErr
}

func (s *Server) removeTempDir() error {
	if s.tempDir == "" {
		return nil
	}
	if err := os.RemoveAll(s.tempDir); err != nil {
		return fmt.Errorf("ceruleantest: remove temporary data directory: %w", err)
	}
	return nil
}

// ErrNoTestClock is AdvanceClock's answer on a server started without
// Options.TestClock.
var ErrNoTestClock = errors.New("ceruleantest: the server has no test clock (Options.TestClock)")

// AdvanceClock moves the services' clock forward by d and returns the new
// time: a 15 s lease has expired once it moved 16 s.
func (s *Server) AdvanceClock(d time.Duration) (time.Time, error) {
	c := s.srv.Clock()
	if c == nil {
		return time.Time{}, ErrNoTestClock
	}
	return c.Advance(d)
}

// Now is the services' clock: the real time, plus what AdvanceClock added.
func (s *Server) Now() time.Time {
	if c := s.srv.Clock(); c != nil {
		return c.Now()
	}
	return time.Now()
}

// ErrNoFaultInjection is SetFaults' answer on a server started without
// Options.Faults or Options.FaultInjection.
var ErrNoFaultInjection = errors.New("ceruleantest: fault injection is off (Options.FaultInjection)")

// SetFaults replaces the fault injection rules (Options.Faults syntax; ""
// removes them all).
func (s *Server) SetFaults(rules string) error {
	in := s.srv.Faults()
	if in == nil {
		return ErrNoFaultInjection
	}
	parsed, err := faults.Parse(rules)
	if err != nil {
		return fmt.Errorf("ceruleantest: %w", err)
	}
	return in.SetRules(parsed)
}
