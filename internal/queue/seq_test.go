package queue

import (
	"context"
	"fmt"
	"slices"
	"testing"
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
