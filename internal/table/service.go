package table

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/svcprops"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// Config is what a Service needs.
type Config = azhttp.ServiceConfig

// Service is the Table service of every account the server hosts.
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
	s.auth = &azhttp.Authenticator{Accounts: cfg.Accounts, Service: "table", Now: s.now, Policy: s.storedPolicy}
	s.props = svcprops.New(cfg.Store, "table", func(acct string) []byte { return servicePropsKey(acct) })
	return s
}

// clock returns the current time in ticks (100 ns, the wire's precision).
func (s *Service) clock() int64 { return odata.Ticks(s.now().UTC()) }

// storedPolicy resolves a table SAS's signed identifier.
func (s *Service) storedPolicy(ctx context.Context, acct, table, id string) (azhttp.StoredPolicy, bool, error) {
	t, err := s.GetTable(ctx, acct, table)
	if errors.Is(err, azhttp.ErrTableNotFound) {
		return azhttp.StoredPolicy{}, false, nil
	}
	if err != nil {
		return azhttp.StoredPolicy{}, false, err
	}
	for _, si := range t.ACL {
		if si.ID == id {
			return si.Policy(), true, nil
		}
	}
	return azhttp.StoredPolicy{}, false, nil
}

// corsRules is the CORS source of the request's account.
func (s *Service) corsRules(r *http.Request) ([]azhttp.CORSRule, error) {
	acct, _ := splitPath(r.URL.Path)
	if _, ok := s.accounts.Lookup(acct); !ok {
		return nil, nil
	}
	return s.props.CORSRules(r.Context(), acct)
}
