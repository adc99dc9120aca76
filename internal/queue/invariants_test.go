package queue

import (
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
		if err := tx.Scan(p, kv.PrefixEnd(p), func(k, v []byte) bool {
			key = append([]byte(nil), k...)
			m, _ = decodeMessage(v)
			return false
		}); err != nil || m == nil {
			t.Fatalf("read the message: %v", err)
		}
		return key, m
	}
	for _, c := range []struct {
		name    string
		corrupt func(kv.Txn) error
		want    string
	}{
		{"message under another visibility time", func(tx kv.Txn) error {
			key, m := stored(tx)
			if err := tx.Delete(key); err != nil {
				return err
			}
			return tx.Set(messageKey(acct, "q", m.Visible.Add(time.Second), m.Seq), encodeMessage(m))
		}, "its record says"},
		{"message that does not decode", func(tx kv.Txn) error {
			key, _ := stored(tx)
			return tx.Set(key, []byte{messageFormat, 1, 2})
		}, "corrupt stored message"},
		{"message of a deleted queue", func(tx kv.Txn) error {
			return tx.Delete(queueKey(acct, "q"))
		}, "does not exist"},
		{"one id twice", func(tx kv.Txn) error {
			_, m := stored(tx)
			m.Seq++
			return tx.Set(messageKey(acct, "q", m.Visible, m.Seq), encodeMessage(m))
		}, "appears twice"},
		{"negative dequeue count", func(tx kv.Txn) error {
			key, m := stored(tx)
			m.DequeueCount = -1
			return tx.Set(key, encodeMessage(m))
		}, "dequeue count -1"},
		{"expiry before insertion", func(tx kv.Txn) error {
			key, m := stored(tx)
			m.Expires = m.Inserted.Add(-time.Second)
			return tx.Set(key, encodeMessage(m))
		}, "not after its insertion"},
	} {
		t.Run(c.name, func(t *testing.T) {
			store := memory.Open()
			t.Cleanup(func() { _ = store.Close() })
			s := newServiceOver(t, store, newFakeClock())
			mustCreate(t, s, "q")
			mustPut(t, s, "q", "hello", PutOptions{TTL: time.Hour})
			testkit.CheckCatches(t, store, s.CheckInvariants, c.corrupt, c.want)
		})
	}
}
