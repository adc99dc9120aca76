package queue

import (
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// Azure serves a read-access geo-redundant account's queues read-only at
// account-secondary (https://account-secondary.queue.core.windows.net/,
// or path style /account-secondary/...), with the primary's keys: Peek
// Messages, Get Queue Metadata and ACL, List Queues and the service's
// properties and stats. Get Messages changes the messages it returns and
// is a write there. One store is its own secondary here: always live,
// always in sync. The Blob service answers the same way.

// errSecondaryReadOnly is the answer to a write sent to the secondary,
// the Blob service's: 403 InsufficientAccountPermissions, the status
// and code the REST reference (Get Queue Service Stats) gives for a
// secondary endpoint that does not serve the request.
var errSecondaryReadOnly = azerr.ErrInsufficientAccountPermissions.WithMessage("Write operations are not allowed.")

// getServiceStats answers Get Queue Service Stats, which the REST
// reference makes "available only on the secondary location endpoint";
// the primary refuses the comp=stats value, as Blob's does.
func (h *handler) getServiceStats(q *request) error {
	if !q.secondary {
		return azerr.InvalidQueryParameterValue("comp", q.q.Get("comp"), "")
	}
	return azhttp.WriteServiceStats(q.w, "live", h.svc.clock())
}
