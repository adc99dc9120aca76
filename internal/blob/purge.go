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
// as gone; this frees their space. It also finishes the moves of deleted
// or restored containers that a crash interrupted (run it at start-up).
func (s *Service) PurgeExpired(ctx context.Context) (int, error) {
	if s.accounts == nil {
		return 0, nil // no accounts, nothing stored
	}
	now := s.clock()
	var points []expiredPoint
	var containers []retiredRef
	err := s.store.View(ctx, func(r kv.Reader) error {
		points, containers = nil, nil
		for _, acct := range s.accounts.Names() {
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
			p := retiredPrefix(acct)
			err := r.Scan(p, kv.PrefixEnd(p), func(k, v []byte) error {
				var rc retiredContainer
				if err := record.Decode(v, &rc); err != nil {
					return err
				}
				if !now.Before(rc.Purge) || rc.State != retiredAtRest {
					ref := retiredRef{acct: acct, expired: !now.Before(rc.Purge)}
					var err error
					if ref.name, ref.version, err = twoNames(k, len(p)); err != nil {
						return err
					}
					containers = append(containers, ref)
				}
				return nil
			})
			if err != nil {
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
		// An interrupted move is finished whether or not it expired.
		if err := s.finishMoves(ctx, c.acct, c.name); err != nil {
			return n, err
		}
		if !c.expired {
			continue
		}
		purged, err := s.purgeRetired(ctx, c.acct, c.name, c.version)
		if err != nil {
			return n, err
		}
		if purged {
			n++
		}
	}
	return n, nil
}

// retiredRef names a retired container generation PurgeExpired acts on.
type retiredRef struct {
	acct, name, version string
	expired             bool
}

// twoNames decodes the two string elements at offset skip of key.
func twoNames(key []byte, skip int) (a, b string, err error) {
	rd, err := tuple.NewReader(key, skip)
	if err != nil {
		return "", "", err
	}
	if a, err = rd.Str(); err != nil {
		return "", "", err
	}
	b, err = rd.Str()
	return a, b, err
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
