package queue

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// TestTxManyPutsOneQueue: every message put in one transaction is kept,
// in the order it was put.
func TestTxManyPutsOneQueue(t *testing.T) {
	s, _ := newTestService(t)
	mustCreate(t, s, "q")
	var want []string
	err := s.Update(context.Background(), func(tx *Tx) error {
		for i := range 5 {
			text := fmt.Sprintf("m%d", i)
			want = append(want, text)
			if _, err := tx.PutMessage(acct, "q", text, PutOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(mustPeek(t, s, "q", 32)); !slices.Equal(got, want) {
		t.Errorf("queue holds %v, want %v", got, want)
	}
}

// TestGetFindsLateCommittedMessage: a message written by a transaction
// whose clock read came before an earlier Get's (a writer that committed
// late, within kv.MaxTxnDuration) still lies after the head that Get
// cached, and the next Get finds it.
func TestGetFindsLateCommittedMessage(t *testing.T) {
	s, clock := newTestService(t)
	mustCreate(t, s, "q")
	mustPut(t, s, "q", "first", PutOptions{})
	if got := texts(mustGet(t, s, "q", 1, DefaultGetVisibility)); !slices.Equal(got, []string{"first"}) {
		t.Fatalf("first Get: %v", got)
	}
	if got := mustGet(t, s, "q", 1, DefaultGetVisibility); len(got) != 0 {
		t.Fatalf("empty queue gave %v", texts(got))
	}
	clock.Advance(-kv.MaxTxnDuration)
	mustPut(t, s, "q", "late", PutOptions{})
	clock.Advance(kv.MaxTxnDuration + time.Second)
	if got := texts(mustGet(t, s, "q", 32, DefaultGetVisibility)); !slices.Equal(got, []string{"late"}) {
		t.Errorf("after a late put, Get gave %v", got)
	}
}

// TestGetPastManyConsumed: Gets keep finding the next message as the
// cached head moves past the ones already consumed.
func TestGetPastManyConsumed(t *testing.T) {
	s, clock := newTestService(t)
	mustCreate(t, s, "q")
	for i := range 50 {
		mustPut(t, s, "q", fmt.Sprint(i), PutOptions{})
		clock.Advance(time.Second)
	}
	clock.Advance(time.Minute)
	for i := range 50 {
		got := mustGet(t, s, "q", 1, DefaultGetVisibility)
		if len(got) != 1 || got[0].Text != fmt.Sprint(i) {
			t.Fatalf("Get %d gave %v", i, texts(got))
		}
		mustDelete(t, s, "q", &got[0], "delete")
	}
}
