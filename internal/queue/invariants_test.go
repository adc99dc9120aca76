package queue

import (
	"context"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestCheckInvariantsCatchesCorruption: each record a test writes behind
// the service's back, breaking one invariant, makes CheckInvariants fail.
func TestCheckInvariantsCatchesCorruption(t *testing.T) {
	// stored reads the one message of queue "q".
	stored := func(tx kv.Txn) (key []byte, m *message) {
		p := messagesPrefix(acct, "q")
		if err := tx.Scan(p, kv.PrefixEnd(p), func(k, v []byte) error {
			key = append([]byte(nil), k...)
			m, _ = decodeMessage(v)
			return kv.ErrStopScan
		}); err != nil || m == nil {
			t.Fatalf("read the message: %v", err)
		}
		return key, m
	}
	testkit.CheckCatches(t, func(t *testing.T) (kv.Store, func(context.Context) error) {
		store := memory.Open()
		t.Cleanup(func() { _ = store.Close() })
		s := newServiceOver(t, store, newFakeClock())
		mustCreate(t, s, "q")
		mustPut(t, s, "q", "hello", PutOptions{TTL: time.Hour})
		return store, s.CheckInvariants
	}, []testkit.Corruption{
		{Name: "message under another visibility time", Corrupt: func(tx kv.Txn) error {
			key, m := stored(tx)
			if err := tx.Delete(key); err != nil {
				return err
			}
			return tx.Set(messageKey(acct, "q", m.Visible.Add(time.Second), m.Seq), encodeMessage(m))
		}, Want: "not under the key its record names"},
		{Name: "message that does not decode", Corrupt: func(tx kv.Txn) error {
			key, _ := stored(tx)
			return tx.Set(key, []byte{messageFormat, 1, 2})
		}, Want: "corrupt stored message"},
		{Name: "message of a deleted queue", Corrupt: func(tx kv.Txn) error {
			return tx.Delete(queueKey(acct, "q"))
		}, Want: "does not exist"},
		{Name: "one id twice", Corrupt: func(tx kv.Txn) error {
			_, m := stored(tx)
			m.Seq++
			return tx.Set(messageKey(acct, "q", m.Visible, m.Seq), encodeMessage(m))
		}, Want: "appears twice"},
		{Name: "negative dequeue count", Corrupt: func(tx kv.Txn) error {
			key, m := stored(tx)
			m.DequeueCount = -1
			return tx.Set(key, encodeMessage(m))
		}, Want: "dequeue count -1"},
		{Name: "expiry before insertion", Corrupt: func(tx kv.Txn) error {
			key, m := stored(tx)
			m.Expires = m.Inserted.Add(-time.Second)
			return tx.Set(key, encodeMessage(m))
		}, Want: "not after its insertion"},
	})
}
