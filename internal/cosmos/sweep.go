package cosmos

import (
	"context"
	"errors"
	"github.com/cerulean-db/cerulean/internal/background"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// sweepBatch is how many expired items one sweep transaction removes.
const sweepBatch = 100

// SweepExpired removes the items whose time to live has run out, as a
// request touching them would: each removal is recorded in the change
// feed as a TTL expiry (all versions and deletes mode) in its own
// transaction. Reads never wait for it: an expired item already reads as
// absent. It returns how many items it removed.
func (s *Service) SweepExpired(ctx context.Context) (int, error) {
	type found struct {
		db, coll string
		doc      map[string]any
	}
	var expired []found
	err := s.view(ctx, func(t *Tx) error {
		dbs, err := scanRecords(t.rd, databasesPrefix())
		if err != nil {
			return err
		}
		for _, d := range dbs {
			db := d.str("id")
			colls, err := scanRecords(t.rd, containersPrefix(db))
			if err != nil {
				return err
			}
			for _, cr := range colls {
				coll := cr.str("id")
				c, err := t.container(db, coll)
				if err != nil {
					return err
				}
				if def, ok := c.defaultTTL(); !ok || def == 0 {
					continue
				}
				docs, err := scanDocs(t.rd, itemsPrefix(db, coll), func(m map[string]any) bool { return c.expired(m, t.ts) }, nil)
				if err != nil {
					return err
				}
				for _, doc := range docs {
					expired = append(expired, found{db, coll, doc})
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	removed := 0
	for len(expired) > 0 {
		n := min(sweepBatch, len(expired))
		batch := expired[:n]
		expired = expired[n:]
		gone := 0
		err := s.Update(ctx, func(t *Tx) error {
			gone = 0
			for _, f := range batch {
				id, _ := f.doc["id"].(string)
				p, err := t.partition(f.db, f.coll, "", f.doc)
				if err != nil {
					return err
				}
				// get removes an expired item and records its expiry; one
				// written again meanwhile is no longer expired and stays.
				before, err := p.t.rd.Get(p.key(id))
				if errors.Is(err, kv.ErrNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				it, err := p.get(id)
				if err != nil {
					return err
				}
				if it == nil && before != nil {
					gone++
				}
			}
			return nil
		})
		// A container or database deleted meanwhile leaves nothing to do.
		if err != nil && !isNotFound(err) {
			return removed, err
		}
		removed += gone
	}
	return removed, nil
}

// StartTTLSweeper removes expired items, and then compacts the change
// logs (compaction.go), every interval until the returned stop is called.
func (s *Service) StartTTLSweeper(interval time.Duration) (stop func()) {
	return background.Every(interval, s.log, "cosmos TTL sweep", func(ctx context.Context) (int, error) {
		n, err := s.SweepExpired(ctx)
		if err != nil {
			return n, err
		}
		m, err := s.CompactChangeFeeds(ctx)
		return n + m, err
	})
}

// isNotFound reports a 404 answer, whatever its message.
func isNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == ErrNotFound.Status
}
