package cosmos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// Error is a Cosmos DB error: an HTTP status and the code and message of
// the JSON body {"code":…,"message":…}. Domain operations return it (or
// the kv store's errors) and the handler writes it as is.
type Error struct {
	Status  int
	Code    string
	Message string
	// AdditionalErrorInfo, when set, goes in the body's
	// "additionalErrorInfo" (the query plan of a cross-partition query the
	// gateway does not serve, which SDKs look for).
	AdditionalErrorInfo string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// HTTPStatus is the error's status, which a script sees as the number of
// a failed operation's error (err.number).
func (e *Error) HTTPStatus() int { return e.Status }

// Is reports whether target is an *Error with the same status and code, so
// that an error with its own message still matches its sentinel
// (errors.Is(err, ErrNotFound)).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Status == e.Status && t.Code == e.Code
}

// Sentinels to match domain errors against with errors.Is; the errors
// returned carry their own messages.
var (
	// ErrBadRequest: the input is invalid (an id, a document, a partition
	// key, a query, a patch).
	ErrBadRequest = &Error{Status: http.StatusBadRequest, Code: "BadRequest"}
	// ErrNotFound: the database, container or item does not exist.
	ErrNotFound = &Error{Status: http.StatusNotFound, Code: "NotFound"}
	// ErrConflict: the id, or a unique key's values, are already taken.
	ErrConflict = &Error{Status: http.StatusConflict, Code: "Conflict"}
	// ErrPreconditionFailed: an If-Match / If-None-Match condition of a
	// write (or If-Match of a read), or a patch condition, failed.
	ErrPreconditionFailed = &Error{Status: http.StatusPreconditionFailed, Code: "PreconditionFailed"}
	// ErrNotModified: a read's If-None-Match matched.
	ErrNotModified = &Error{Status: http.StatusNotModified, Code: "NotModified"}
	// ErrTooLarge: an item or request exceeds what the store holds.
	ErrTooLarge = &Error{Status: http.StatusRequestEntityTooLarge, Code: "RequestEntityTooLarge"}
	// ErrFailedDependency marks the operations of a transactional batch
	// that were not applied because another one failed.
	ErrFailedDependency = &Error{Status: http.StatusFailedDependency, Code: "FailedDependency"}
)

func newError(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *Error {
	return newError(http.StatusBadRequest, "BadRequest", format, args...)
}

func notFound(format string, args ...any) *Error {
	return newError(http.StatusNotFound, "NotFound", format, args...)
}

func conflict(format string, args ...any) *Error {
	return newError(http.StatusConflict, "Conflict", format, args...)
}

func preconditionFailed() *Error {
	return newError(http.StatusPreconditionFailed, "PreconditionFailed",
		"Operation cannot be performed because one of the specified precondition is not met.")
}

func unauthorized(format string, args ...any) *Error {
	return newError(http.StatusUnauthorized, "Unauthorized", format, args...)
}

func tooLarge(format string, args ...any) *Error {
	return newError(http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", format, args...)
}

// unsupported answers a feature cerulean does not serve, the way Cosmos DB
// answers a request it cannot serve: 400 BadRequest.
func unsupported(what string) *Error {
	return badRequest("%s is not supported by cerulean", what)
}

// resolve maps any error to a Cosmos error; unknown errors are logged and
// become 500 so that internals never leak.
func (h *handler) resolve(r *http.Request, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var ae *azerr.Error
	if errors.As(err, &ae) {
		return &Error{Status: ae.Status, Code: ae.Code, Message: ae.Message}
	}
	if e := storeFailure(r.Context(), err); e != nil {
		return e
	}
	h.log.ErrorContext(r.Context(), "cosmos request failed", "err", err, "path", r.URL.Path, "request_id", azhttp.RequestID(r.Context()))
	return newError(http.StatusInternalServerError, "InternalServerError", "An unknown error occurred while processing this request.")
}

// writeError writes err as a Cosmos JSON error with the headers every
// Cosmos response carries.
func (h *handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	e := h.resolve(r, err)
	hdr := w.Header()
	for _, k := range []string{"Content-Type", "Content-Length", "Content-Location"} {
		hdr.Del(k)
	}
	h.commonHeaders(w, r)
	if e.Status == http.StatusNotModified {
		w.WriteHeader(e.Status)
		return
	}
	fields := map[string]string{"code": e.Code, "message": e.Message}
	if e.AdditionalErrorInfo != "" {
		fields["additionalErrorInfo"] = e.AdditionalErrorInfo
	}
	body, _ := json.Marshal(fields)
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.Status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// storeFailure is Cosmos DB's answer to a store failure (nil when err is
// not one): contention is 429 with a retry hint as Cosmos throttles, a
// transaction past its time 408, a record past the store's limits 413, a
// closing server 503.
func storeFailure(ctx context.Context, err error) *Error {
	switch azerr.ClassifyStore(err) {
	case azerr.StoreBusy:
		return newError(http.StatusTooManyRequests, "TooManyRequests", "The request rate is too large. Please retry after some time.")
	case azerr.StoreTimedOut:
		return newError(http.StatusRequestTimeout, "RequestTimeout", "The request could not be completed within the permitted time.")
	case azerr.StoreTooLarge:
		return tooLarge("The request is larger than a transaction of this server may hold.")
	case azerr.StoreClosed:
		return newError(http.StatusServiceUnavailable, "ServiceUnavailable", "The server is shutting down; retry the request.")
	case azerr.StoreFull:
		return newError(http.StatusServiceUnavailable, "ServiceUnavailable", "The server's data volume is nearly full: writes are refused until space is freed; reads and deletions are served. Retry the request later.")
	case azerr.RequestCanceled:
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return newError(http.StatusRequestTimeout, "RequestTimeout", "The request could not be completed within the permitted time.")
		}
		return newError(http.StatusServiceUnavailable, "ServiceUnavailable", "The request was cancelled.")
	}
	return nil
}
