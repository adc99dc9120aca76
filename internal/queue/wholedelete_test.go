package queue

import (
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestQueueDeleteLeavesNothing deletes a queue holding visible, delayed,
// dequeued, expired and never-expiring messages, metadata and an access
// policy: the store holds exactly what it held before the queue was
// made, and the queue next to it keeps its message.
func TestQueueDeleteLeavesNothing(t *testing.T) {
	clock := newFakeClock()
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	s := newServiceOver(t, store, clock)
	ctx := t.Context()
	const acct = "devstoreaccount1"
	if _, err := s.CreateQueue(ctx, acct, "other", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutMessage(ctx, acct, "other", "keep", PutOptions{}); err != nil {
		t.Fatal(err)
	}
	before := testkit.Keys(t, store, nil)
	if _, err := s.CreateQueue(ctx, acct, "full", azhttp.Metadata{{"k", "v"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetQueueACL(ctx, acct, "full", []azauth.SignedIdentifier{{ID: "policy"}}); err != nil {
		t.Fatal(err)
	}
	for _, o := range []PutOptions{{}, {Visibility: time.Hour}, {TTL: time.Second}, {NoExpiry: true}, {}} {
		if _, err := s.PutMessage(ctx, acct, "full", "m", o); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.GetMessages(ctx, acct, "full", 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Second)
	checkInvariants(t, store)
	if err := s.DeleteQueue(ctx, acct, "full"); err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, store)
	if d := testkit.DiffKeys(before, testkit.Keys(t, store, nil)); d != "" {
		t.Fatalf("the deleted queue left keys: %s", d)
	}
}
