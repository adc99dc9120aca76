package queue

import (
	"log/slog"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/svcprops"
)

// Config is what a Service needs.
type Config = azhttp.ServiceConfig

// Service is the Queue service of every account the server hosts. It is
// safe for concurrent use; it keeps no state outside the store.
type Service struct {
	store    kv.Store
	accounts *azhttp.Accounts
	now      func() time.Time
	log      *slog.Logger
	auth     *azhttp.Authenticator
	props    *svcprops.Store
}

// New returns a Service over cfg.Store.
func New(cfg Config) *Service {
	cfg = cfg.WithDefaults()
	s := &Service{store: cfg.Store, accounts: cfg.Accounts, now: cfg.Now, log: cfg.Logger}
	s.auth = &azhttp.Authenticator{Accounts: cfg.Accounts, Service: "queue", Now: s.now, Policy: s.storedPolicy}
	s.props = svcprops.New(cfg.Store, "queue", func(acct string) []byte { return servicePropsKey(acct) })
	return s
}

// clock returns the request time: UTC at the wire's 100 ns precision.
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(100 * time.Nanosecond) }
