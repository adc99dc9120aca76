package cosmos

import (
	"bytes"
	"errors"
	"sync/atomic"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// A transaction that touches a container reads its definition in the
// transaction (so that a concurrent replace or delete of the container
// conflicts with it), but parsing the record — its binary record format,
// partition key paths, unique keys and indexing policy — is the same work
// for every write to the container. The service keeps the last parse of
// each container with the bytes it came from and reuses it while the
// stored bytes are the same; any change to the definition changes them
// (its _etag and _ts at least), so a stale parse is never used.

// The policy text of the container's range index state (the entries
// writes maintain, rangeindex.go) is fixed by the definition too: the
// state is written with the record (Create and Replace Container) and
// otherwise only marked ready for the same text (buildIndex). So the
// text read with one version of the record holds for every snapshot
// holding that version, and writes take it from the cache instead of
// reading the state; queries, which need to know whether the index is
// ready, still read it.

// parsedContainer is a container's definition as parsed from raw. c is a
// template: each transaction gets its own copy, whose per-transaction
// fields (the index state) start unset. Nothing in it but policyText is
// written after it is cached.
type parsedContainer struct {
	raw []byte
	c   container
	// policyText is the policy text of the index state that goes with
	// raw (the empty string when there is no state), once a transaction
	// has read it.
	policyText atomic.Pointer[string]
}

// loadContainer reads a container's definition through rd, parsing it
// only when it differs from the last one parsed.
func (s *Service) loadContainer(rd kv.Reader, db, coll string) (*container, error) {
	raw, err := kv.GetShared(rd, containerKey(db, coll))
	if errors.Is(err, kv.ErrNotFound) {
		return loadContainer(rd, db, coll) // its not-found answers
	}
	if err != nil {
		return nil, err
	}
	k := [2]string{db, coll}
	if v, ok := s.parsed.Load(k); ok {
		if p := v.(*parsedContainer); bytes.Equal(p.raw, raw) {
			c := p.c
			return &c, nil
		}
	}
	r, err := parseRecord(raw)
	if err != nil {
		return nil, err
	}
	c, err := parseContainer(db, r)
	if err != nil {
		return nil, err
	}
	tmpl := *c
	if pol, err := parseIndexPolicy(r["indexingPolicy"]); err == nil {
		tmpl.index = pol
	}
	entry := &parsedContainer{raw: bytes.Clone(raw), c: tmpl}
	entry.c.parsed = entry
	s.parsed.Store(k, entry)
	out := entry.c
	return &out, nil
}
