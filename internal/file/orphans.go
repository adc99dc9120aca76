package file

import (
	"context"
	"errors"
	"time"

	"github.com/cerulean-db/cerulean/internal/background"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// orphan is an open handle found by the sweep.
type orphan struct {
	acct, share    string
	fileID, handle uint64
}

// SweepOrphanHandles closes the handles whose process is gone, as their
// clients would have closed them had they been able to: delete-on-close
// applies and their byte-range locks are released. With UseProcesses,
// those are the handles of processes whose liveness record expired;
// without it, every handle, which is right at the start of a process that
// has the store to itself (no SMB session survives a restart). It returns
// how many it closed.
func (s *Service) SweepOrphanHandles(ctx context.Context) (int, error) {
	var found []orphan
	err := s.viewStore(ctx, func(r kv.Reader) error {
		for _, acct := range s.accounts.Names() {
			err := record.Each(r, accountKey(acct).Raw("h"), func(rd *tuple.Reader, h *Handle) error {
				share, err := rd.Str()
				if err != nil {
					return err
				}
				if s.processes != nil {
					if alive, err := s.processes.Alive(r, h.Owner); err != nil || alive {
						return err
					}
				}
				found = append(found, orphan{acct, share, h.FileID, h.ID})
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
	closed := 0
	for _, o := range found {
		err := s.Update(ctx, func(t *Tx) error {
			return t.CloseHandle(HandleRef{Account: o.acct, Share: o.share, FileID: o.fileID, HandleID: o.handle})
		})
		switch {
		case errors.Is(err, ErrHandleClosed):
			// Closed meanwhile by its client or another sweep.
		case err != nil:
			return closed, err
		default:
			closed++
		}
	}
	if closed > 0 {
		s.log.Info("closed open handles whose server process is gone", "count", closed)
	}
	return closed, nil
}

// StartSweeper runs SweepOrphanHandles and CollectGarbage every interval
// until the returned stop is called.
func (s *Service) StartSweeper(interval time.Duration) (stop func()) {
	return background.Every(interval, s.log, "orphan handle sweep", func(ctx context.Context) (int, error) {
		n, err := s.SweepOrphanHandles(ctx)
		if err != nil {
			return n, err
		}
		_, err = s.CollectGarbage(ctx)
		return n, err
	})
}

// CollectGarbage deletes the data of deleted files and shares that a
// crash or a failure left registered (see extentstore.DropObjects).
func (s *Service) CollectGarbage(ctx context.Context) (int, error) {
	return s.content.CollectGarbage(ctx)
}
