package blob

import (
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// corsRules is the CORS source of the request's account.
func (s *Service) corsRules(r *http.Request) ([]azhttp.CORSRule, error) {
	acct, _, _ := splitPath(r.URL.Path)
	if _, ok := s.accounts.Lookup(acct); !ok {
		return nil, nil
	}
	return s.props.CORSRules(r.Context(), acct)
}
