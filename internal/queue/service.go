package queue

import (
	"log/slog"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/svcconfig"
)

// Config is what a Service needs.
type Config = svcconfig.Config

// Service is the Queue service of every account the server hosts: queues
// and messages over the store, with no wire concerns. It is safe for
// concurrent use; it keeps no state outside the store but a cache of where
// each queue's visible messages begin (headCache) and the messages Gets
// under way are taking (claimTable), which only save work.
type Service struct {
	store    kv.Store
	accounts *azauth.Accounts // the sweeper walks every account's queues
	now      func() time.Time
	log      *slog.Logger
	heads    headCache  // where each queue's Get Messages may start scanning
	claims   claimTable // the messages Get Messages calls are taking
}

// New returns a Service over cfg.Store.
func New(cfg Config) *Service {
	cfg = cfg.WithDefaults()
	return &Service{store: cfg.Store, accounts: cfg.Accounts, now: cfg.Now, log: cfg.Logger}
}

// clock returns the request time: UTC at the wire's 100 ns precision.
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(100 * time.Nanosecond) }
