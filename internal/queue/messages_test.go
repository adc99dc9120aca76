package queue

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv/pebble"
)

func TestPutGetDelete(t *testing.T) {
	s, clock := newTestService(t)
	ctx := context.Background()
	mustCreate(t, s, "q")
	put := mustPut(t, s, "q", "hello", PutOptions{})
	if _, ok := parseID(put.ID); !ok {
		t.Errorf("message id %q is not a GUID", put.ID)
	}
	if !put.Inserted.Equal(clock.Now()) || !put.Visible.Equal(clock.Now()) || !put.Expires.Equal(clock.Now().Add(DefaultTTL)) {
		t.Errorf("put times: inserted %v visible %v expires %v", put.Inserted, put.Visible, put.Expires)
	}
	got := mustGet(t, s, "q", 1, 30*time.Second)
	if len(got) != 1 || got[0].ID != put.ID || got[0].Text != "hello" || got[0].DequeueCount != 1 {
		t.Fatalf("get: %+v", got)
	}
	if !got[0].Visible.Equal(clock.Now().Add(30 * time.Second)) {
		t.Errorf("TimeNextVisible %v, want now+30s", got[0].Visible)
	}
	if got[0].PopReceipt == put.PopReceipt {
		t.Errorf("get issued the put's pop receipt again")
	}
	mustDelete(t, s, "q", &got[0], "delete")
	clock.Advance(time.Minute)
	if msgs := mustGet(t, s, "q", 32, time.Second); len(msgs) != 0 {
		t.Errorf("deleted message came back: %+v", msgs)
	}
	wantErr(t, s.DeleteMessage(ctx, acct, "q", got[0].ID, got[0].PopReceipt), azerr.ErrMessageNotFound, "second delete")
}

// TestVisibilityWindow: an invisible message is not handed out until its
// TimeNextVisible, then comes back with DequeueCount 2 and a new receipt;
// the old receipt neither deletes nor updates it.
func TestVisibilityWindow(t *testing.T) {
	s, clock := newTestService(t)
	ctx := context.Background()
	mustCreate(t, s, "q")
	mustPut(t, s, "q", "work", PutOptions{})
	first := mustGet(t, s, "q", 1, 30*time.Second)[0]

	clock.Advance(29*time.Second + 999*time.Millisecond)
	if msgs := mustGet(t, s, "q", 32, 30*time.Second); len(msgs) != 0 {
		t.Fatalf("message handed out again inside its window: %+v", msgs)
	}
	if msgs := mustPeek(t, s, "q", 32); len(msgs) != 0 {
		t.Fatalf("peek shows an invisible message: %+v", msgs)
	}
	clock.Advance(time.Millisecond)
	again := mustGet(t, s, "q", 1, 30*time.Second)
	if len(again) != 1 || again[0].ID != first.ID || again[0].DequeueCount != 2 {
		t.Fatalf("after the window: %+v", again)
	}
	if again[0].PopReceipt == first.PopReceipt {
		t.Fatal("second get reused the pop receipt")
	}
	wantErr(t, s.DeleteMessage(ctx, acct, "q", first.ID, first.PopReceipt), azerr.ErrMessageNotFound, "delete with stale receipt")
	text := "hijack"
	_, err := s.UpdateMessage(ctx, acct, "q", first.ID, first.PopReceipt, 0, &text)
	wantErr(t, err, azerr.ErrMessageNotFound, "update with stale receipt")
	mustDelete(t, s, "q", &again[0], "delete with current receipt")
}

// TestReceiptOutlivesWindow: as in Azure, time alone does not invalidate a
// pop receipt; only a later Get or Update does.
func TestReceiptOutlivesWindow(t *testing.T) {
	s, clock := newTestService(t)
	mustCreate(t, s, "q")
	mustPut(t, s, "q", "slow", PutOptions{})
	m := mustGet(t, s, "q", 1, 10*time.Second)[0]
	clock.Advance(time.Hour)
	mustDelete(t, s, "q", &m, "delete after the window, nobody else took it")
}

