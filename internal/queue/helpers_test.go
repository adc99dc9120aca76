package queue

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

const acct = azauth.DevAccount

// newFakeClock returns the clock tests move by hand, so that visibility
// and TTL are driven with it instead of sleeping.
func newFakeClock() *testkit.Clock {
	return testkit.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
}

// newTestService returns a Service over a fresh memory store driven by a
// fake clock, and registers a cleanup that checks the store's invariants.
func newTestService(t *testing.T) (*Service, *testkit.Clock) {
	t.Helper()
	clock := newFakeClock()
	store := memory.Open()
	s := newServiceOver(t, store, clock)
	t.Cleanup(func() {
		checkInvariants(t, store)
		if err := store.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return s, clock
}

func newServiceOver(t *testing.T, store kv.Store, clock *testkit.Clock) *Service {
	t.Helper()
	accounts, err := azauth.LoadAccounts(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return New(Config{Store: store, Accounts: accounts, Now: clock.Now, Logger: slog.New(slog.DiscardHandler)})
}

// checkInvariants fails the test if the store breaks an invariant of
// Service.CheckInvariants.
func checkInvariants(t *testing.T, store kv.Store) {
	t.Helper()
	if err := New(Config{Store: store}).CheckInvariants(context.Background()); err != nil {
		t.Errorf("invariant check: %v", err)
	}
}

// storedMessages counts the message keys of a queue, expired ones included.
func storedMessages(t *testing.T, s *Service, queue string) int {
	t.Helper()
	n := 0
	err := s.store.View(context.Background(), func(r kv.Reader) error {
		p := messagesPrefix(acct, queue)
		return r.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { n++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func mustCreate(t *testing.T, s *Service, queue string) {
	t.Helper()
	if _, err := s.CreateQueue(context.Background(), acct, queue, nil); err != nil {
		t.Fatalf("create %s: %v", queue, err)
	}
}

func mustPut(t *testing.T, s *Service, queue, text string, o PutOptions) *Message {
	t.Helper()
	m, err := s.PutMessage(context.Background(), acct, queue, text, o)
	if err != nil {
		t.Fatalf("put %q: %v", text, err)
	}
	return m
}

func mustGet(t *testing.T, s *Service, queue string, n int, vt time.Duration) []Message {
	t.Helper()
	msgs, err := s.GetMessages(context.Background(), acct, queue, n, vt)
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	return msgs
}

// mustDelete deletes m with its receipt; what says which receipt it is.
func mustDelete(t *testing.T, s *Service, queue string, m *Message, what string) {
	t.Helper()
	if err := s.DeleteMessage(context.Background(), acct, queue, m.ID, m.PopReceipt); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func mustPeek(t *testing.T, s *Service, queue string, n int) []Message {
	t.Helper()
	msgs, err := s.PeekMessages(context.Background(), acct, queue, n)
	if err != nil {
		t.Fatalf("peek: %v", err)
	}
	return msgs
}

func texts(msgs []Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Text
	}
	return out
}

// wantErr fails unless err is the Azure error want.
func wantErr(t *testing.T, err error, want *azerr.Error, what string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: got %v, want %s (%d)", what, err, want.Code, want.Status)
	}
}
