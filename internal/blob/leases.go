package blob

import (
	"context"
	"errors"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// leaseError maps the lease state machine's errors to Azure's, which name
// the kind of resource for checks made by other operations.
func leaseError(err error, container bool) error {
	pick := func(forContainer, forBlob *azhttp.Error) error {
		if container {
			return forContainer
		}
		return forBlob
	}
	switch {
	case errors.Is(err, lease.ErrIDMissing):
		return azhttp.ErrLeaseIdMissing
	case errors.Is(err, lease.ErrIDMismatch):
		return pick(azhttp.ErrLeaseIdMismatchWithContainerOperation, azhttp.ErrLeaseIdMismatchWithBlobOperation)
	case errors.Is(err, lease.ErrNotPresent):
		return pick(azhttp.ErrLeaseNotPresentWithContainerOperation, azhttp.ErrLeaseNotPresentWithBlobOperation)
	case errors.Is(err, lease.ErrAlreadyPresent):
		return azhttp.ErrLeaseAlreadyPresent
	case errors.Is(err, lease.ErrNotPresentWithLeaseOp):
		return azhttp.ErrLeaseNotPresentWithLeaseOperation
	case errors.Is(err, lease.ErrIDMismatchWithLeaseOp):
		return azhttp.ErrLeaseIdMismatchWithLeaseOperation
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
// resource's ETag version and Last-Modified, which leasing leaves alone.
type LeaseOutcome struct {
	lease.Result
	Version  uint64
	Modified time.Time
}

// LeaseBlob runs a lease operation on a blob. Leasing never changes the
// blob's ETag or Last-Modified.
func (s *Service) LeaseBlob(ctx context.Context, acct, container, name string, req lease.Request, cond conditions.Conditions) (*LeaseOutcome, error) {
	var out *LeaseOutcome
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		b, err := findBlob(tx, acct, container, name, "")
		if err != nil {
			return err
		}
		if err := check(cond, conditions.Write, b.state(), azhttp.ErrConditionNotMet); err != nil {
			return err
		}
		next, res, err := b.Lease.Apply(s.clock(), req, lease.NewID)
		if err != nil {
			return leaseError(err, false)
		}
		b.Lease = next
		out = &LeaseOutcome{Result: res, Version: b.Version, Modified: b.Modified}
		return record.Store(tx, blobKey(acct, container, name), b)
	})
	return out, err
}

// LeaseContainer runs a lease operation on a container.
func (s *Service) LeaseContainer(ctx context.Context, acct, name string, req lease.Request, cond conditions.Conditions) (*LeaseOutcome, error) {
	var out *LeaseOutcome
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		c, err := loadContainer(tx, acct, name)
		if err != nil {
			return err
		}
		if err := check(cond, conditions.Write, c.state(), azhttp.ErrConditionNotMet); err != nil {
			return err
		}
		next, res, err := c.Lease.Apply(s.clock(), req, lease.NewID)
		if err != nil {
			return leaseError(err, true)
		}
		c.Lease = next
		out = &LeaseOutcome{Result: res, Version: c.Version, Modified: c.Modified}
		return record.Store(tx, containerKey(acct, name), c)
	})
	return out, err
}
