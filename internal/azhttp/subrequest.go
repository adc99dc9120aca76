package azhttp

import "context"

// SubRequestContext returns ctx carrying a request id of its own, for one
// sub-request of a batch: each sub-response carries its own
// x-ms-request-id, and its error messages name that id.
func SubRequestContext(ctx context.Context) (context.Context, string) {
	id := newRequestID()
	return context.WithValue(ctx, requestIDKey, id), id
}
