package search

import (
	"log/slog"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// DefaultAdminKey is the admin api-key a server accepts unless configured
// otherwise; DefaultQueryKey the query (read-only) key.
const (
	DefaultAdminKey = "cerulean-search-admin-key"
	DefaultQueryKey = "cerulean-search-query-key"
	// DefaultServiceName is the service name messages use, as Azure names
	// the search service ("No index with the name 'x' was found in a
	// service named 'cerulean'").
	DefaultServiceName = "cerulean"
)

// Config is what a Service needs.
type Config struct {
	Store kv.Store
	// Dir is where each index's bleve index is kept on disk (one
	// directory per index), so that a restart catches up from the change
	// log instead of rebuilding; empty keeps them in memory and rebuilds
	// them at every start. Nothing else may use the directory, and no
	// two Services the same one.
	Dir string
	// AdminKeys may do everything; nil means DefaultAdminKey.
	AdminKeys []string
	// QueryKeys may only search, suggest, autocomplete, look up and count
	// documents; nil means DefaultQueryKey.
	QueryKeys []string
	// ServiceName is the name messages give the service; empty means
	// DefaultServiceName.
	ServiceName string
	// Now is the clock; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// Service is the Azure AI Search service of one server: resource
// definitions over the kv store. Its methods take and return domain
// values; NewHandler serves it over HTTP. A Service is safe for
// concurrent use.
type Service struct {
	store kv.Store
	name  string
	now   func() time.Time
	log   *slog.Logger
	// adminKeys and queryKeys are carried for NewHandler: only the handler
	// authenticates, the domain trusts its callers.
	adminKeys, queryKeys []string
	// derived holds the bleve indexes derived from the documents in kv.
	derived derivedIndexes
	// indexers runs indexers (UseIndexers); nil answers runs 501.
	indexers IndexerRunner
}

// New returns a Service over cfg.Store.
func New(cfg Config) *Service {
	s := &Service{store: cfg.Store, name: cfg.ServiceName, now: cfg.Now, log: cfg.Logger, adminKeys: cfg.AdminKeys, queryKeys: cfg.QueryKeys}
	if s.name == "" {
		s.name = DefaultServiceName
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.derived.dir, s.derived.log = cfg.Dir, s.log
	if len(s.adminKeys) == 0 {
		s.adminKeys = []string{DefaultAdminKey}
	}
	if len(s.queryKeys) == 0 {
		s.queryKeys = []string{DefaultQueryKey}
	}
	return s
}
