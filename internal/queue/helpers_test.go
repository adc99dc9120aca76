package queue

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

const acct = azhttp.DevAccount

// fakeClock is a clock tests move by hand; visibility and TTL are driven
// with it instead of sleeping.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newTestService returns a Service over a fresh memory store driven by a
// fake clock, and registers a cleanup that checks the store's invariants.
func newTestService(t *testing.T) (*Service, *fakeClock) {
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

func newServiceOver(t *testing.T, store kv.Store, clock *fakeClock) *Service {
	t.Helper()
	accounts, err := azhttp.LoadAccounts(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return New(Config{Store: store, Accounts: accounts, Now: clock.Now, Logger: slog.New(slog.DiscardHandler)})
}

// checkInvariants verifies that every message sits under the key its record
// names, that no message belongs to a queue that does not exist, and that
// message ids are unique within a queue.
func checkInvariants(t *testing.T, store kv.Store) {
	t.Helper()
	err := store.View(context.Background(), func(r kv.Reader) error {
		base := accountKey(acct).Raw("m")
		ids := map[string]map[[16]byte]bool{}
		return r.Scan(base, kv.PrefixEnd(base), func(k, v []byte) error {
			rd, err := tuple.NewReader(k, len(base))
			if err != nil {
				return err
			}
			queue, err1 := rd.Str()
			visible, err2 := rd.Uint()
			seq, err3 := rd.Uint()
			if err := errors.Join(err1, err2, err3); err != nil {
				return err
			}
			m, err := decodeMessage(v)
			if err != nil {
				return err
			}
			if unixNanos(m.Visible) != visible || m.Seq != seq {
				t.Errorf("message %x of %s under key (%d, %d) but record says (%d, %d)", m.ID, queue, visible, seq, unixNanos(m.Visible), m.Seq)
			}
			if !bytes.Equal(k, messageKey(acct, queue, m.Visible, m.Seq)) {
				t.Errorf("message %x of %s: key does not round-trip", m.ID, queue)
			}
			if _, err := r.Get(queueKey(acct, queue)); err != nil {
				t.Errorf("message %x belongs to queue %s, which does not exist (%v)", m.ID, queue, err)
			}
			if ids[queue] == nil {
				ids[queue] = map[[16]byte]bool{}
			}
			if ids[queue][m.ID] {
				t.Errorf("message id %s appears twice in %s", formatID(m.ID), queue)
			}
			ids[queue][m.ID] = true
			return nil
		})
	})
	if err != nil {
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
func wantErr(t *testing.T, err error, want *azhttp.Error, what string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: got %v, want %s (%d)", what, err, want.Code, want.Status)
	}
}
