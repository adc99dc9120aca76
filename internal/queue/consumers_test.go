package queue

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestCompetingConsumers: sixteen consumers getting and deleting one
// message at a time from one queue each receive different messages, every
// message is delivered exactly once, no Get answers empty while many
// messages are left, and few Gets lose a commit to another (claimTable):
// before, every other Get did (235 and 247 of 480 in two runs), now about
// one in fifty does, a Get that read a message just before another Get
// took it and let go of its claim.
func TestCompetingConsumers(t *testing.T) {
	store := memory.Open()
	t.Cleanup(func() {
		checkInvariants(t, store)
		_ = store.Close()
	})
	conflicts := testkit.ObserveConflicts(t, store)
	s := newServiceOver(t, store, newFakeClock())
	mustCreate(t, s, "q")
	const consumers, messages = 16, 480
	for i := range messages {
		mustPut(t, s, "q", fmt.Sprint(i), PutOptions{})
	}
	before := conflicts.Count()
	var mu sync.Mutex
	seen := map[string]int{}
	var empty atomic.Int64
	early := 0
	var wg sync.WaitGroup
	for range consumers {
		wg.Go(func() {
			for {
				got, err := s.GetMessages(t.Context(), acct, "q", 1, time.Hour)
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					if empty.Add(1) > 10*messages {
						return
					}
					mu.Lock()
					done := len(seen) == messages
					if len(seen) < messages-2*consumers {
						early++
					}
					mu.Unlock()
					if done {
						return
					}
					continue
				}
				mu.Lock()
				seen[got[0].Text]++
				mu.Unlock()
				if err := s.DeleteMessage(t.Context(), acct, "q", got[0].ID, got[0].PopReceipt); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if len(seen) != messages {
		t.Errorf("%d of %d messages delivered (%d empty Gets)", len(seen), messages, empty.Load())
	}
	for text, n := range seen {
		if n != 1 {
			t.Errorf("message %s delivered %d times", text, n)
		}
	}
	t.Logf("%d empty Gets (%d while many messages were left), %d commits lost", empty.Load(), early, conflicts.Count()-before)
	if early != 0 {
		t.Errorf("%d Gets answered empty while more than %d messages were left", early, 2*consumers)
	}
	if n := conflicts.Count() - before; n > messages/10 {
		t.Errorf("%d commits lost between consumers for %d Gets", n, messages)
	}
}

// TestGetAfterPutFindsAMessage: workers that each put a message and then
// get one always get one, however many Gets run at once: a Get that
// finds every visible message being taken by other Gets waits for them
// and looks again (test/exhaustion's queue traffic, which failed when it
// answered empty instead).
func TestGetAfterPutFindsAMessage(t *testing.T) {
	s, _ := newTestService(t)
	mustCreate(t, s, "q")
	const workers, each = 16, 40
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				mustPut(t, s, "q", fmt.Sprint(w, "-", i), PutOptions{})
				got, err := s.GetMessages(t.Context(), acct, "q", 1, time.Hour)
				if err != nil || len(got) != 1 {
					t.Errorf("worker %d, get %d: %d messages, %v", w, i, len(got), err)
					return
				}
				if err := s.DeleteMessage(t.Context(), acct, "q", got[0].ID, got[0].PopReceipt); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
