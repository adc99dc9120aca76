package cosmos

import (
	"bytes"
	"errors"

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

// parsedContainer is a container's definition as parsed from raw. c is a
// template: each transaction gets its own copy, whose per-transaction
// fields (the index state) start unset. Nothing in it is written after it
// is cached.
type parsedContainer struct {
	raw []byte
	c   container
}

// loadContainer reads a container's definition through rd, parsing it
// only when it differs from the last one parsed.
func (s *Service) loadContainer(rd kv.Reader, db, coll string) (*container, error) {
	raw, err := rd.Get(containerKey(db, coll))
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
	s.parsed.Store(k, &parsedContainer{raw: bytes.Clone(raw), c: tmpl})
	out := tmpl
	return &out, nil
}
