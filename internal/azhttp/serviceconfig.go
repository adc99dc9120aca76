package azhttp

import (
	"log/slog"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// ServiceConfig is what a storage service (Blob, Queue, Table) is built
// from.
type ServiceConfig struct {
	Store    kv.Store
	Accounts *Accounts
	// Now is the clock (tests inject one); nil means time.Now. Leases,
	// visibility windows and expiries are evaluated against it.
	Now    func() time.Time
	Logger *slog.Logger
}

// WithDefaults returns c with the clock and logger filled in.
func (c ServiceConfig) WithDefaults() ServiceConfig {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}
