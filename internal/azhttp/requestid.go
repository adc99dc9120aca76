package azhttp

import (
	"context"

	"github.com/cerulean-db/cerulean/internal/guid"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	loggerKey
)

// RequestID returns the id Wrap gave the request carried by ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// newRequestID returns a random version-4 UUID, the shape Azure uses for
// x-ms-request-id and SDKs sometimes parse.
func newRequestID() string { return guid.New() }
