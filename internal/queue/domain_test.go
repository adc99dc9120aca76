package queue

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

// TestTxCommitsTogether: operations run through one Tx become visible
// together, and each sees what the ones before it wrote.
func TestTxCommitsTogether(t *testing.T) {
	s, _ := newTestService(t)
	ctx := context.Background()
	mustCreate(t, s, "a")
	mustCreate(t, s, "b")
	err := s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.PutMessage(acct, "a", "first", PutOptions{}); err != nil {
			return err
		}
		if _, err := tx.PutMessage(acct, "b", "second", PutOptions{}); err != nil {
			return err
		}
		peeked, err := tx.PeekMessages(acct, "a", 32)
		if err != nil {
			return err
		}
		if got := texts(peeked); !slices.Equal(got, []string{"first"}) {
			t.Errorf("inside the transaction, peek saw %v", got)
		}
		p, err := tx.GetQueueProperties(acct, "b")
		if err != nil {
			return err
		}
		if p.ApproximateMessages != 1 {
			t.Errorf("inside the transaction, b counts %d messages", p.ApproximateMessages)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(mustPeek(t, s, "a", 32)); !slices.Equal(got, []string{"first"}) {
		t.Errorf("a holds %v", got)
	}
	if got := texts(mustPeek(t, s, "b", 32)); !slices.Equal(got, []string{"second"}) {
		t.Errorf("b holds %v", got)
	}
}

// TestTxMoveBetweenQueues: a caller's own kv transaction takes a message
// from one queue and puts it on another through In; the message is never
// on both or on neither.
func TestTxMoveBetweenQueues(t *testing.T) {
	s, _ := newTestService(t)
	ctx := context.Background()
	mustCreate(t, s, "inbox")
	mustCreate(t, s, "done")
	mustPut(t, s, "inbox", "job", PutOptions{})
	err := s.store.Update(ctx, func(kt kv.Txn) error {
		tx := s.In(kt)
		got, err := tx.GetMessages(acct, "inbox", 1, 30*time.Second)
		if err != nil {
			return err
		}
		if len(got) != 1 {
			t.Fatalf("got %d messages", len(got))
		}
		if _, err := tx.PutMessage(acct, "done", got[0].Text, PutOptions{}); err != nil {
			return err
		}
		// The receipt Get issued in this transaction deletes the message
		// in this transaction.
		return tx.DeleteMessage(acct, "inbox", got[0].ID, got[0].PopReceipt)
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := storedMessages(t, s, "inbox"); n != 0 {
		t.Errorf("inbox still stores %d messages", n)
	}
	if got := texts(mustPeek(t, s, "done", 32)); !slices.Equal(got, []string{"job"}) {
		t.Errorf("done holds %v", got)
	}
}

// TestTxRollsBackTogether: when a later operation fails, or fn itself
// returns an error, the earlier operations of the same transaction are
// discarded with it.
func TestTxRollsBackTogether(t *testing.T) {
	s, _ := newTestService(t)
	ctx := context.Background()
	mustCreate(t, s, "q")
	kept := mustPut(t, s, "q", "kept", PutOptions{})

	err := s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.PutMessage(acct, "q", "lost", PutOptions{}); err != nil {
			return err
		}
		if err := tx.DeleteMessage(acct, "q", kept.ID, kept.PopReceipt); err != nil {
			return err
		}
		// The second put names a queue that does not exist.
		_, err := tx.PutMessage(acct, "missing", "x", PutOptions{})
		return err
	})
	wantErr(t, err, azerr.ErrQueueNotFound, "put to a missing queue")

	errAbort := errors.New("abort")
	err = s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.GetMessages(acct, "q", 1, time.Hour); err != nil {
			return err
		}
		return errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}

	got := mustPeek(t, s, "q", 32)
	if len(got) != 1 || got[0].ID != kept.ID || got[0].DequeueCount != 0 {
		t.Fatalf("after the rolled-back transactions the queue holds %+v", got)
	}
	if n := storedMessages(t, s, "q"); n != 1 {
		t.Errorf("%d messages stored, want 1", n)
	}
	// kept's receipt is still its current one: the delete was undone.
	mustDelete(t, s, "q", kept, "delete with the put's receipt")
}

// TestTxClockReadOnce: every operation of a Tx shares the time In read.
func TestTxClockReadOnce(t *testing.T) {
	s, clock := newTestService(t)
	ctx := context.Background()
	mustCreate(t, s, "q")
	start := clock.Now()
	var first, second *Message
	err := s.Update(ctx, func(tx *Tx) (err error) {
		if first, err = tx.PutMessage(acct, "q", "1", PutOptions{}); err != nil {
			return err
		}
		clock.Advance(time.Minute)
		second, err = tx.PutMessage(acct, "q", "2", PutOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !first.Inserted.Equal(start) || !second.Inserted.Equal(start) {
		t.Errorf("inserted at %v and %v, want both %v", first.Inserted, second.Inserted, start)
	}
}

// TestStoreErrorsPassThrough: the service hands store failures back
// unmapped, for the wire layer to classify.
func TestStoreErrorsPassThrough(t *testing.T) {
	store := memory.Open()
	s := newServiceOver(t, store, newFakeClock())
	mustCreate(t, s, "q")
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := s.PutMessage(context.Background(), acct, "q", "x", PutOptions{})
	if !errors.Is(err, kv.ErrClosed) || azerr.ClassifyStore(err) != azerr.StoreClosed {
		t.Fatalf("put on a closed store: %v", err)
	}
	var ae *azerr.Error
	if errors.As(err, &ae) {
		t.Errorf("the service mapped a store failure to %s", ae.Code)
	}
}
