package blob

import (
	"context"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// Azure serves a read-access geo-redundant account's data read-only at
// account-secondary (https://account-secondary.blob.core.windows.net/,
// or path style /account-secondary/...), with the primary's keys. One
// store is its own secondary here: always live, always in sync.

// GeoReplication is what Get Blob Service Stats reports of the
// secondary: its status ("live") and the time up to which every primary
// write is readable there.
type GeoReplication struct {
	Status       string
	LastSyncTime time.Time
}

// ServiceStats reports acct's replication to its secondary. The secondary
// reads the primary's own store, so it is live and in sync as of now.
func (s *Service) ServiceStats(_ context.Context, acct string) (GeoReplication, error) {
	if err := s.accounts.Require(acct); err != nil {
		return GeoReplication{}, err
	}
	return GeoReplication{Status: "live", LastSyncTime: s.clock()}, nil
}

// errSecondaryReadOnly is Azure's answer to a write sent to the secondary.
var errSecondaryReadOnly = azerr.ErrInsufficientAccountPermissions.WithMessage("Write operations are not allowed.")

// getServiceStats answers Get Blob Service Stats, which Azure serves only
// on the secondary endpoint; the primary refuses the comp=stats value.
func (h *handler) getServiceStats(q *request) error {
	if !q.secondary {
		return azerr.InvalidQueryParameterValue("comp", q.q.Get("comp"), "")
	}
	geo, err := h.svc.ServiceStats(q.ctx(), q.acct)
	if err != nil {
		return err
	}
	return azhttp.WriteServiceStats(q.w, geo.Status, geo.LastSyncTime)
}

// errBearerRequired is how Azure refuses Get User Delegation Key to a
// caller that did not authenticate with an OAuth (Microsoft Entra ID)
// bearer token: a user delegation key is only ever issued to an Entra
// identity, so Shared Key and SAS callers get 403 AuthenticationFailed.
var errBearerRequired = azerr.ErrAuthenticationFailed.WithDetails(azerr.Detail{Name: "AuthenticationErrorDetail", Value: "Only authentication scheme Bearer is supported"})

// getUserDelegationKey answers Get User Delegation Key. This server has
// no Entra ID, so no caller can hold the bearer token it requires.
func (h *handler) getUserDelegationKey(*request) error {
	return errBearerRequired
}
