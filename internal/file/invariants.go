package file

import "context"

// CheckInvariants verifies the shares, directory trees, file extents,
// open handles and locks in the service's store (the package function
// CheckInvariants, on one snapshot). Run it on a quiet store.
func (s *Service) CheckInvariants(ctx context.Context) error {
	return CheckInvariants(ctx, s.store)
}
