package file

import (
	"context"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// LeaseFile runs a lease operation on a file. File leases are infinite
// and break at once: an acquire's duration is always lease.Infinite and a
// break takes no period. Leasing never changes the file's ETag or
// Last-Modified.
func (s *Service) LeaseFile(ctx context.Context, ref Ref, req lease.Request) (*lease.Outcome, error) {
	acct, share, path := ref.Account, ref.Share, ref.Path
	req.Duration, req.BreakPeriod = lease.Infinite, nil
	var out *lease.Outcome
	err := s.Update(ctx, func(t *Tx) error {
		l, err := t.locate(acct, share, path)
		if err != nil {
			return err
		}
		if l.node == nil || l.node.Dir {
			return azerr.ErrResourceNotFound
		}
		if l.node.DeletePending {
			return azerr.ErrDeletePending
		}
		// Acquiring takes write and delete access and shares only reads
		// (https://learn.microsoft.com/rest/api/storageservices/managing-file-locks).
		if req.Action == lease.Acquire {
			if err := t.checkUse(acct, share, l.node, useLease); err != nil {
				return err
			}
		}
		n := l.node
		next, res, err := n.Lease.Apply(t.now, req, lease.NewID)
		if err != nil {
			return azerr.LeaseError(err, azerr.FileLeaseCodes)
		}
		n.Lease = next
		out = &lease.Outcome{Result: res, Version: n.Version, Modified: n.Modified}
		return record.Store(t.tx, l.key, n)
	})
	return out, err
}
