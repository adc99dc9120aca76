package smb

import (
	"errors"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/file"
)

// NTSTATUS values this server answers (MS-ERREF 2.3.1).
const (
	statusSuccess                uint32 = 0x00000000
	statusPending                uint32 = 0x00000103
	statusBufferOverflow         uint32 = 0x80000005
	statusNoMoreFiles            uint32 = 0x80000006
	statusNotImplemented         uint32 = 0xC0000002
	statusInvalidInfoClass       uint32 = 0xC0000003
	statusInfoLengthMismatch     uint32 = 0xC0000004
	statusInvalidHandle          uint32 = 0xC0000008
	statusInvalidParameter       uint32 = 0xC000000D
	statusNoSuchFile             uint32 = 0xC000000F
	statusInvalidDeviceRequest   uint32 = 0xC0000010
	statusEndOfFile              uint32 = 0xC0000011
	statusMoreProcessingRequired uint32 = 0xC0000016
	statusAccessDenied           uint32 = 0xC0000022
	statusBufferTooSmall         uint32 = 0xC0000023
	statusObjectNameInvalid      uint32 = 0xC0000033
	statusObjectNameNotFound     uint32 = 0xC0000034
	statusObjectNameCollision    uint32 = 0xC0000035
	statusObjectPathNotFound     uint32 = 0xC000003A
	statusSharingViolation       uint32 = 0xC0000043
	statusDeletePending          uint32 = 0xC0000056
	statusLogonFailure           uint32 = 0xC000006D
	statusRangeNotLocked         uint32 = 0xC000007E
	statusDiskFull               uint32 = 0xC000007F
	statusInsufficientResources  uint32 = 0xC000009A
	statusFileIsADirectory       uint32 = 0xC00000BA
	statusNotSupported           uint32 = 0xC00000BB
	statusNetworkNameDeleted     uint32 = 0xC00000C9
	statusBadNetworkName         uint32 = 0xC00000CC
	statusRequestNotAccepted     uint32 = 0xC00000D0
	statusInternalError          uint32 = 0xC00000E5
	statusDirectoryNotEmpty      uint32 = 0xC0000101
	statusNotADirectory          uint32 = 0xC0000103
	statusCancelled              uint32 = 0xC0000120
	statusCannotDelete           uint32 = 0xC0000121
	statusFileClosed             uint32 = 0xC0000128
	statusUserSessionDeleted     uint32 = 0xC0000203
	statusNotFound               uint32 = 0xC0000225
	statusFileLockConflict       uint32 = 0xC0000054
	statusLockNotGranted         uint32 = 0xC0000055
	statusNetworkSessionExpired  uint32 = 0xC000035C
	statusInvalidOplockProtocol  uint32 = 0xC00000E3
	statusBadImpersonationLevel  uint32 = 0xC00000A5
	statusInvalidSecurityDescr   uint32 = 0xC0000079
)

// statusOf maps an error of the file model to the NTSTATUS Windows
// answers for the same condition. It is the one place where domain
// errors meet the wire; what it does not know is STATUS_INTERNAL_ERROR
// (and logged by the caller).
func statusOf(err error) (uint32, bool) {
	var se *azerr.Error
	switch {
	case err == nil:
		return statusSuccess, true
	case errors.Is(err, file.ErrHandleClosed):
		return statusFileClosed, true
	case errors.Is(err, file.ErrNotDirectory):
		return statusNotADirectory, true
	case errors.Is(err, file.ErrIsDirectory):
		return statusFileIsADirectory, true
	case errors.Is(err, file.ErrOpenBeneath):
		return statusAccessDenied, true
	case errors.As(err, &se):
		if st, ok := storageStatus[se.Code]; ok {
			return st, true
		}
	}
	if st, ok := lockStatus(err); ok {
		return st, true
	}
	switch azerr.ClassifyStore(err) {
	case azerr.StoreBusy, azerr.StoreTimedOut, azerr.StoreClosed:
		// Windows answers a server too busy to finish with this; SMB
		// clients retry it.
		return statusInsufficientResources, true
	case azerr.StoreTooLarge, azerr.StoreFull:
		return statusDiskFull, true
	case azerr.RequestCanceled:
		return statusCancelled, true
	}
	return statusInternalError, false
}

// storageStatus maps the file model's Azure error codes.
var storageStatus = map[string]uint32{
	"FileLockConflict":                   statusFileLockConflict,
	"SharingViolation":                   statusSharingViolation,
	"DeletePending":                      statusDeletePending,
	"SMBDeletePending":                   statusDeletePending,
	"ReadOnlyAttribute":                  statusAccessDenied,
	"ResourceNotFound":                   statusObjectNameNotFound,
	"ParentNotFound":                     statusObjectPathNotFound,
	"ShareNotFound":                      statusNetworkNameDeleted,
	"ResourceAlreadyExists":              statusObjectNameCollision,
	"ResourceTypeMismatch":               statusObjectNameCollision,
	"DirectoryNotEmpty":                  statusDirectoryNotEmpty,
	"InvalidInput":                       statusInvalidParameter,
	"OutOfRangeInput":                    statusInvalidParameter,
	"InvalidResourceName":                statusObjectNameInvalid,
	"InvalidRange":                       statusInvalidParameter,
	"LeaseIdMissing":                     statusSharingViolation,
	"ShareSnapshotOperationNotSupported": statusAccessDenied,
	"OperationTimedOut":                  statusRequestNotAccepted,
	"ServerBusy":                         statusInsufficientResources,
	"ShareSizeLimitReached":              statusDiskFull,
}
