package search

import (
	"context"
	"errors"
	"fmt"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// IndexStats are an index's statistics: its documents as stored in kv.
type IndexStats struct {
	DocumentCount int64
	// StorageSize is the bytes of the index's stored documents.
	StorageSize int64
	// VectorIndexSize is the bytes of vector data; vectors live inside
	// the stored documents, so it is counted there.
	VectorIndexSize int64
}

// IndexStats counts an index's documents (an alias names its index).
func (s *Service) IndexStats(ctx context.Context, name string) (IndexStats, error) {
	var st IndexStats
	err := s.store.View(ctx, func(rd kv.Reader) error {
		ix, err := s.resolveIndex(rd, name)
		if err != nil {
			return err
		}
		st, err = countDocuments(rd, ix.Name)
		return err
	})
	return st, err
}

func countDocuments(rd kv.Reader, index string) (IndexStats, error) {
	var st IndexStats
	prefix := documentsPrefix(index)
	err := rd.Scan(prefix, kv.PrefixEnd(prefix), func(key, value []byte) error {
		st.DocumentCount++
		st.StorageSize += int64(len(key) + len(value))
		return nil
	})
	return st, err
}

// ResolveIndex returns the index a name denotes: the index itself, or the
// index an alias of that name maps to. Document operations accept either.
func (s *Service) ResolveIndex(ctx context.Context, name string) (*Resource, error) {
	var res *Resource
	err := s.store.View(ctx, func(rd kv.Reader) error {
		var err error
		res, err = s.resolveIndex(rd, name)
		return err
	})
	return res, err
}

func (s *Service) resolveIndex(rd kv.Reader, name string) (*Resource, error) {
	res, err := s.load(rd, Indexes, name)
	if !errors.Is(err, ErrNotFound) {
		return res, err
	}
	alias, aerr := s.load(rd, Aliases, name)
	if aerr != nil {
		return nil, err // the index's 404
	}
	a, ok := alias.Definition.(*Alias)
	if !ok || len(a.Indexes) != 1 {
		return nil, err
	}
	return s.load(rd, Indexes, a.Indexes[0])
}

// IndexStatsSummary is every index's statistics, by name, read on one
// snapshot, in name order.
func (s *Service) IndexStatsSummary(ctx context.Context) ([]NamedIndexStats, error) {
	var out []NamedIndexStats
	err := s.store.View(ctx, func(rd kv.Reader) error {
		out = nil
		prefix := resourcesPrefix(Indexes)
		var names []string
		if err := rd.Scan(prefix, kv.PrefixEnd(prefix), func(key, _ []byte) error {
			name, err := resourceName(key, prefix)
			names = append(names, name)
			return err
		}); err != nil {
			return err
		}
		for _, n := range names {
			st, err := countDocuments(rd, n)
			if err != nil {
				return err
			}
			out = append(out, NamedIndexStats{Name: n, IndexStats: st})
		}
		return nil
	})
	return out, err
}

// NamedIndexStats are one index's statistics and its name.
type NamedIndexStats struct {
	Name string
	IndexStats
}

// ServiceStats are the service's counters: resources of each kind,
// documents and storage over every index.
type ServiceStats struct {
	// Counts holds how many resources of each kind exist.
	Counts          map[Kind]int64
	DocumentCount   int64
	StorageSize     int64
	VectorIndexSize int64
}

// ServiceStats counts every resource and document on one snapshot.
func (s *Service) ServiceStats(ctx context.Context) (ServiceStats, error) {
	var st ServiceStats
	err := s.store.View(ctx, func(rd kv.Reader) error {
		st = ServiceStats{Counts: map[Kind]int64{}}
		for _, k := range Kinds {
			prefix := resourcesPrefix(k)
			var names []string
			if err := rd.Scan(prefix, kv.PrefixEnd(prefix), func(key, _ []byte) error {
				st.Counts[k]++
				if k == Indexes {
					name, err := resourceName(key, prefix)
					if err != nil {
						return err
					}
					names = append(names, name)
				}
				return nil
			}); err != nil {
				return err
			}
			for _, n := range names {
				ix, err := countDocuments(rd, n)
				if err != nil {
					return err
				}
				st.DocumentCount += ix.DocumentCount
				st.StorageSize += ix.StorageSize
			}
		}
		return nil
	})
	return st, err
}

// IndexIn loads and parses the index a name denotes (an alias names its
// index) on rd, so that a caller's transaction (a document batch) reads
// the definition it writes against and conflicts with a concurrent change
// of it. A missing index is a 404 Error.
func (s *Service) IndexIn(rd kv.Reader, name string) (*Index, error) {
	res, err := s.resolveIndex(rd, name)
	if err != nil {
		return nil, err
	}
	ix, err := ParseIndex(res.Definition)
	if err != nil {
		return nil, fmt.Errorf("parse stored index %q: %w", res.Name, err)
	}
	return ix, nil
}
