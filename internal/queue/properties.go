package queue

import (
	"context"
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// GetServiceProperties returns the account's Queue service properties.
func (s *Service) GetServiceProperties(ctx context.Context, acct string) (azhttp.ServiceProperties, error) {
	p := azhttp.DefaultServiceProperties("queue")
	err := s.store.View(ctx, func(r kv.Reader) error {
		p = azhttp.DefaultServiceProperties("queue")
		_, err := loadJSON(r, servicePropsKey(acct), &p)
		return err
	})
	return p, err
}

// SetServiceProperties overlays the elements present in set (last writer
// wins).
func (s *Service) SetServiceProperties(ctx context.Context, acct string, set azhttp.ServiceProperties) error {
	if err := set.Validate(); err != nil {
		return err
	}
	// Blob-only elements have no meaning for queues.
	set.DeleteRetentionPolicy, set.StaticWebsite = nil, nil
	return s.store.Update(ctx, func(tx kv.Txn) error {
		p := azhttp.DefaultServiceProperties("queue")
		if _, err := loadJSON(tx, servicePropsKey(acct), &p); err != nil {
			return err
		}
		p.Merge(set)
		return tx.Set(servicePropsKey(acct), encodeJSON(p))
	})
}

// corsRules is the CORS source of the request's account.
func (s *Service) corsRules(r *http.Request) ([]azhttp.CORSRule, error) {
	acct, _ := primaryAccount(splitPath(r.URL.Path).acct)
	if _, ok := s.accounts.Lookup(acct); !ok {
		return nil, nil
	}
	p, err := s.GetServiceProperties(r.Context(), acct)
	if err != nil {
		return nil, err
	}
	return p.CORSRules(), nil
}
