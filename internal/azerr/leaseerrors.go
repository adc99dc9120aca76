package azerr

import (
	"errors"

	"github.com/cerulean-db/cerulean/internal/lease"
)

// LeaseCodes are the errors a kind of leased resource answers when
// another operation's lease check fails; Noun ("file"), when set, names
// the resource in the messages of failed lease operations.
type LeaseCodes struct {
	IDMissing, IDMismatch, NotPresent *Error
	Noun                              string
}

// The lease codes of each leased resource.
var (
	BlobLeaseCodes      = LeaseCodes{IDMissing: ErrLeaseIdMissing, IDMismatch: ErrLeaseIdMismatchWithBlobOperation, NotPresent: ErrLeaseNotPresentWithBlobOperation}
	ContainerLeaseCodes = LeaseCodes{IDMissing: ErrLeaseIdMissing, IDMismatch: ErrLeaseIdMismatchWithContainerOperation, NotPresent: ErrLeaseNotPresentWithContainerOperation}
	// A share is a container to the storage service underneath: its lease
	// checks answer the container codes, naming the share in the messages.
	ShareLeaseCodes = LeaseCodes{
		IDMissing:  ErrLeaseIdMissing.WithMessage("There is currently a lease on the file share and no lease ID was specified in the request."),
		IDMismatch: ErrLeaseIdMismatchWithContainerOperation.WithMessage("The lease ID specified did not match the lease ID for the file share."),
		NotPresent: ErrLeaseNotPresentWithContainerOperation.WithMessage("There is currently no lease on the file share."),
		Noun:       "file share",
	}
	// A write naming a lease on a file that has none answers
	// LeaseNotPresentWithFileOperation; one without the lease ID of a
	// leased file answers LeaseIdMissing, as for a blob (Delete File in
	// the azfile recording TestFileAcquireLease).
	FileLeaseCodes = LeaseCodes{
		IDMissing:  ErrLeaseIdMissing.WithMessage("There is currently a lease on the file and no lease ID was specified in the request."),
		IDMismatch: ErrLeaseIdMismatchWithFileOperation, NotPresent: ErrLeaseNotPresentWithFileOperation, Noun: "file",
	}
)

// LeaseError maps the lease state machine's errors to Azure's codes for
// the resource c describes; other errors pass through.
func LeaseError(err error, c LeaseCodes) error {
	switch {
	case errors.Is(err, lease.ErrIDMissing):
		return c.IDMissing
	case errors.Is(err, lease.ErrIDMismatch):
		return c.IDMismatch
	case errors.Is(err, lease.ErrNotPresent):
		return c.NotPresent
	case errors.Is(err, lease.ErrLost):
		return ErrLeaseLost
	case errors.Is(err, lease.ErrAlreadyPresent):
		return ErrLeaseAlreadyPresent
	case errors.Is(err, lease.ErrNotPresentWithLeaseOp):
		if c.Noun != "" {
			return ErrLeaseNotPresentWithLeaseOperation.WithMessage("There is currently no lease on the %s.", c.Noun)
		}
		return ErrLeaseNotPresentWithLeaseOperation
	case errors.Is(err, lease.ErrIDMismatchWithLeaseOp):
		if c.Noun != "" {
			return ErrLeaseIdMismatchWithLeaseOperation.WithMessage("The lease ID specified did not match the lease ID for the %s.", c.Noun)
		}
		return ErrLeaseIdMismatchWithLeaseOperation
	case errors.Is(err, lease.ErrBreakingCannotAcquire):
		return ErrLeaseIsBreakingAndCannotBeAcquired
	case errors.Is(err, lease.ErrBreakingCannotChange):
		return ErrLeaseIsBreakingAndCannotBeChanged
	case errors.Is(err, lease.ErrBrokenCannotBeRenewed):
		return ErrLeaseIsBrokenAndCannotBeRenewed
	case errors.Is(err, lease.ErrInvalidDuration), errors.Is(err, lease.ErrInvalidBreakPeriod), errors.Is(err, lease.ErrInvalidProposedID):
		return ErrInvalidHeaderValue.WithMessage("The value for one of the HTTP headers is not in the correct format: %v.", err)
	}
	return err
}
