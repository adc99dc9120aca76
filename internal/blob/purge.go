package blob

import (
	"context"
	"errors"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// expiredPoint is a soft-deleted snapshot or version whose retention has
// passed.
type expiredPoint struct{ acct, container, name, point string }

// PurgeExpired removes for good the soft-deleted snapshots, versions,
// blobs and containers whose retention has passed, each in its own
// transaction, and reports how many it removed. Reads already treat them
// as gone; this frees their space.
func (s *Service) PurgeExpired(ctx context.Context) (int, error) {
	now := s.clock()
	var points []expiredPoint
	var containers [][2]string
	err := s.store.View(ctx, func(r kv.Reader) error {
		points, containers = nil, nil
		for _, acct := range s.accounts.Names() {
			for _, fam := range []struct {
				tag     string
				version bool
			}{{"n", false}, {"v", true}} {
				p := accountKey(acct).Raw(fam.tag)
				var failed error
				err := r.Scan(p, kv.PrefixEnd(p), func(k, v []byte) bool {
					var b Blob
					if failed = record.Decode(v, &b); failed != nil {
						return false
					}
					if b.Deleted.IsZero() || !expired(&b, now) {
						return true
					}
					var e expiredPoint
					e.acct = acct
					e.container, e.name, e.point, failed = threeNames(k, len(p))
					if fam.version {
						e.point = versionPoint(e.point)
					}
					points = append(points, e)
					return failed == nil
				})
				if err := errors.Join(err, failed); err != nil {
					return err
				}
			}
			p := retiredPrefix(acct)
			var failed error
			err := r.Scan(p, kv.PrefixEnd(p), func(k, v []byte) bool {
				var rc retiredContainer
				if failed = record.Decode(v, &rc); failed != nil {
					return false
				}
				if !now.Before(rc.Purge) {
					var name string
					name, failed = nameAfter(k, len(p))
					containers = append(containers, [2]string{acct, name})
				}
				return failed == nil
			})
			if err := errors.Join(err, failed); err != nil {
				return err
			}
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
	for _, c := range containers {
		err := s.Update(ctx, func(t *Tx) error {
			var rc retiredContainer
			found, err := record.Load(t.r, retiredKey(c[0], c[1]), &rc)
			if err != nil || !found || t.now.Before(rc.Purge) {
				return err
			}
			n++
			return endRetired(t.tx, c[0], c[1])
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
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
