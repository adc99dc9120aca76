package queue

import (
	"bytes"
	"sync"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// headCache remembers, per queue, a key before which no Get Messages
// needs to look. Get Messages deletes the messages it hands out and moves
// them behind the visible ones, so a queue consumed from the front
// accumulates deleted keys (tombstones, in an LSM) ahead of its first
// message until compaction drops them; scanning from the queue's prefix
// would step over every one, and Get's cost would grow with the number of
// messages ever consumed. Starting at the head keeps it flat.
//
// A head is safe because every key before it was, in the snapshot of the
// Get that found it, deleted by that Get or absent, and any message
// written later lies after it: a message's key starts with its visibility
// time, which is at least the writing transaction's clock reading, and a
// transaction commits within kv.MaxTxnDuration of its snapshot. So a
// head is capped at the Get's clock less headMargin (over
// kv.MaxTxnDuration, for commit queueing). Heads older than headTTL are
// dropped, which bounds what a clock stepped back, or front ends with
// skewed clocks over one store, could hide.
//
// The cache is only an optimisation: without it every scan starts at the
// prefix, as Tx.GetMessages does.
type headCache struct {
	mu    sync.Mutex
	heads map[string]queueHead
}

type queueHead struct {
	key []byte
	set time.Time // clock reading of the Get that found it
}

const (
	headMargin = 2 * kv.MaxTxnDuration
	headTTL    = time.Minute
	// maxHeads bounds the cache; past it the cache starts again empty.
	maxHeads = 10_000
)

func headID(acct, queue string) string { return acct + "\x00" + queue }

// start is the key a Get at now may start scanning from, or nil for the
// queue's first message.
func (c *headCache) start(acct, queue string, now time.Time) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.heads[headID(acct, queue)]
	if !ok || now.Sub(h.set) > headTTL || now.Before(h.set) {
		return nil
	}
	return h.key
}

// advance records head, found by a committed Get whose clock read began
// before its transaction started, capped as the type's comment explains.
func (c *headCache) advance(acct, queue string, head []byte, began time.Time) {
	limit := messagesPrefix(acct, queue).Uint(unixNanos(began.Add(-headMargin)))
	if bytes.Compare(head, limit) > 0 {
		head = limit
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.heads == nil || len(c.heads) >= maxHeads {
		c.heads = make(map[string]queueHead)
	}
	id := headID(acct, queue)
	if h, ok := c.heads[id]; ok && h.set.After(began) {
		return // a later Get already recorded its head
	}
	c.heads[id] = queueHead{key: head, set: began}
}
