package queue

import (
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// corsRules is the CORS source of the request's account.
func (s *Service) corsRules(r *http.Request) ([]azhttp.CORSRule, error) {
	acct, _ := primaryAccount(splitPath(r.URL.Path).acct)
	if _, ok := s.accounts.Lookup(acct); !ok {
		return nil, nil
	}
	return s.props.CORSRules(r.Context(), acct)
}
