package azerr

import "net/http"

// CannotVerifyCopySource is Azure's answer when the source of a copy or
// *From URL operation could not be read: the code is CannotVerifyCopySource,
// the status and message those the source's own GET answered (404 for a
// missing blob, 403 for a refused SAS, 304 for a source the conditions
// rule out).
func CannotVerifyCopySource(source *Error) *Error {
	e := *ErrCannotVerifyCopySource
	if source != nil {
		e.Status, e.Message = source.Status, source.Message
	}
	return &e
}

// Incremental Copy Blob's errors.
var (
	ErrIncrementalCopySourceMustBeSnapshot        = newError(http.StatusConflict, "IncrementalCopySourceMustBeSnapshot", "The source for incremental copy request must be a snapshot.")
	ErrIncrementalCopyBlobMismatch                = newError(http.StatusConflict, "IncrementalCopyBlobMismatch", "The specified source blob is different than the copy source of the destination blob.")
	ErrIncrementalCopyOfEarlierSnapshotNotAllowed = newError(http.StatusConflict, "IncrementalCopyOfEarlierSnapshotNotAllowed", "The specified snapshot is earlier than the last snapshot copied into the incremental copy blob.")
)
