package blob

import (
	"net/http"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// corsRules is the CORS source of the request's account.
func (h *handler) corsRules(r *http.Request) ([]azhttp.CORSRule, error) {
	acct, _, _ := splitPath(r.URL.Path)
	if base, ok := strings.CutSuffix(acct, azhttp.SecondarySuffix); ok && base != "" {
		acct = base // the secondary answers with the primary's rules
	}
	if _, ok := h.accounts.Lookup(acct); !ok {
		return nil, nil
	}
	return h.props.CORSRules(r.Context(), acct)
}