func TestPutReceiptDeletes(t *testing.T) {
	s, _ := newTestService(t)
	mustCreate(t, s, "q")
	m := mustPut(t, s, "q", "x", PutOptions{Visibility: time.Hour})
	mustDelete(t, s, "q", m, "delete with the put's receipt")
	if n := storedMessages(t, s, "q"); n != 0 {
		t.Errorf("%d messages left", n)
	}
}

// TestUpdateMessage: new content and visibility, a new receipt, the old one
// invalid, DequeueCount unchanged.
func TestUpdateMessage(t *testing.T) {
	s, clock := newTestService(t)
	ctx := context.Background()
	mustCreate(t, s, "q")
	mustPut(t, s, "q", "v1", PutOptions{})
	got := mustGet(t, s, "q", 1, 30*time.Second)[0]
	text := "v2"
	up, err := s.UpdateMessage(ctx, acct, "q", got.ID, got.PopReceipt, 10*time.Second, &text)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if up.PopReceipt == got.PopReceipt || !up.Visible.Equal(clock.Now().Add(10*time.Second)) {
		t.Errorf("update result: %+v", up)
	}
	wantErr(t, s.DeleteMessage(ctx, acct, "q", got.ID, got.PopReceipt), azerr.ErrMessageNotFound, "delete with pre-update receipt")
	clock.Advance(9 * time.Second)
	if msgs := mustPeek(t, s, "q", 1); len(msgs) != 0 {
		t.Fatalf("visible before the updated window ended: %+v", msgs)
	}
	clock.Advance(time.Second)
	peek := mustPeek(t, s, "q", 1)
	if len(peek) != 1 || peek[0].Text != "v2" || peek[0].DequeueCount != 1 || peek[0].PopReceipt != "" {
		t.Fatalf("peek after update: %+v", peek)
	}
	// Visibility only: the text stays.
	again := mustGet(t, s, "q", 1, 30*time.Second)[0]
	if again.DequeueCount != 2 {
		t.Errorf("DequeueCount after update and get = %d, want 2", again.DequeueCount)
	}
	up2, err := s.UpdateMessage(ctx, acct, "q", again.ID, again.PopReceipt, 0, nil)
	if err != nil {
		t.Fatalf("visibility-only update: %v", err)
	}
	peek = mustPeek(t, s, "q", 1)
	if len(peek) != 1 || peek[0].Text != "v2" {
		t.Fatalf("after a visibility-only update: %+v", peek)
	}
	mustDelete(t, s, "q", up2, "delete with the update's receipt")
}

