package blob

import (
	"errors"
	"log/slog"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// Config is what a Service needs.
type Config struct {
	Store    kv.Store
	Accounts *azhttp.Accounts
	// Now is the clock (tests inject one); nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// Service is the Blob service of every account the server hosts.
type Service struct {
	store    kv.Store
	accounts *azhttp.Accounts
	now      func() time.Time
	log      *slog.Logger
	auth     *azhttp.Authenticator
}

// New returns a Service over cfg.Store.
func New(cfg Config) *Service {
	s := &Service{store: cfg.Store, accounts: cfg.Accounts, now: cfg.Now, log: cfg.Logger}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.auth = &azhttp.Authenticator{Accounts: cfg.Accounts, Service: "blob", Now: s.now, Policy: s.storedPolicy}
	return s
}

// clock returns the commit time: UTC at the wire's 100 ns precision.
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(100 * time.Nanosecond) }

// check evaluates preconditions, mapping outcomes to Azure's errors;
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

func (c *containerRecord) state() conditions.State {
	if c == nil {
		return conditions.State{}
	}
	return conditions.State{Exists: true, ETag: azhttp.ETag(c.Version), LastModified: c.Modified}
}

func (b *blobRecord) state() conditions.State {
	if b == nil {
		return conditions.State{}
	}
	return conditions.State{Exists: true, ETag: azhttp.ETag(b.Version), LastModified: b.Modified}
}
