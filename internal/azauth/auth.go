package azauth

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// StoredPolicy is a container/queue/table/share stored access policy (a
// Set ACL SignedIdentifier). Zero times and empty permissions are unset.
type StoredPolicy struct {
	Start, Expiry time.Time
	Permissions   string
}

// Authenticator proves who sent a request to one service.
type Authenticator struct {
	Accounts *Accounts
	Service  string           // "blob", "queue", "table", "file"
	Now      func() time.Time // nil means time.Now
	// Wall is the wall clock Shared Key request dates are checked
	// against, with Now (see MaxDateSkew); nil leaves them unchecked.
	Wall func() time.Time
	// Policy resolves the signed identifier (si) of a service SAS; nil
	// means no identifier resolves (403 AuthenticationFailed).
	Policy func(ctx context.Context, account, container, id string) (StoredPolicy, bool, error)
}

// Authenticate proves who sent r. account is the account the URL addresses
// (path-style: /account/container/blob); container is the container, queue,
// table or share addressed and blob the blob or file path, both decoded and
// "" where not addressed. A request with neither an Authorization header nor
// a sig query parameter is anonymous.
func (a *Authenticator) Authenticate(r *http.Request, account, container, blob string) (Access, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		return a.sharedKey(r, h, account)
	}
	q := r.URL.Query()
	if q.Has("sig") {
		return a.sas(r, q, account, container, blob)
	}
	return Access{Kind: AccessAnonymous, Account: account}, nil
}

func (a *Authenticator) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

func (a *Authenticator) account(name string) (Account, error) {
	acct, ok := a.Accounts.Lookup(name)
	if !ok || len(acct.Keys) == 0 {
		return Account{}, authFailed("The account %q is unknown.", name)
	}
	return acct, nil
}

// authFailed is AuthenticationFailed with the reason in Azure's
// AuthenticationErrorDetail element (the message stays Azure's fixed
// one); the server's request log shows the reason too.
func authFailed(format string, args ...any) *azerr.Error {
	return azerr.ErrAuthenticationFailed.WithDetails(azerr.Detail{Name: "AuthenticationErrorDetail", Value: fmt.Sprintf(format, args...)})
}

// uniq drops repeated strings, keeping order (the first is the canonical
// form, quoted in error messages).
func uniq(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := in[:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
