package blob

import (
	"context"
	"errors"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/softdelete"
)

// expiredPoint is a soft-deleted snapshot or version whose retention has
// passed.
type expiredPoint struct{ acct, container, name, point string }

// PurgeExpired removes for good the soft-deleted snapshots, versions,
// blobs and containers whose retention has passed, and the uncommitted
// blocks a week past their blob's last Put Block (blockexpiry.go), each
// in its own transaction, and reports how many it removed. Reads already treat them
// as gone; this frees their space. It also finishes the moves of deleted
// or restored containers that a crash interrupted (run it at start-up).
func (s *Service) PurgeExpired(ctx context.Context) (int, error) {
	if s.accounts == nil {
		return 0, nil // no accounts, nothing stored
	}
	now := s.clock()
	var points []expiredPoint
	var containers []softdelete.Ref
	var staged []stagedBlob
	err := s.store.View(ctx, func(r kv.Reader) error {
		points, containers, staged = nil, nil, nil
		for _, acct := range s.accounts.Names() {
			blocks, err := expiredBlocks(r, acct, now)
			if err != nil {
				return err
			}
			staged = append(staged, blocks...)
			for _, fam := range []struct {
				tag     string
				version bool
			}{{"n", false}, {"v", true}} {
				p := accountKey(acct).Raw(fam.tag)
				err := r.Scan(p, kv.PrefixEnd(p), func(k, v []byte) error {
					var b Blob
					if err := record.Decode(v, &b); err != nil {
						return err
					}
					if b.Deleted.IsZero() || !expired(&b, now) {
						return nil
					}
					e := expiredPoint{acct: acct}
					var err error
					if e.container, e.name, e.point, err = threeNames(k, len(p)); err != nil {
						return err
					}
					if fam.version {
						e.point = versionPoint(e.point)
					}
					points = append(points, e)
					return nil
				})
				if err != nil {
					return err
				}
			}
			refs, err := retiredKeys.Pending(r, acct, now)
			if err != nil {
				return err
			}
			containers = append(containers, refs...)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range points {
		err := s.Update(ctx, func(t *Tx) error {
			b, err := loadBlobAt(t.r, e.acct, e.container, e.name, e.point)
			if err != nil || b == nil || b.point != e.point || b.Deleted.IsZero() || !expired(b, t.now) {
				return err
			}
			n++
			return deleteSnapshot(t.tx, e.acct, e.container, e.name, e.point)
		})
		if err != nil {
			return n, err
		}
	}
	dropped, err := s.expireBlocks(ctx, staged)
	n += dropped
	if err != nil {
		return n, err
	}
	// An interrupted move is finished whether or not it expired.
	purged, err := s.retired().Sweep(ctx, containers, s.purgeRetired)
	return n + purged, err
}

// threeNames decodes the three string elements at offset skip of key.
func threeNames(key []byte, skip int) (a, b, c string, err error) {
	rd, err := tuple.NewReader(key, skip)
	if err != nil {
		return "", "", "", err
	}
	if a, err = rd.Str(); err != nil {
		return "", "", "", err
	}
	if b, err = rd.Str(); err != nil {
		return "", "", "", err
	}
	c, err = rd.Str()
	return a, b, c, err
}

// StartPurger runs PurgeExpired every interval until stop is called.
func (s *Service) StartPurger(interval time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			n, err := s.PurgeExpired(ctx)
			switch {
			case err != nil && ctx.Err() == nil && !errors.Is(err, kv.ErrClosed):
				s.log.Warn("blob purge failed", "err", err, "purged", n)
			case n > 0:
				s.log.Debug("blob purge", "purged", n)
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
