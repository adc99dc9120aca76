package file

import (
	"context"
	"errors"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// errLeaseIDMissing is how Azure Files answers a write without the lease
// ID of a leased file: the code names the lease as absent from the
// request.
var errLeaseIDMissing = azhttp.ErrLeaseNotPresentWithFileOperation.WithMessage("There is currently a lease on the file and no lease ID was specified in the request.")

// leaseError maps the lease state machine's errors to Azure Files' codes.
func leaseError(err error) error {
	switch {
	case errors.Is(err, lease.ErrIDMissing):
		return errLeaseIDMissing
	case errors.Is(err, lease.ErrIDMismatch):
		return azhttp.ErrLeaseIdMismatchWithFileOperation
	case errors.Is(err, lease.ErrNotPresent):
		return azhttp.ErrLeaseNotPresentWithFileOperation
	case errors.Is(err, lease.ErrAlreadyPresent):
		return azhttp.ErrLeaseAlreadyPresent
	case errors.Is(err, lease.ErrNotPresentWithLeaseOp):
		return azhttp.ErrLeaseNotPresentWithLeaseOperation.WithMessage("There is currently no lease on the file.")
	case errors.Is(err, lease.ErrIDMismatchWithLeaseOp):
		return azhttp.ErrLeaseIdMismatchWithLeaseOperation.WithMessage("The lease ID specified did not match the lease ID for the file.")
	case errors.Is(err, lease.ErrBreakingCannotAcquire):
		return azhttp.ErrLeaseIsBreakingAndCannotBeAcquired
	case errors.Is(err, lease.ErrBreakingCannotChange):
		return azhttp.ErrLeaseIsBreakingAndCannotBeChanged
	case errors.Is(err, lease.ErrBrokenCannotBeRenewed):
		return azhttp.ErrLeaseIsBrokenAndCannotBeRenewed
	case errors.Is(err, lease.ErrInvalidDuration), errors.Is(err, lease.ErrInvalidBreakPeriod), errors.Is(err, lease.ErrInvalidProposedID):
		return azhttp.ErrInvalidHeaderValue.WithMessage("The value for one of the HTTP headers is not in the correct format: %v.", err)
	}
	return err
}

// LeaseOutcome is what a lease operation answers: its result and the
// file's ETag version and Last-Modified, which leasing leaves alone.
type LeaseOutcome struct {
	lease.Result
	Version  uint64
	Modified time.Time
}

// LeaseFile runs a lease operation on a file. File leases are infinite
// and break at once: an acquire's duration is always lease.Infinite and a
// break takes no period. Leasing never changes the file's ETag or
// Last-Modified.
func (s *Service) LeaseFile(ctx context.Context, acct, share, path string, req lease.Request) (*LeaseOutcome, error) {
	req.Duration, req.BreakPeriod = lease.Infinite, nil
	var out *LeaseOutcome
	err := s.Update(ctx, func(t *Tx) error {
		l, err := t.locate(acct, share, path)
		if err != nil {
			return err
		}
		if l.node == nil || l.node.Dir {
			return azhttp.ErrResourceNotFound
		}
		n := l.node
		next, res, err := n.Lease.Apply(t.now, req, lease.NewID)
		if err != nil {
			return leaseError(err)
		}
		n.Lease = next
		out = &LeaseOutcome{Result: res, Version: n.Version, Modified: n.Modified}
		return record.Store(t.tx, l.key, n)
	})
	return out, err
}
