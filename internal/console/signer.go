package console

import (
	"fmt"
	"net/http"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/cosmos"
)

// A signer adds a service's credential, and the headers the service
// requires that the page may leave out, to an outgoing request.
type signer interface {
	sign(r *http.Request, now time.Time) error
	// account is the Storage account signed for, or "".
	account() string
}

// cosmosVersion is the x-ms-version sent when the page sends none.
const cosmosVersion = "2020-11-05"

// sharedKey signs Storage requests with the account key (Shared Key),
// through azhttp's own canonicalization.
type sharedKey struct {
	service, acct string
	key           []byte
}

func (s sharedKey) account() string { return s.acct }

func (s sharedKey) sign(r *http.Request, now time.Time) error {
	if r.Header.Get("X-Ms-Version") == "" {
		r.Header.Set("X-Ms-Version", azhttp.DefaultVersion)
	}
	if s.service == "table" {
		// The Table service speaks OData JSON; these say which.
		setDefault(r.Header, "DataServiceVersion", "3.0")
		setDefault(r.Header, "MaxDataServiceVersion", "3.0;NetFx")
		setDefault(r.Header, "Accept", "application/json;odata=minimalmetadata")
	}
	azauth.SignSharedKey(r, s.service, s.acct, s.key, now)
	return nil
}

// masterKey signs Cosmos DB requests with the master key, through
// internal/cosmos's own token code.
type masterKey struct{ key []byte }

func (masterKey) account() string { return "" }

func (m masterKey) sign(r *http.Request, now time.Time) error {
	setDefault(r.Header, "x-ms-version", cosmosVersion)
	if err := cosmos.SignMasterKey(r, m.key, now); err != nil {
		return fmt.Errorf("cosmos: %w", err)
	}
	return nil
}

// apiKey authorizes Search requests with the admin api-key.
type apiKey struct{ key string }

func (apiKey) account() string { return "" }

func (a apiKey) sign(r *http.Request, _ time.Time) error {
	r.Header.Set("Api-Key", a.key)
	return nil
}

func setDefault(h http.Header, name, value string) {
	if h.Get(name) == "" {
		h.Set(name, value)
	}
}
