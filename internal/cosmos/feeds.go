package cosmos

import (
	"context"

	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// parentRID checks, in a read's snapshot, that the resource whose
// children a feed lists exists, and returns its _rid: the feed's
// ResourceID. A nil parentRID is the account's, which always exists.
type parentRID func(rd kv.Reader) (string, error)

// databaseRID is the parent of db's containers and users.
func databaseRID(db string) parentRID {
	return func(rd kv.Reader) (string, error) {
		r, err := loadDatabaseRecord(rd, db)
		if err != nil {
			return "", err
		}
		return r.str("_rid"), nil
	}
}

// containerRID is the parent of a container's scripts.
func containerRID(ref CollectionRef) parentRID {
	return func(rd kv.Reader) (string, error) {
		c, err := loadContainer(rd, ref.DB, ref.Coll)
		if err != nil {
			return "", err
		}
		return c.rid(), nil
	}
}

// listFeed returns the resources stored under prefix, in id order, read
// in one snapshot with their parent.
func (s *Service) listFeed(ctx context.Context, parent parentRID, prefix []byte) (*Feed, error) {
	var all []record
	var rid string
	err := s.store.View(ctx, func(rd kv.Reader) error {
		var err error
		if rid, err = parent.check(rd); err != nil {
			return err
		}
		all, err = scanRecords(rd, prefix)
		return err
	})
	if err != nil {
		return nil, err
	}
	return recordFeed(rid, all)
}

// queryFeed runs q over the resources stored under prefix, read in one
// snapshot with their parent.
func (s *Service) queryFeed(ctx context.Context, parent parentRID, prefix []byte, q *Query, params map[string]any) (*Feed, error) {
	var docs []map[string]any
	var rid string
	err := s.store.View(ctx, func(rd kv.Reader) error {
		var err error
		if rid, err = parent.check(rd); err != nil {
			return err
		}
		docs, err = scanDocs(rd, prefix, nil, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	res, err := q.run(docs, params)
	if err != nil {
		return nil, err
	}
	return &Feed{ResourceID: rid, Items: res}, nil
}

func (p parentRID) check(rd kv.Reader) (string, error) {
	if p == nil {
		return "", nil
	}
	return p(rd)
}

// readRecord loads a resource's record in one snapshot and checks a
// read's conditions (a matching IfNoneMatch is ErrNotModified) on it.
func (s *Service) readRecord(ctx context.Context, pre Preconditions, load func(kv.Reader) (record, error)) (record, error) {
	var r record
	err := s.store.View(ctx, func(rd kv.Reader) error {
		var err error
		r, err = load(rd)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := pre.check(conditions.Read, true, r.str("_etag")); err != nil {
		return nil, err
	}
	return r, nil
}