// TestPopReceiptMismatch: an update that leaves the message where it was
// (same TimeNextVisible) still invalidates the old receipt, and a receipt
// that finds the message with another issuing version is 400.
func TestPopReceiptMismatch(t *testing.T) {
	s, clock := newTestService(t)
	ctx := context.Background()
	mustCreate(t, s, "q")
	mustPut(t, s, "q", "x", PutOptions{})
	got := mustGet(t, s, "q", 1, 30*time.Second)[0]
	clock.Advance(10 * time.Second)
	up, err := s.UpdateMessage(ctx, acct, "q", got.ID, got.PopReceipt, 20*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !up.Visible.Equal(got.Visible) {
		t.Fatalf("test setup: the update moved the message (%v vs %v)", up.Visible, got.Visible)
	}
	wantErr(t, s.DeleteMessage(ctx, acct, "q", got.ID, got.PopReceipt), azerr.ErrPopReceiptMismatch, "delete with superseded receipt at the same key")
	_, err = s.UpdateMessage(ctx, acct, "q", got.ID, got.PopReceipt, 0, nil)
	wantErr(t, err, azerr.ErrPopReceiptMismatch, "update with superseded receipt at the same key")
}

func TestReceiptOfAnotherMessage(t *testing.T) {
	s, _ := newTestService(t)
	ctx := context.Background()
	mustCreate(t, s, "q")
	a := mustPut(t, s, "q", "a", PutOptions{})
	b := mustPut(t, s, "q", "b", PutOptions{})
	wantErr(t, s.DeleteMessage(ctx, acct, "q", b.ID, a.PopReceipt), azerr.ErrMessageNotFound, "b with a's receipt")
	wantErr(t, s.DeleteMessage(ctx, acct, "q", "not-a-guid", a.PopReceipt), azerr.ErrMessageNotFound, "non-GUID id")
	wantErr(t, s.DeleteMessage(ctx, acct, "q", a.ID, "garbage!"), azerr.ErrInvalidQueryParameterValue, "malformed receipt")
	wantErr(t, s.DeleteMessage(ctx, acct, "nope", a.ID, a.PopReceipt), azerr.ErrQueueNotFound, "missing queue")
	if n := storedMessages(t, s, "q"); n != 2 {
		t.Errorf("%d messages left, want 2", n)
	}
}

// TestTTL: a message exists until Inserted+TTL, not a moment longer, and
// expired messages are never returned.
func TestTTL(t *testing.T) {
	s, clock := newTestService(t)
	ctx := context.Background()
	mustCreate(t, s, "q")
	m := mustPut(t, s, "q", "short", PutOptions{TTL: 10 * time.Second})
	if !m.Expires.Equal(clock.Now().Add(10 * time.Second)) {
		t.Errorf("ExpirationTime %v", m.Expires)
	}
	mustPut(t, s, "q", "long", PutOptions{TTL: time.Hour})
	clock.Advance(9 * time.Second)
	if got := texts(mustPeek(t, s, "q", 32)); !slices.Equal(got, []string{"short", "long"}) {
		t.Fatalf("before expiry: %v", got)
	}
	clock.Advance(time.Second)
	if got := texts(mustPeek(t, s, "q", 32)); !slices.Equal(got, []string{"long"}) {
		t.Fatalf("peek at expiry: %v", got)
	}
	p, err := s.GetQueueProperties(ctx, acct, "q")
	if err != nil || p.ApproximateMessages != 1 {
		t.Fatalf("count at expiry: %+v %v", p, err)
	}
	wantErr(t, s.DeleteMessage(ctx, acct, "q", m.ID, m.PopReceipt), azerr.ErrMessageNotFound, "delete expired")
	got := mustGet(t, s, "q", 32, time.Second)
	if !slices.Equal(texts(got), []string{"long"}) {
		t.Fatalf("get at expiry: %v", texts(got))
	}
	// The Get deleted the expired message it passed.
	if n := storedMessages(t, s, "q"); n != 1 {
		t.Errorf("%d messages stored after get, want 1", n)
	}
}

// TestExpiryWhileInvisible: a message that expires during its visibility
// window never comes back.
func TestExpiryWhileInvisible(t *testing.T) {
	s, clock := newTestService(t)
	mustCreate(t, s, "q")
	mustPut(t, s, "q", "x", PutOptions{TTL: time.Minute})
	m := mustGet(t, s, "q", 1, 50*time.Second)[0]
	_, err := s.UpdateMessage(context.Background(), acct, "q", m.ID, m.PopReceipt, 2*time.Minute, nil)
	wantErr(t, err, azerr.ErrInvalidQueryParameterValue, "update beyond expiry")
	clock.Advance(time.Minute)
	if got := mustGet(t, s, "q", 32, time.Second); len(got) != 0 {
		t.Fatalf("expired message returned: %+v", got)
	}
}

func TestNoExpiry(t *testing.T) {
	s, clock := newTestService(t)
	mustCreate(t, s, "q")
	m := mustPut(t, s, "q", "forever", PutOptions{NoExpiry: true})
	if !m.Expires.IsZero() {
		t.Fatalf("Expires %v, want never", m.Expires)
	}
	clock.Advance(50 * 365 * 24 * time.Hour)
	got := mustGet(t, s, "q", 1, time.Second)
	if len(got) != 1 || got[0].Text != "forever" || !got[0].Expires.IsZero() {
		t.Fatalf("after 50 years: %+v", got)
	}
	if n, err := s.Sweep(context.Background()); err != nil || n != 0 {
		t.Errorf("sweep removed %d (%v)", n, err)
	}
}

func TestHugeTTLNeverExpires(t *testing.T) {
	s, _ := newTestService(t)
	mustCreate(t, s, "q")
	m := mustPut(t, s, "q", "x", PutOptions{TTL: time.Duration(math.MaxInt64)})
	if !m.Expires.IsZero() {
		t.Errorf("TTL beyond 2262: Expires %v, want never", m.Expires)
	}
}

func TestVisibilityMustBeBelowTTL(t *testing.T) {
	s, _ := newTestService(t)
	mustCreate(t, s, "q")
	_, err := s.PutMessage(context.Background(), acct, "q", "x", PutOptions{Visibility: time.Minute, TTL: time.Minute})
	wantErr(t, err, azerr.ErrInvalidQueryParameterValue, "visibility == ttl")
	if _, err := s.PutMessage(context.Background(), acct, "q", "x", PutOptions{Visibility: time.Hour, NoExpiry: true}); err != nil {
		t.Errorf("visibility with no expiry: %v", err)
	}
}

// TestOrdering: visible messages come out in the order they became
// visible, and in insertion order when that is the same instant.
func TestOrdering(t *testing.T) {
	s, clock := newTestService(t)
	mustCreate(t, s, "q")
	for i := range 5 {
		mustPut(t, s, "q", fmt.Sprint(i), PutOptions{})
	}
	mustPut(t, s, "q", "delayed", PutOptions{Visibility: 5 * time.Second})
	clock.Advance(time.Second)
	mustPut(t, s, "q", "5", PutOptions{})
	if got := texts(mustPeek(t, s, "q", 32)); !slices.Equal(got, []string{"0", "1", "2", "3", "4", "5"}) {
		t.Fatalf("peek order: %v", got)
	}
	first := mustGet(t, s, "q", 2, 10*time.Second)
	if got := texts(first); !slices.Equal(got, []string{"0", "1"}) {
		t.Fatalf("first get: %v", got)
	}
	clock.Advance(5 * time.Second)
	if got := texts(mustGet(t, s, "q", 32, time.Hour)); !slices.Equal(got, []string{"2", "3", "4", "5", "delayed"}) {
		t.Fatalf("second get: %v", got)
	}
	clock.Advance(5 * time.Second)
	got := mustGet(t, s, "q", 32, time.Hour)
	if !slices.Equal(texts(got), []string{"0", "1"}) || got[0].DequeueCount != 2 {
		t.Fatalf("reappeared: %+v", got)
	}
}

func TestDequeueCount(t *testing.T) {
	s, clock := newTestService(t)
	mustCreate(t, s, "q")
	mustPut(t, s, "q", "x", PutOptions{})
	for want := int64(1); want <= 5; want++ {
		got := mustGet(t, s, "q", 1, time.Second)
		if len(got) != 1 || got[0].DequeueCount != want {
			t.Fatalf("get %d: %+v", want, got)
		}
		if p := mustPeek(t, s, "q", 1); len(p) != 0 {
			t.Fatalf("peek during window: %+v", p)
		}
		clock.Advance(time.Second)
		if p := mustPeek(t, s, "q", 1); len(p) != 1 || p[0].DequeueCount != want {
			t.Fatalf("peek after window: %+v", p)
		}
	}
}

func TestGetTakesAtMostN(t *testing.T) {
	s, _ := newTestService(t)
	mustCreate(t, s, "q")
	for i := range 40 {
		mustPut(t, s, "q", fmt.Sprint(i), PutOptions{})
	}
	if got := mustGet(t, s, "q", 32, time.Minute); len(got) != 32 {
		t.Fatalf("got %d, want 32", len(got))
	}
	if got := mustGet(t, s, "q", 32, time.Minute); len(got) != 8 {
		t.Fatalf("got %d, want the remaining 8", len(got))
	}
}

func TestClearAndDeleteQueue(t *testing.T) {
	s, _ := newTestService(t)
	ctx := context.Background()
	mustCreate(t, s, "q")
	for range 10 {
		mustPut(t, s, "q", "x", PutOptions{})
	}
	mustGet(t, s, "q", 3, time.Minute) // invisible ones go too
	if err := s.ClearMessages(ctx, acct, "q"); err != nil {
		t.Fatal(err)
	}
	if n := storedMessages(t, s, "q"); n != 0 {
		t.Fatalf("%d messages after clear", n)
	}
	mustPut(t, s, "q", "x", PutOptions{})
	if err := s.DeleteQueue(ctx, acct, "q"); err != nil {
		t.Fatal(err)
	}
	if n := storedMessages(t, s, "q"); n != 0 {
		t.Fatalf("%d messages after delete queue", n)
	}
	_, err := s.PutMessage(ctx, acct, "q", "x", PutOptions{})
	wantErr(t, err, azerr.ErrQueueNotFound, "put to deleted queue")
	_, err = s.GetMessages(ctx, acct, "q", 1, time.Second)
	wantErr(t, err, azerr.ErrQueueNotFound, "get from deleted queue")
	wantErr(t, s.ClearMessages(ctx, acct, "q"), azerr.ErrQueueNotFound, "clear deleted queue")
	wantErr(t, s.DeleteQueue(ctx, acct, "q"), azerr.ErrQueueNotFound, "delete deleted queue")
}

// TestSweep removes expired messages, visible or not, and nothing else.
func TestSweep(t *testing.T) {
	s, clock := newTestService(t)
	mustCreate(t, s, "a")
	mustCreate(t, s, "b")
	for i := range 300 {
		mustPut(t, s, "a", "x", PutOptions{TTL: time.Minute, Visibility: time.Duration(i%3) * time.Second})
	}
	mustPut(t, s, "a", "keep", PutOptions{TTL: time.Hour})
	mustPut(t, s, "b", "x", PutOptions{TTL: time.Minute})
	mustGet(t, s, "b", 1, 50*time.Second)
	clock.Advance(time.Minute)
	n, err := s.Sweep(context.Background())
	if err != nil || n != 301 {
		t.Fatalf("sweep deleted %d (%v), want 301", n, err)
	}
	if a, b := storedMessages(t, s, "a"), storedMessages(t, s, "b"); a != 1 || b != 0 {
		t.Errorf("left %d in a, %d in b", a, b)
	}
}

func TestMessageTooLarge(t *testing.T) {
	s, _ := newTestService(t)
	mustCreate(t, s, "q")
	big := string(make([]byte, MaxMessageSize+1))
	_, err := s.PutMessage(context.Background(), acct, "q", big, PutOptions{})
	wantErr(t, err, azerr.ErrRequestBodyTooLarge, "put 64 KiB + 1")
	mustPut(t, s, "q", big[:MaxMessageSize], PutOptions{})
}

// TestConcurrentConsumers races consumers on one queue with the clock
// frozen: every message must be handed out exactly once, since no window
// ever ends.
func TestConcurrentConsumers(t *testing.T) {
	s, _ := newTestService(t)
	mustCreate(t, s, "q")
	const total = 300
	for i := range total {
		mustPut(t, s, "q", fmt.Sprint(i), PutOptions{})
	}
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				msgs, err := s.GetMessages(context.Background(), acct, "q", 3, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if len(msgs) == 0 {
					return
				}
				mu.Lock()
				for _, m := range msgs {
					seen[m.ID]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != total {
		t.Errorf("%d distinct messages handed out, want %d", len(seen), total)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("message %s handed out %d times inside one window", id, n)
		}
	}
}

// TestWindowSurvivesRestart: a Get's invisibility is stored, so a reopened
// durable store does not hand the message out again early.
func TestWindowSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	clock := newFakeClock()
	open := func() (*Service, func()) {
		store, err := pebble.Open(dir, pebble.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return newServiceOver(t, store, clock), func() {
			checkInvariants(t, store)
			if err := store.Close(); err != nil {
				t.Errorf("close store: %v", err)
			}
		}
	}
	s, closeStore := open()
	mustCreate(t, s, "q")
	put := mustPut(t, s, "q", "durable", PutOptions{})
	got := mustGet(t, s, "q", 1, time.Minute)[0]
	closeStore()

	s, closeStore = open()
	defer closeStore()
	if msgs := mustGet(t, s, "q", 32, time.Minute); len(msgs) != 0 {
		t.Fatalf("message handed out again after restart: %+v", msgs)
	}
	clock.Advance(time.Minute)
	again := mustGet(t, s, "q", 1, time.Minute)
	if len(again) != 1 || again[0].ID != put.ID || again[0].DequeueCount != 2 {
		t.Fatalf("after the window: %+v", again)
	}
	wantErr(t, s.DeleteMessage(context.Background(), acct, "q", got.ID, got.PopReceipt), azerr.ErrMessageNotFound, "pre-restart receipt after re-get")
}
