package azhttp

import (
	"context"
	"net/http"
)

// RequestInfo is what the layer serving a request learns from the service
// handling it, and what it hands that service: the serving layer puts one
// in the request's context (WithRequestInfo), the service names the
// operation once it has routed the request (Routed), and Wrap records the
// status it answered.
type RequestInfo struct {
	// Operation is the routed operation's name (Azure's, e.g. "PutBlob"),
	// empty when the request was refused before routing.
	Operation string
	// Fault, when set, is asked once the operation is known whether to
	// answer with an injected fault instead (see Routed).
	Fault func(w http.ResponseWriter, r *http.Request, operation string) error
	// Status is the status answered, set by Wrap when the request ends
	// (whatever it holds when the handler's panic dropped the connection).
	Status int
}

type requestInfoKey struct{}

// WithRequestInfo returns r carrying info, for Routed to fill in.
func WithRequestInfo(r *http.Request, info *RequestInfo) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, info))
}

// Routed records that r was routed to operation and returns the fault to
// answer instead of running it, if fault injection picked one (nil
// otherwise). A service calls it after routing and before doing anything
// the operation would do, and returns a non-nil error as its answer.
func Routed(w http.ResponseWriter, r *http.Request, operation string) error {
	info, _ := r.Context().Value(requestInfoKey{}).(*RequestInfo)
	if info == nil {
		return nil
	}
	info.Operation = operation
	if info.Fault == nil {
		return nil
	}
	return info.Fault(w, r, operation)
}

// WithoutRequestInfo returns ctx without the RequestInfo of the request
// it belongs to, for a sub-request of a batch: the batch is the operation
// counted (and the one fault injection picks for), and its sub-requests'
// routing must not rename it.
func WithoutRequestInfo(ctx context.Context) context.Context {
	return context.WithValue(ctx, requestInfoKey{}, (*RequestInfo)(nil))
}

// preflightOperations names the CORS preflight of each Storage service
// (Azure's "Preflight Blob Request"…), which Wrap answers before the
// service routes anything.
var preflightOperations = map[string]string{
	"blob":  "PreflightBlobRequest",
	"queue": "PreflightQueueRequest",
	"table": "PreflightTableRequest",
	"file":  "PreflightFileRequest",
}

// PreflightOperation is the name of service's CORS preflight operation,
// "" for a service that has none.
func PreflightOperation(service string) string { return preflightOperations[service] }
