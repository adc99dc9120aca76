package blob

import (
	"context"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// LeaseBlob runs a lease operation on a blob, or on a blob of
// uncommitted blocks only (placeholder.go). Leasing never changes the
// blob's ETag or Last-Modified.
func (s *Service) LeaseBlob(ctx context.Context, ref Ref, req lease.Request, cond conditions.Conditions, ifTags *TagCondition) (*lease.Outcome, error) {
	acct, container, name := ref.Account, ref.Container, ref.Name
	var out *lease.Outcome
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		if err := requireContainer(tx, acct, container); err != nil {
			return err
		}
		b, err := loadBlob(tx, acct, container, name)
		if err != nil {
			return err
		}
		if b == nil {
			out, err = s.leasePlaceholder(tx, acct, container, name, req, cond, ifTags)
			return err
		}
		if !b.Deleted.IsZero() {
			return azerr.ErrBlobNotFound
		}
		if err := check(cond, conditions.Write, b.state(), azerr.ErrConditionNotMet); err != nil {
			return err
		}
		if err := checkTags(ifTags, b); err != nil {
			return err
		}
		next, res, err := b.Lease.Apply(s.clock(), req, lease.NewID)
		if err != nil {
			return azerr.LeaseError(err, azerr.BlobLeaseCodes)
		}
		b.Lease = next
		out = &lease.Outcome{Result: res, Version: b.Version, Modified: b.Modified}
		return record.Store(tx, blobKey(acct, container, name), b)
	})
	return out, err
}

// LeaseContainer runs a lease operation on a container.
func (s *Service) LeaseContainer(ctx context.Context, ref ContainerRef, req lease.Request, cond conditions.Conditions) (*lease.Outcome, error) {
	acct, name := ref.Account, ref.Container
	var out *lease.Outcome
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		c, err := loadContainer(tx, acct, name)
		if err != nil {
			return err
		}
		if err := check(cond, conditions.Write, c.state(), azerr.ErrConditionNotMet); err != nil {
			return err
		}
		next, res, err := c.Lease.Apply(s.clock(), req, lease.NewID)
		if err != nil {
			return azerr.LeaseError(err, azerr.ContainerLeaseCodes)
		}
		c.Lease = next
		out = &lease.Outcome{Result: res, Version: c.Version, Modified: c.Modified}
		return record.Store(tx, containerKey(acct, name), c)
	})
	return out, err
}
