package azerr

import "net/http"

// Blob Batch errors, reported inside the batch response (202) in a part
// without a Content-ID, as Azure reports a batch it refuses as a whole.
var (
	ErrExceedsMaxBatchRequestCount        = newError(http.StatusBadRequest, "ExceedsMaxBatchRequestCount", "The batch operation exceeds maximum number of allowed subrequests.")
	ErrAllBatchSubRequestsShouldBeSameApi = newError(http.StatusBadRequest, "AllBatchSubRequestsShouldBeSameApi", "All batch subrequests should be the same api.")
)

// ErrHierarchicalNamespaceNotEnabled answers operations Azure offers only
// on accounts with a hierarchical namespace (Set Blob Expiry) when the
// account has none, as every cerulean account does.
var ErrHierarchicalNamespaceNotEnabled = newError(http.StatusBadRequest, "HierarchicalNamespaceNotEnabled", "This operation is only supported on a hierarchical namespace account.")
