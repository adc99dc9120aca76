package liveness_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/liveness"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func alive(t *testing.T, store kv.Store, r *liveness.Registry, id string) bool {
	t.Helper()
	var ok bool
	err := store.View(context.Background(), func(rd kv.Reader) error {
		var err error
		ok, err = r.Alive(rd, id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestLiveness: a registered process is alive to the others until its
// record expires (a crash) or it closes (a clean stop); an unknown or
// empty id never is; a process is always alive to itself.
func TestLiveness(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	log := slog.New(slog.DiscardHandler)
	a, err := liveness.Register(t.Context(), store, clock.Now, log)
	if err != nil {
		t.Fatal(err)
	}
	b, err := liveness.Register(t.Context(), store, clock.Now, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	if a.ID() == b.ID() || a.ID() == "" {
		t.Fatalf("ids %q and %q", a.ID(), b.ID())
	}
	if !alive(t, store, b, a.ID()) || !alive(t, store, a, b.ID()) {
		t.Fatal("registered processes not alive to each other")
	}
	if alive(t, store, b, "") || alive(t, store, b, "nobody") {
		t.Fatal("an unknown process counts as alive")
	}
	clock.Advance(liveness.TTL - time.Second)
	if !alive(t, store, b, a.ID()) {
		t.Fatal("a process died before its TTL")
	}
	clock.Advance(2 * time.Second)
	if alive(t, store, b, a.ID()) {
		t.Fatal("a process that stopped renewing is still alive after its TTL")
	}
	if !alive(t, store, b, b.ID()) {
		t.Fatal("a process is not alive to itself")
	}
	if err := a.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	c, err := liveness.Register(t.Context(), store, clock.Now, log)
	if err != nil {
		t.Fatal(err)
	}
	if !alive(t, store, b, c.ID()) {
		t.Fatal("new process not alive")
	}
	if err := c.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if alive(t, store, b, c.ID()) {
		t.Fatal("a closed process is still alive")
	}
}
