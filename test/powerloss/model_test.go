package powerloss_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// item is one key as a client last saw it. content identifies what was
// written (a digest of the bytes, or the entity's fields); etag is the
// ETag the service reported (a queue message's id); handle is what a
// later request needs that a read does not return (a pop receipt).
type item struct {
	content, etag, handle string
}

// worker owns a set of keys of one service and changes them one request
// at a time, so that what each key must hold after a crash is exact: its
// acknowledged state, or that state with the one operation in flight at
// the crash applied as a whole.
type worker struct {
	svc string
	id  int
	rng *rand.Rand
	ops int // operations begun, for unique contents

	// state is the acknowledged state of the worker's keys (a key absent
	// from it does not exist).
	state map[string]item
	// pending is the operation begun and not acknowledged before the
	// crash: key -> new content ("" removes the key). ackedPending holds
	// what its acknowledgement said when one came after the crash began.
	pending      map[string]string
	ackedPending map[string]item

	crashing *atomic.Bool
	etags    *etagRegistry
	acked    int // operations acknowledged before a crash point
}

func newWorker(svc string, id int, seed uint64, etags *etagRegistry) *worker {
	return &worker{svc: svc, id: id, rng: rand.New(rand.NewPCG(seed, uint64(len(svc))<<32|uint64(id))),
		state: map[string]item{}, etags: etags}
}

// opID is a name no other operation of any worker uses.
func (w *worker) opID() string {
	w.ops++
	return fmt.Sprintf("%s-w%d-op%d", w.svc, w.id, w.ops)
}

// scope names the worker's key space: keys are unique within it.
func (w *worker) scope() string { return fmt.Sprintf("%s w%d", w.svc, w.id) }

// begin records the operation about to be sent.
func (w *worker) begin(changes map[string]string) {
	w.pending, w.ackedPending = changes, nil
}

// commit records the acknowledgement of the begun operation: the new
// items of the keys it wrote (deleted keys map to the zero item). An
// acknowledgement that came before the crash began is in the synced
// state; one that came after is only in flight.
//
// The ETags of a late acknowledgement join the registry only if the
// recovered state holds the write: a server that lost power would never
// have sent it, so an ETag nobody could have seen may be issued again.
func (w *worker) commit(result map[string]item) error {
	if w.crashing.Load() {
		w.ackedPending = result
		return nil
	}
	for key, it := range result {
		if it.content != "" {
			if err := w.etags.record(w.scope(), key, it); err != nil {
				return err
			}
		}
	}
	for key, it := range result {
		if it.content == "" {
			delete(w.state, key)
		} else {
			w.state[key] = it
		}
	}
	w.pending, w.ackedPending = nil, nil
	w.acked++
	return nil
}

// settle checks what the recovered service holds for the worker's keys
// against the model: the acknowledged state, or that state with the
// in-flight operation applied as a whole, every unchanged key with its
// ETag unchanged. It then takes the observed state as acknowledged, and
// reports whether the in-flight operation (if any) was found applied.
func (w *worker) settle(observed map[string]item) (applied bool, err error) {
	for key, it := range observed {
		if err := w.etags.record(w.scope(), key, it); err != nil {
			return false, err
		}
	}
	before := w.match(observed, nil)
	after := errors.New("no operation was in flight")
	if w.pending != nil {
		after = w.match(observed, w.pending)
	}
	if before != nil && after != nil {
		return false, fmt.Errorf("%s worker %d: recovered state is neither the acknowledged one (%w) nor that with the in-flight operation %s applied (%w)",
			w.svc, w.id, before, describe(w.pending), after)
	}
	state := make(map[string]item, len(observed))
	for key, it := range observed {
		if old, ok := w.state[key]; ok && old.content == it.content {
			it.handle = old.handle
		} else if acked, ok := w.ackedPending[key]; ok {
			it.handle = acked.handle
		}
		state[key] = it
	}
	w.state, w.pending, w.ackedPending = state, nil, nil
	return before != nil, nil
}

// match reports how observed differs from the acknowledged state with
// changes applied.
func (w *worker) match(observed map[string]item, changes map[string]string) error {
	want := maps.Clone(w.state)
	for key, content := range changes {
		if content == "" {
			delete(want, key)
		} else {
			want[key] = item{content: content}
		}
	}
	var diffs []string
	for _, key := range sortedKeys(want) {
		exp := want[key]
		got, ok := observed[key]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s missing (want %s)", key, exp.content))
		case got.content != exp.content:
			diffs = append(diffs, fmt.Sprintf("%s holds %s (want %s)", key, got.content, exp.content))
		case exp.etag != "" && got.etag != exp.etag:
			diffs = append(diffs, fmt.Sprintf("%s has ETag %s (acknowledged %s)", key, got.etag, exp.etag))
		}
		if _, changed := changes[key]; changed && ok && got.content == exp.content {
			if acked, ok := w.ackedPending[key]; ok && acked.etag != got.etag {
				diffs = append(diffs, fmt.Sprintf("%s has ETag %s (acknowledged after the crash began as %s)", key, got.etag, acked.etag))
			}
		}
	}
	for _, key := range sortedKeys(observed) {
		if _, ok := want[key]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s exists with %s (want absent)", key, observed[key].content))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s", strings.Join(diffs, "; "))
	}
	return nil
}

func describe(changes map[string]string) string {
	var parts []string
	for _, key := range sortedKeys(changes) {
		if changes[key] == "" {
			parts = append(parts, key+"=deleted")
		} else {
			parts = append(parts, key+"="+changes[key])
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// etagRegistry holds every ETag ever reported for each key, with the
// content it came with: an ETag must name one content for ever, across
// every crash and restart.
type etagRegistry struct {
	mu    sync.Mutex
	seen  map[string]string
	count int
}

func newETagRegistry() *etagRegistry { return &etagRegistry{seen: map[string]string{}} }

func (r *etagRegistry) record(svc, key string, it item) error {
	if it.etag == "" {
		return fmt.Errorf("%s %s: no ETag reported for %s", svc, key, it.content)
	}
	id := svc + "\x00" + key + "\x00" + it.etag
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.seen[id]; ok {
		if prev != it.content {
			return fmt.Errorf("%s %s: ETag %s named %s and now %s", svc, key, it.etag, prev, it.content)
		}
		return nil
	}
	r.seen[id] = it.content
	r.count++
	return nil
}

// payload is n random bytes from the worker's source and their digest.
func (w *worker) payload(n int) ([]byte, string) {
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := w.rng.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b, digest(b)
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// fields is the content of an entity or document: the operation that
// wrote it and a digest of its padding, so a torn value shows.
func fields(op, pad string) string { return op + "/" + digest([]byte(pad)) }

// padding is a random printable string of up to max bytes.
func (w *worker) padding(max int) string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 1+w.rng.IntN(max))
	for i := range b {
		b[i] = letters[w.rng.IntN(len(letters))]
	}
	return string(b)
}
