package occ

// readSet records what a transaction read, for validation at commit.
type readSet struct {
	keys  map[string]struct{}
	spans []Span
}

func (r *readSet) addKey(k []byte) {
	if r.keys == nil {
		r.keys = make(map[string]struct{})
	}
	r.keys[string(k)] = struct{}{}
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
