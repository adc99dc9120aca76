package table

import (
	"log/slog"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/svcconfig"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// Config is what a Service needs.
type Config = svcconfig.Config

// Service is the Table service of every account the server hosts: tables
// and entities over the store, with no wire concerns. It is safe for
// concurrent use; the only state it keeps outside the store is the ETag
// clock's memory of the last tick, which the store's watermark backs.
type Service struct {
	store    kv.Store
	accounts *azauth.Accounts // the accounts requests authenticate against
	now      func() time.Time
	log      *slog.Logger
	etags    *etagClock
}

// New returns a Service over cfg.Store.
func New(cfg Config) *Service {
	cfg = cfg.WithDefaults()
	return &Service{store: cfg.Store, accounts: cfg.Accounts, now: cfg.Now, log: cfg.Logger, etags: &etagClock{now: cfg.Now}}
}

// clock returns the current time in ticks (100 ns, the wire's precision).
func (s *Service) clock() int64 { return odata.Ticks(s.now().UTC()) }
