package search

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/blevesearch/bleve/v2"

	"github.com/cerulean-db/cerulean/internal/invariant"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// CheckInvariants reads the service's resources, documents and change
// logs in one snapshot and verifies what queries rely on: every resource
// definition decodes (an index's also parses); the chunks of a large
// definition and an indexer's run state belong to a resource that
// exists; every document belongs to
// an index that exists, decodes, and holds its own key in the index's key
// field; an index's change sequence and log belong to an index that
// exists and the log runs no further than the sequence; and each index's
// bleve index, once caught up to the snapshot as a query would catch it
// up, holds exactly the snapshot's documents. It describes the first
// violations in its error. Run it on a quiet store.
func (s *Service) CheckInvariants(ctx context.Context) error {
	c := searchChecker{defined: map[Kind]map[string]bool{}, indexes: map[string]*Index{}, docs: map[string][]string{}, seqs: map[string]uint64{}}
	return invariant.Check(ctx, s.store, "search", func(rd kv.Reader, v *invariant.Violations) error {
		c.v = v
		for _, kind := range Kinds {
			if err := c.resources(rd, kind); err != nil {
				return err
			}
		}
		if err := c.owned(rd); err != nil {
			return err
		}
		for _, scan := range []struct {
			tag string
			fn  func(index string, r *tuple.Reader, v []byte) error
		}{
			{documentsTag, c.document},
			{"Sq", c.sequence},
			{"Sl", c.logEntry},
		} {
			prefix := tuple.New(scan.tag)
			err := v.Scan(rd, prefix, func(k, val []byte) error {
				r, err := tuple.NewReader(k, len(prefix))
				var index string
				if err == nil {
					index, err = r.Str()
				}
				if err != nil {
					return err
				}
				if c.indexes[index] == nil {
					return fmt.Errorf("belongs to index %q, which does not exist", index)
				}
				return scan.fn(index, r, val)
			})
			if err != nil {
				return err
			}
		}
		for name := range c.indexes {
			if err := s.checkDerived(rd, name, c.docs[name]); err != nil {
				v.Add("index %q: %v", name, err)
			}
		}
		return nil
	}, nil)
}

// searchChecker gathers one snapshot's indexes and their documents.
type searchChecker struct {
	defined map[Kind]map[string]bool // resource names by kind
	indexes map[string]*Index
	docs    map[string][]string // document keys by index
	seqs    map[string]uint64   // change sequences by index
	v       *invariant.Violations
}

// resources decodes every resource of kind, parsing indexes.
func (c *searchChecker) resources(rd kv.Reader, kind Kind) error {
	prefix := resourcesPrefix(kind)
	type entry struct {
		name string
		st   stored
	}
	var all []entry
	err := rd.Scan(prefix, kv.PrefixEnd(prefix), func(k, v []byte) error {
		name, err := resourceName(k, prefix)
		var st stored
		if err == nil {
			err = record.Decode(v, &st)
		}
		if err != nil {
			c.v.Add("%s %q: %v", kind.label(), k, err)
			return nil
		}
		all = append(all, entry{name, st})
		return nil
	})
	if err != nil {
		return err
	}
	c.defined[kind] = map[string]bool{}
	for _, e := range all {
		c.defined[kind][e.name] = true
		if err := e.st.loadChunks(rd, kind, e.name); err != nil {
			c.v.Add("%v", err)
			continue
		}
		res, err := e.st.resource(kind, e.name)
		if err != nil {
			c.v.Add("%v", err)
			continue
		}
		if kind != Indexes {
			continue
		}
		ix, err := ParseIndex(res.Definition)
		if err != nil {
			c.v.Add("index %q: stored definition does not parse: %v", e.name, err)
			continue
		}
		c.indexes[e.name] = ix
	}
	return nil
}

// owned checks that the keys a resource owns besides its record (the
// chunks of a large definition, an indexer's run state) belong to a
// resource that exists: deleting one deletes them with it.
func (c *searchChecker) owned(rd kv.Reader) error {
	chunks := tuple.New(keyspace.SearchResourceChunks)
	err := c.v.Scan(rd, chunks, func(k, _ []byte) error {
		r, err := tuple.NewReader(k, len(chunks))
		var kind, name string
		if err == nil {
			kind, err = r.Str()
		}
		if err == nil {
			name, err = r.Str()
		}
		if err != nil {
			return err
		}
		if !c.defined[Kind(kind)][name] {
			return fmt.Errorf("a definition chunk of %s %q, which does not exist", Kind(kind).label(), name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	states := tuple.New(keyspace.SearchIndexerStates)
	return c.v.Scan(rd, states, func(k, _ []byte) error {
		r, err := tuple.NewReader(k, len(states))
		var name string
		if err == nil {
			name, err = r.Str()
		}
		if err != nil {
			return err
		}
		if !c.defined[Indexers][name] {
			return fmt.Errorf("run state of indexer %q, which does not exist", name)
		}
		return nil
	})
}

// document checks one stored document of index.
func (c *searchChecker) document(index string, r *tuple.Reader, v []byte) error {
	key, err := r.Str()
	if err != nil {
		return err
	}
	doc, err := decodeDocument(v)
	if err != nil {
		return fmt.Errorf("document %q of index %q does not decode: %w", key, index, err)
	}
	if ix := c.indexes[index]; ix.Key != nil && doc[ix.Key.Name] != key {
		c.v.Add("document %q of index %q holds %v in its key field %q", key, index, doc[ix.Key.Name], ix.Key.Name)
	}
	c.docs[index] = append(c.docs[index], key)
	return nil
}

// sequence reads an index's change sequence (its log entries follow).
func (c *searchChecker) sequence(index string, _ *tuple.Reader, v []byte) error {
	if len(v) != 8 {
		return fmt.Errorf("change sequence of index %q: %d bytes", index, len(v))
	}
	c.seqs[index] = binary.BigEndian.Uint64(v)
	return nil
}

// logEntry checks one change log entry against its index's sequence.
func (c *searchChecker) logEntry(index string, r *tuple.Reader, _ []byte) error {
	seq, err := r.Uint()
	if err != nil {
		return err
	}
	if _, err := r.Str(); err != nil {
		return err
	}
	if seq > c.seqs[index] {
		c.v.Add("index %q: change log entry %d is past the change sequence %d", index, seq, c.seqs[index])
	}
	return nil
}

// checkDerived catches index's bleve index up to rd, as a query does, and
// compares its documents with keys, the documents of rd.
func (s *Service) checkDerived(rd kv.Reader, index string, keys []string) error {
	q, release, err := s.open(rd, index)
	if errors.Is(err, errStaleSnapshot) {
		// A query caught the index up past this snapshot meanwhile;
		// it cannot be compared with this snapshot's documents.
		return nil
	}
	if err != nil {
		return fmt.Errorf("catch up: %w", err)
	}
	defer release()
	n, err := q.d.bi.DocCount()
	if err != nil {
		return fmt.Errorf("count bleve documents: %w", err)
	}
	if n != uint64(len(keys)) {
		return fmt.Errorf("the caught-up bleve index holds %d documents, the store %d", n, len(keys))
	}
	if len(keys) == 0 {
		return nil
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDocIDQuery(keys), 0, 0, false)
	res, err := q.d.bi.Search(req)
	if err != nil {
		return fmt.Errorf("look up documents in bleve: %w", err)
	}
	if res.Total != uint64(len(keys)) {
		return fmt.Errorf("the caught-up bleve index finds %d of the store's %d documents", res.Total, len(keys))
	}
	return nil
}
