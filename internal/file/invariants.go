package file

import "context"

// CheckInvariants verifies the shares, directory trees, file extents,
// open handles and locks in the service's store (the package function
// CheckInvariants, on one snapshot). Run it on a quiet store. A store of
// an earlier layout is upgraded first, as the service's first operation
// would.
func (s *Service) CheckInvariants(ctx context.Context) error {
	if err := s.ready(ctx); err != nil {
		return err
	}
	return CheckInvariants(ctx, s.store)
}
