package smb

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"maps"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/file"
)

// Limits bound what clients may hold. Zero fields take the defaults.
type Limits struct {
	// MaxConnections is how many connections are served at once; more
	// are closed as they arrive.
	MaxConnections int
	// MaxSessionsPerConn bounds a connection's sessions.
	MaxSessionsPerConn int
	// MaxHandlesPerSession and MaxHandles bound the opens of one session
	// and of the whole server: an open beyond either answers
	// STATUS_INSUFFICIENT_RESOURCES.
	MaxHandlesPerSession int
	MaxHandles           int
	// MaxCredits is the most credits (requests it may send before
	// hearing back) a connection is granted.
	MaxCredits int
	// MaxPending bounds a connection's requests that wait (blocking
	// locks); more answer STATUS_INSUFFICIENT_RESOURCES.
	MaxPending int
	// IdleTimeout closes a connection that sends nothing for this long.
	IdleTimeout time.Duration
	// BreakTimeout is how long an oplock or lease break waits for the
	// holder's acknowledgement (Windows: 35 s), and so how long an open
	// or a FileREST operation that breaks caching may wait.
	BreakTimeout time.Duration
}

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxConnections, 1024)
	def(&l.MaxSessionsPerConn, 16)
	def(&l.MaxHandlesPerSession, 4096)
	def(&l.MaxHandles, 65536)
	def(&l.MaxCredits, 512)
	def(&l.MaxPending, 64)
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = 15 * time.Minute
	}
	if l.BreakTimeout <= 0 {
		l.BreakTimeout = 35 * time.Second
	}
	return l
}

// Config is what a Server needs.
type Config struct {
	Files    *file.Service
	Accounts *azauth.Accounts
	Logger   *slog.Logger
	// Now is the clock; nil means time.Now.
	Now    func() time.Time
	Limits Limits
}

// Server serves SMB2/3 over TCP on the Files model.
type Server struct {
	files    *file.Service
	notify   *notifier
	unwatch  func()
	accounts *azauth.Accounts
	log      *slog.Logger
	now      func() time.Time
	limits   Limits
	guid     [16]byte
	started  time.Time

	handles  atomic.Int64 // open handles, server-wide
	nextSess atomic.Uint64
	frames   atomic.Uint64 // frames begun, server-wide: their arrival order
	// orderingTimeouts counts the changes that waited in awaitWatchers
	// for as long as it allows.
	orderingTimeouts atomic.Uint64
	leases           *leaseTable
	durables         *durableTable

	mu     sync.Mutex
	ln     net.Listener
	conns  map[*conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// New returns a Server over cfg.Files.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{files: cfg.Files, accounts: cfg.Accounts, log: cfg.Logger, now: cfg.Now, limits: cfg.Limits.withDefaults(),
		conns: map[*conn]struct{}{}, leases: newLeaseTable(), durables: newDurableTable()}
	s.notify = newNotifier()
	if s.files != nil {
		s.unwatch = s.files.WatchChanges(s.notify)
		s.files.UseCachingBreaker(s)
	}
	_, _ = rand.Read(s.guid[:])
	s.started = s.now()
	return s
}

// Serve accepts connections on ln until Close; it returns nil after
// Close.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ln.Close()
	}
	s.ln = ln
	s.mu.Unlock()
	for {
		nc, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return err
		}
		s.mu.Lock()
		if s.closed || len(s.conns) >= s.limits.MaxConnections {
			s.mu.Unlock()
			_ = nc.Close()
			continue
		}
		c := newConn(s, nc)
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			c.serve()
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

// Close stops accepting, drops every connection (closing the handles
// their sessions held) and waits for them to finish, or for ctx. Calling
// it again only waits.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	var err error
	if s.ln != nil && !s.closed {
		err = s.ln.Close()
	}
	s.closed = true
	if s.unwatch != nil {
		s.unwatch()
		s.unwatch = nil
	}
	for c := range s.conns {
		_ = c.nc.Close()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); s.closeDisconnected(); close(done) }()
	select {
	case <-done:
		return err
	case <-ctx.Done():
		return errors.Join(err, ctx.Err())
	}
}

// connections returns the connections being served now; the caller
// reads or waits on them without holding the server's lock.
func (s *Server) connections() []*conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Collect(maps.Keys(s.conns))
}

// Connections is how many SMB connections are open.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
