package file

import (
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/lease"
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
	// A share snapshot has a lease of its own, apart from its share's
	// (azure-storage-file-share's recording
	// test_acquire_lease_on_sharesnapshot).
	out, err := h.svc.LeaseShare(q.ctx(), q.readShareRef(), req)
	if err != nil {
		return err
	}
	if req.Action == lease.Release {
		// A share's release reports the lease time left, none (the azfile
		// recording TestCreateHardLinkNFSWithLease).
		q.w.Header().Set("X-Ms-Lease-Time", "0")
	}
	return azhttp.WriteLeaseOutcome(q.w, req.Action, out)
}
