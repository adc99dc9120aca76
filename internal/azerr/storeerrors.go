package azerr

import (
	"context"
	"errors"
	"net/http"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// StoreFailure classifies an error that came from the store or the
// request's lifetime rather than from a service rule. Every wire protocol
// maps each class once: Storage (XML and Table JSON) in StoreError, Cosmos
// in its own error table.
type StoreFailure int

const (
	// NotAStoreFailure: the error is a service's own (or unknown).
	NotAStoreFailure StoreFailure = iota
	// StoreBusy: a transaction lost every retry to concurrent commits.
	StoreBusy
	// StoreTimedOut: a transaction ran past the store's time limit.
	StoreTimedOut
	// StoreTooLarge: a key, value or transaction is over the store's size
	// limits. Services split records so that requests Azure accepts never
	// get here; this is the answer of last resort.
	StoreTooLarge
	// StoreClosed: the server is shutting down.
	StoreClosed
	// StoreFull: the data volume is nearly full; writes are refused until
	// space is freed (reads and deletions go on).
	StoreFull
	// RequestCanceled: the client went away (or its deadline passed).
	RequestCanceled
)

// ClassifyStore says which StoreFailure err is, looking through wrapping.
func ClassifyStore(err error) StoreFailure {
	switch {
	case err == nil:
		return NotAStoreFailure
	case errors.Is(err, kv.ErrConflict):
		return StoreBusy
	case errors.Is(err, kv.ErrTxnTooOld):
		return StoreTimedOut
	case errors.Is(err, kv.ErrTooLarge):
		return StoreTooLarge
	case errors.Is(err, kv.ErrClosed):
		return StoreClosed
	case errors.Is(err, kv.ErrNoSpace):
		return StoreFull
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return RequestCanceled
	}
	return NotAStoreFailure
}

// Storage-protocol answers to store failures.
var (
	errStoreTooLarge = newError(http.StatusRequestEntityTooLarge, "RequestBodyTooLarge",
		"The request writes more than one transaction of this server may hold; see the Limits section of cerulean's README.")
	errStoreClosed = newError(http.StatusServiceUnavailable, "ServerBusy",
		"The server is shutting down. Please retry your request.")
	errStoreFull = newError(http.StatusServiceUnavailable, "ServerBusy",
		"The server's data volume is nearly full: writes are refused until space is freed. Reads and deletions are served. Please retry your request later.")
)

// StoreError maps a store failure to the Storage services' Azure error
// (Blob, Queue, Table and Files all answer these alike), or returns nil
// when err is not a store failure. Azure throttles contention as 503
// ServerBusy and reports a timeout as 500 OperationTimedOut.
func StoreError(ctx context.Context, err error) *Error {
	switch ClassifyStore(err) {
	case StoreBusy:
		return ErrServerBusy
	case StoreTimedOut:
		return ErrOperationTimedOut
	case StoreTooLarge:
		return errStoreTooLarge
	case StoreClosed:
		return errStoreClosed
	case StoreFull:
		return errStoreFull
	case RequestCanceled:
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return ErrOperationTimedOut
		}
		// Usually nobody is listening; the status is still attempted.
		return ErrInternalError
	}
	return nil
}
