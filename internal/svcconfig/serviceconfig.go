package svcconfig

import (
	"log/slog"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// Config is what a storage service (Blob, Queue, Table) is built
// from.
type Config struct {
	Store    kv.Store
	Accounts *azauth.Accounts
	// Now is the clock (tests inject one); nil means time.Now. Leases,
	// visibility windows and expiries are evaluated against it.
	Now    func() time.Time
	Logger *slog.Logger
}

// WithDefaults returns c with the clock and logger filled in.
func (c Config) WithDefaults() Config {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}
