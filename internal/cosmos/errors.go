package cosmos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// Error is a Cosmos DB error: an HTTP status and the code and message of
// the JSON body {"code":…,"message":…}.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

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

// errNotModified answers a read whose If-None-Match matched.
var errNotModified = &Error{Status: http.StatusNotModified, Code: "NotModified"}

// unsupported answers a feature cerulean does not serve, the way Cosmos DB
// answers a request it cannot serve: 400 BadRequest.
func unsupported(what string) *Error {
	return badRequest("%s is not supported by cerulean", what)
}

// resolve maps any error to a Cosmos error; unknown errors are logged and
// become 500 so that internals never leak.
func (s *Service) resolve(r *http.Request, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var ae *azhttp.Error
	if errors.As(err, &ae) {
		return &Error{Status: ae.Status, Code: ae.Code, Message: ae.Message}
	}
	if e := storeFailure(r.Context(), err); e != nil {
		return e
	}
	s.log.ErrorContext(r.Context(), "cosmos request failed", "err", err, "path", r.URL.Path, "request_id", azhttp.RequestID(r.Context()))
	return newError(http.StatusInternalServerError, "InternalServerError", "An unknown error occurred while processing this request.")
}

// writeError writes err as a Cosmos JSON error with the headers every
// Cosmos response carries.
func (s *Service) writeError(w http.ResponseWriter, r *http.Request, err error) {
	e := s.resolve(r, err)
	h := w.Header()
	for _, k := range []string{"Content-Type", "Content-Length", "Content-Location"} {
		h.Del(k)
	}
	s.commonHeaders(w, r)
	if e.Status == http.StatusNotModified {
		w.WriteHeader(e.Status)
		return
	}
	body, _ := json.Marshal(map[string]string{"code": e.Code, "message": e.Message})
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
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
	switch azhttp.ClassifyStore(err) {
	case azhttp.StoreBusy:
		return newError(http.StatusTooManyRequests, "TooManyRequests", "The request rate is too large. Please retry after some time.")
	case azhttp.StoreTimedOut:
		return newError(http.StatusRequestTimeout, "RequestTimeout", "The request could not be completed within the permitted time.")
	case azhttp.StoreTooLarge:
		return tooLarge("The request is larger than a transaction of this server may hold.")
	case azhttp.StoreClosed:
		return newError(http.StatusServiceUnavailable, "ServiceUnavailable", "The server is shutting down; retry the request.")
	case azhttp.RequestCanceled:
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return newError(http.StatusRequestTimeout, "RequestTimeout", "The request could not be completed within the permitted time.")
		}
		return newError(http.StatusServiceUnavailable, "ServiceUnavailable", "The request was cancelled.")
	}
	return nil
}
