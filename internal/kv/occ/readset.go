package occ

// maxHeldValue bounds the values a transaction keeps from its Gets: records
// (containers, tables, queues, blob and entity heads) are far smaller, and
// a transaction that reads large values should not hold them all.
const maxHeldValue = 8 << 10

// readSet records what a transaction read, for validation at commit. It
// also holds what each Get saw (absence included): the snapshot never
// changes, so a transaction that reads a record again (a container checked
// by every blob write path, a table by every write of a batch) gets it from
// here instead of another lookup in the engine.
type readSet struct {
	keys  map[string]heldRead
	spans []Span
}

// heldRead is what a Get of a key returned from the snapshot: known is
// false when the key was read but its value is not kept (too large).
type heldRead struct {
	value []byte
	found bool
	known bool
}

func (r *readSet) addKey(k []byte) {
	if _, ok := r.keys[string(k)]; ok {
		return
	}
	if r.keys == nil {
		r.keys = make(map[string]heldRead)
	}
	r.keys[string(k)] = heldRead{}
}

// hold records a Get of k that returned value (found) or nothing.
func (r *readSet) hold(k, value []byte, found bool) {
	if r.keys == nil {
		r.keys = make(map[string]heldRead)
	}
	h := heldRead{found: found, known: len(value) <= maxHeldValue}
	if h.known && found {
		h.value = append(make([]byte, 0, len(value)), value...)
	}
	r.keys[string(k)] = h
}

// held returns what an earlier Get of k saw, when it was kept.
func (r *readSet) held(k []byte) (heldRead, bool) {
	h, ok := r.keys[string(k)]
	return h, ok && h.known
}

func (r *readSet) addSpan(s Span) { r.spans = append(r.spans, s) }

func (r *readSet) touchesKey(k []byte) bool {
	if _, ok := r.keys[string(k)]; ok {
		return true
	}
	for _, s := range r.spans {
		if s.contains(k) {
			return true
		}
	}
	return false
}

func (r *readSet) touches(w Span) bool {
	for _, s := range r.spans {
		if s.overlaps(w) {
			return true
		}
	}
	for k := range r.keys {
		if w.contains([]byte(k)) {
			return true
		}
	}
	return false
}
