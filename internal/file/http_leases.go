package file

import (
	"net/http"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// parseLeaseRequest reads Lease File's headers. File leases are infinite:
// x-ms-lease-duration may only be -1, and there is no renew and no break
// period.
func parseLeaseRequest(h http.Header) (lease.Request, error) {
	invalid := func(name string) *azhttp.Error { return azhttp.InvalidHeaderValue(name, h.Get(name)) }
	raw := h.Get("x-ms-lease-action")
	if raw == "" {
		return lease.Request{}, azhttp.MissingRequiredHeader("x-ms-lease-action")
	}
	action, ok := lease.ParseAction(raw)
	if !ok || action == lease.Renew {
		return lease.Request{}, invalid("x-ms-lease-action")
	}
	req := lease.Request{Action: action, ID: h.Get("x-ms-lease-id"), ProposedID: h.Get("x-ms-proposed-lease-id"), Duration: lease.Infinite}
	if req.ProposedID != "" && !lease.ValidID(req.ProposedID) {
		return req, invalid("x-ms-proposed-lease-id")
	}
	switch action {
	case lease.Acquire:
		if v := h.Get("x-ms-lease-duration"); v != "" && v != "-1" {
			return req, invalid("x-ms-lease-duration").WithMessage("A file lease is infinite: x-ms-lease-duration must be -1.")
		}
	case lease.Release, lease.Change:
		if req.ID == "" {
			return req, azhttp.MissingRequiredHeader("x-ms-lease-id")
		}
		if action == lease.Change && req.ProposedID == "" {
			return req, azhttp.MissingRequiredHeader("x-ms-proposed-lease-id")
		}
	}
	return req, nil
}

func (h *handler) leaseFile(q *request) error {
	req, err := parseLeaseRequest(q.r.Header)
	if err != nil {
		return err
	}
	out, err := h.svc.LeaseFile(q.ctx(), q.acct, q.share, q.path, req)
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	hdr.Set("ETag", azhttp.ETag(out.Version))
	hdr.Set("Last-Modified", azhttp.HTTPTime(out.Modified))
	status := http.StatusOK
	switch req.Action {
	case lease.Acquire:
		status = http.StatusCreated
		hdr.Set("x-ms-lease-id", out.ID)
	case lease.Change:
		hdr.Set("x-ms-lease-id", out.ID)
	case lease.Break:
		status = http.StatusAccepted
		hdr.Set("x-ms-lease-time", strconv.Itoa(out.Time))
	}
	return azhttp.WriteEmpty(q.w, status)
}
