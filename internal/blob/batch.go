package blob

import (
	"context"
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azauth"
)

// maxBatchSubRequests is Azure's limit on the sub-requests of one batch.
const maxBatchSubRequests = 256

// maxBatchBody bounds the batch body read into memory: 256 header-only
// sub-requests take a small fraction of it.
const maxBatchBody = 4 << 20

// batchKind is the one operation every sub-request of a batch performs.
type batchKind int

const (
	batchDelete batchKind = iota + 1
	batchSetTier
)

// subRequestKind classifies a sub-request; 0 means a kind a batch cannot
// carry.
func subRequestKind(r *http.Request) batchKind {
	comp := r.URL.Query().Get("comp")
	switch {
	case r.Method == http.MethodDelete && comp == "":
		return batchDelete
	case r.Method == http.MethodPut && comp == "tier":
		return batchSetTier
	}
	return 0
}

// batchAccessKey carries, in a sub-request's context, the batch's own SAS
// access, which covers sub-requests that carry no credentials themselves.
type batchAccessKey struct{}

func contextWithBatchAccess(ctx context.Context, a azauth.Access) context.Context {
	return context.WithValue(ctx, batchAccessKey{}, a)
}

// batchAccess returns the access of the batch q arrived in, when q is a
// sub-request whose batch lends it its SAS.
func batchAccess(q *request) (azauth.Access, bool) {
	a, ok := q.ctx().Value(batchAccessKey{}).(azauth.Access)
	return a, ok && a.Account == q.acct
}

// batchNeed is what the batch request itself needs: any account SAS for
// the Blob service (Azure checks each sub-request's own permission), or a
// service SAS for the container (submitBatch refuses the others).
var batchNeed = azauth.Need{Service: 'b'}
