package blob

import (
	"context"
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// GetServiceProperties returns the account's Blob service properties.
func (s *Service) GetServiceProperties(ctx context.Context, acct string) (azhttp.ServiceProperties, error) {
	p := azhttp.DefaultServiceProperties("blob")
	err := s.store.View(ctx, func(r kv.Reader) error {
		_, err := load(r, servicePropsKey(acct), &p)
		return err
	})
	return p, err
}

// SetServiceProperties overlays the elements present in set.
func (s *Service) SetServiceProperties(ctx context.Context, acct string, set azhttp.ServiceProperties) error {
	if err := set.Validate(); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx kv.Txn) error {
		p := azhttp.DefaultServiceProperties("blob")
		if _, err := load(tx, servicePropsKey(acct), &p); err != nil {
			return err
		}
		p.Merge(set)
		return store(tx, servicePropsKey(acct), p)
	})
}

// corsRules is the CORS source of the request's account.
func (s *Service) corsRules(r *http.Request) ([]azhttp.CORSRule, error) {
	acct, _, _ := splitPath(r.URL.Path)
	if _, ok := s.accounts.Lookup(acct); !ok {
		return nil, nil
	}
	p, err := s.GetServiceProperties(r.Context(), acct)
	if err != nil {
		return nil, err
	}
	return p.CORSRules(), nil
}
