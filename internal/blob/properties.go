package blob

import (
	"context"
	"net/http"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// maxCORSRules is Azure's limit per service.
const maxCORSRules = 5

// GetServiceProperties returns the account's Blob service properties.
func (s *Service) GetServiceProperties(ctx context.Context, acct string) (ServiceProperties, error) {
	p := defaultServiceProperties()
	err := s.store.View(ctx, func(r kv.Reader) error {
		_, err := load(r, servicePropsKey(acct), &p)
		return err
	})
	return p, err
}

// SetServiceProperties overlays the elements present in set.
func (s *Service) SetServiceProperties(ctx context.Context, acct string, set ServiceProperties) error {
	if set.Cors != nil && len(set.Cors.Rules) > maxCORSRules {
		return azhttp.ErrInvalidXmlDocument.WithMessage("XML specified is not syntactically valid. At most %d CORS rules are allowed.", maxCORSRules)
	}
	return s.store.Update(ctx, func(tx kv.Txn) error {
		p := defaultServiceProperties()
		if _, err := load(tx, servicePropsKey(acct), &p); err != nil {
			return err
		}
		p.merge(set)
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
	if err != nil || p.Cors == nil {
		return nil, err
	}
	rules := make([]azhttp.CORSRule, 0, len(p.Cors.Rules))
	for _, c := range p.Cors.Rules {
		rules = append(rules, azhttp.CORSRule{
			AllowedOrigins:  splitComma(c.AllowedOrigins),
			AllowedMethods:  splitComma(c.AllowedMethods),
			AllowedHeaders:  splitComma(c.AllowedHeaders),
			ExposedHeaders:  splitComma(c.ExposedHeaders),
			MaxAgeInSeconds: c.MaxAgeInSeconds,
		})
	}
	return rules, nil
}

func splitComma(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
