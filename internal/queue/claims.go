package queue

import "sync"

// claimTable keeps, per queue, the message keys that Get Messages calls
// of this process are taking, so that consumers competing for one queue
// take different messages. Without it every Get read the same first
// messages and all but one of them ran again: sixteen consumers of one
// queue lost a commit on nearly every other Get (docs/performance.md,
// "Competing queue consumers").
//
// A Get claims the messages it will take while it scans for them on a
// snapshot, passing over those others claimed, and lets go when it has
// taken them or failed. A claim is a hint, not a lock: the transaction
// that takes a message reads it again, so Gets of other processes over
// the same store, which do not see the claims, still conflict with it
// through the store, and a claimed message whose taker fails stays in
// the queue for a later Get.
type claimTable struct {
	mu     sync.Mutex
	queues map[string]map[string]*claimer // queue id → key → its taker
	// released are closed, per queue, when a Get lets go of claims on it
	// (waitRelease).
	released map[string]chan struct{}
}

// claimer is one Get Messages call's hold on the keys it claimed.
type claimer struct {
	t     *claimTable
	queue string
	keys  []string
	// passed counts the messages the current attempt passed over
	// because other Gets claimed them.
	passed int
}

// claimer returns a holder for a Get on acct's queue.
func (c *claimTable) claimer(acct, queue string) *claimer {
	return &claimer{t: c, queue: headID(acct, queue)}
}

// take claims key; false when another Get holds it.
func (h *claimer) take(key []byte) bool {
	h.t.mu.Lock()
	defer h.t.mu.Unlock()
	if h.t.queues == nil {
		h.t.queues = make(map[string]map[string]*claimer)
	}
	q := h.t.queues[h.queue]
	if q == nil {
		q = make(map[string]*claimer)
		h.t.queues[h.queue] = q
	}
	if owner, ok := q[string(key)]; ok {
		if owner != h {
			h.passed++
		}
		return owner == h
	}
	q[string(key)] = h
	h.keys = append(h.keys, string(key))
	return true
}

// release lets go of every key h claimed.
func (h *claimer) release() {
	if len(h.keys) == 0 {
		return
	}
	h.t.mu.Lock()
	defer h.t.mu.Unlock()
	q := h.t.queues[h.queue]
	for _, k := range h.keys {
		if q[k] == h {
			delete(q, k)
		}
	}
	if len(q) == 0 {
		delete(h.t.queues, h.queue)
	}
	h.keys = h.keys[:0]
	if ch, ok := h.t.released[h.queue]; ok {
		close(ch)
		delete(h.t.released, h.queue)
	}
}

// waitRelease returns a channel closed when a Get next lets go of claims
// on h's queue. A Get that found only messages others were taking waits
// on it (taken before its attempt, so that no release is missed) and
// looks again, as it would have had it conflicted with them.
func (h *claimer) waitRelease() <-chan struct{} {
	h.t.mu.Lock()
	defer h.t.mu.Unlock()
	ch, ok := h.t.released[h.queue]
	if !ok {
		if h.t.released == nil {
			h.t.released = make(map[string]chan struct{})
		}
		ch = make(chan struct{})
		h.t.released[h.queue] = ch
	}
	return ch
}
