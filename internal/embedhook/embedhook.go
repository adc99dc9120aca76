// Package embedhook is how cerulean's own test harness
// (internal/servertest) reaches past ceruleantest's public API: the whole
// server configuration before start, and the running server. Public
// users have no use for either and cannot import this package, so
// ceruleantest's API stays what a user may rely on while every SDK suite
// starts its server through it.
//
// The hooks ride on the context given to ceruleantest.New, as
// net/http/httptrace's hooks ride on a request's.
package embedhook

import (
	"context"

	"github.com/cerulean-db/cerulean/internal/server"
)

// Hooks are called by ceruleantest.New; a nil hook is skipped.
type Hooks struct {
	// Configure edits the configuration New built from its Options,
	// just before the server starts.
	Configure func(*server.Config)
	// Started is given the running server before New returns.
	Started func(*server.Server)
}

type hooksKey struct{}

// WithHooks returns ctx carrying h for ceruleantest.New.
func WithHooks(ctx context.Context, h Hooks) context.Context {
	return context.WithValue(ctx, hooksKey{}, h)
}

// FromContext returns the hooks ctx carries (none: the zero Hooks).
func FromContext(ctx context.Context) Hooks {
	h, _ := ctx.Value(hooksKey{}).(Hooks)
	return h
}
