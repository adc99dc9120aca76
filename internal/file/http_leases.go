package file

import (
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

func (h *handler) leaseFile(q *request) error {
	req, err := azhttp.ParseLeaseRequest(q.r.Header, azhttp.InfiniteOnly)
	if err != nil {
		return err
	}
	out, err := h.svc.LeaseFile(q.ctx(), q.ref(), req)
	if err != nil {
		return err
	}
	return azhttp.WriteLeaseOutcome(q.w, req.Action, out)
}

func (h *handler) leaseShare(q *request) error {
	req, err := azhttp.ParseLeaseRequest(q.r.Header, azhttp.FiniteOrInfinite)
	if err != nil {
		return err
	}
	out, err := h.svc.LeaseShare(q.ctx(), q.shareRef(), req)
	if err != nil {
		return err
	}
	return azhttp.WriteLeaseOutcome(q.w, req.Action, out)
}
