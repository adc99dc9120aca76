package blob

import (
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/lease"
	"github.com/cerulean-db/cerulean/internal/svcprops"
)

// Config is what a Service needs.
type Config = azhttp.ServiceConfig

// Service is the Blob service of every account the server hosts.
type Service struct {
	store    collectingStore
	accounts *azhttp.Accounts
	now      func() time.Time
	log      *slog.Logger
	auth     *azhttp.Authenticator
	props    *svcprops.Store
}

// New returns a Service over cfg.Store.
func New(cfg Config) *Service {
	cfg = cfg.WithDefaults()
	s := &Service{store: collectingStore{Store: cfg.Store, log: cfg.Logger}, accounts: cfg.Accounts, now: cfg.Now, log: cfg.Logger}
	s.auth = &azhttp.Authenticator{Accounts: cfg.Accounts, Service: "blob", Now: s.now, Policy: s.storedPolicy}
	s.props = svcprops.New(cfg.Store, "blob", func(acct string) []byte { return servicePropsKey(acct) })
	return s
}

// clock returns the commit time: UTC at the wire's 100 ns precision.
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(100 * time.Nanosecond) }

// Preconditions are what a request demands of a resource's current state:
// its conditional headers and the lease it claims to hold.
type Preconditions struct {
	conditions.Conditions
	LeaseID string
}

// preconditions reads a request's conditional and lease headers.
func preconditions(h http.Header) Preconditions {
	return Preconditions{Conditions: conditions.FromHeader(h, ""), LeaseID: h.Get("x-ms-lease-id")}
}

// check evaluates conditional headers, mapping outcomes to Azure's errors;
// exists is the error for If-None-Match: * on an existing resource.
func check(c conditions.Conditions, kind conditions.Kind, st conditions.State, exists error) error {
	err := c.Check(kind, st)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, conditions.ErrNotModified):
		return azhttp.ErrNotModified
	case errors.Is(err, conditions.ErrAlreadyExists):
		return exists
	default:
		return azhttp.ErrConditionNotMet
	}
}

// checkBlob verifies a request against a blob (nil when absent): first the
// lease it claims or must claim, then its conditional headers.
func (s *Service) checkBlob(pre Preconditions, kind conditions.Kind, b *Blob) error {
	var l lease.Lease
	if b != nil {
		l = b.Lease
	}
	if err := l.CheckUse(s.clock(), pre.LeaseID, kind != conditions.Read); err != nil {
		return leaseError(err, false)
	}
	return check(pre.Conditions, kind, b.state(), azhttp.ErrBlobAlreadyExists)
}

// checkContainer verifies a request against a container; only deletion
// needs the active lease's ID, other operations fail with a wrong one.
func (s *Service) checkContainer(pre Preconditions, c *Container, deleting bool) error {
	if err := c.Lease.CheckUse(s.clock(), pre.LeaseID, deleting); err != nil {
		return leaseError(err, true)
	}
	return check(pre.Conditions, conditions.Write, c.state(), azhttp.ErrConditionNotMet)
}

func (c *Container) state() conditions.State {
	if c == nil {
		return conditions.State{}
	}
	return conditions.State{Exists: true, ETag: azhttp.ETag(c.Version), LastModified: c.Modified}
}

func (b *Blob) state() conditions.State {
	if b == nil {
		return conditions.State{}
	}
	return conditions.State{Exists: true, ETag: azhttp.ETag(b.Version), LastModified: b.Modified}
}
