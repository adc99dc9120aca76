package testkit

import (
	"log/slog"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/liveness"
)

// Process registers a server process's liveness record on store, for a
// test that plays several front ends; it is closed at cleanup.
func Process(t testing.TB, store kv.Store, now func() time.Time) *liveness.Registry {
	t.Helper()
	reg, err := liveness.Register(t.Context(), store, now, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reg.Close(t.Context()) })
	return reg
}
