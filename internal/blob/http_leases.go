package blob

import (
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
)

func (h *handler) leaseBlob(q *request) error {
	req, err := azhttp.ParseLeaseRequest(q.r.Header, azhttp.FiniteOrInfinite)
	if err != nil {
		return err
	}
	out, err := h.svc.LeaseBlob(q.ctx(), q.ref(), req, conditions.FromHeader(q.r.Header, ""), ifTags(q.r.Header))
	if err != nil {
		return err
	}
	return azhttp.WriteLeaseOutcome(q.w, req.Action, out)
}

func (h *handler) leaseContainer(q *request) error {
	req, err := azhttp.ParseLeaseRequest(q.r.Header, azhttp.FiniteOrInfinite)
	if err != nil {
		return err
	}
	out, err := h.svc.LeaseContainer(q.ctx(), q.containerRef(), req, conditions.FromHeader(q.r.Header, ""))
	if err != nil {
		return err
	}
	return azhttp.WriteLeaseOutcome(q.w, req.Action, out)
}
