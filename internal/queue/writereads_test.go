package queue

import (
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv/kvtest"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

// TestPutMessageLookups pins what Put Message reads: the queue alone
// (ordering the write against Delete Queue); the message key is new.
func TestPutMessageLookups(t *testing.T) {
	store := kvtest.NewCounting(memory.Open())
	s := newServiceOver(t, store, newFakeClock())
	if _, err := s.CreateQueue(t.Context(), acct, "q", nil); err != nil {
		t.Fatal(err)
	}
	store.Reset()
	if _, err := s.PutMessage(t.Context(), acct, "q", "hello", PutOptions{TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if got := store.Lookups(); len(got) != 1 {
		t.Errorf("Put Message looked up %d keys or ranges, want 1: %q", len(got), got)
	}
}
