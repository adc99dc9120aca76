package blob

import "context"

// CheckInvariants verifies the storage layout of every account's blobs in
// the service's store (the package function CheckInvariants, on one
// snapshot). Run it on a quiet store: an upload half-way through its
// staging is not yet consistent.
func (s *Service) CheckInvariants(ctx context.Context) error {
	return CheckInvariants(ctx, s.store.Store)
}
