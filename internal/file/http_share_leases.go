package file

import (
	"net/http"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// parseShareLeaseRequest reads Lease Share's headers: a share lease lasts
// 15 to 60 seconds or is infinite, and breaks after up to 60 seconds.
func parseShareLeaseRequest(h http.Header) (lease.Request, error) {
	invalid := func(name string) *azhttp.Error { return azhttp.InvalidHeaderValue(name, h.Get(name)) }
	raw := h.Get("x-ms-lease-action")
	if raw == "" {
		return lease.Request{}, azhttp.MissingRequiredHeader("x-ms-lease-action")
	}
	action, ok := lease.ParseAction(raw)
	if !ok {
		return lease.Request{}, invalid("x-ms-lease-action")
	}
	req := lease.Request{Action: action, ID: h.Get("x-ms-lease-id"), ProposedID: h.Get("x-ms-proposed-lease-id")}
	if req.ProposedID != "" && !lease.ValidID(req.ProposedID) {
		return req, invalid("x-ms-proposed-lease-id")
	}
	switch action {
	case lease.Acquire:
		v := h.Get("x-ms-lease-duration")
		if v == "" {
			return req, azhttp.MissingRequiredHeader("x-ms-lease-duration")
		}
		n, err := strconv.Atoi(v)
		if err != nil || (n != lease.Infinite && (n < 15 || n > 60)) {
			return req, invalid("x-ms-lease-duration").WithMessage("x-ms-lease-duration must be 15 to 60 seconds, or -1 for an infinite lease.")
		}
		req.Duration = n
	case lease.Renew, lease.Release, lease.Change:
		if req.ID == "" {
			return req, azhttp.MissingRequiredHeader("x-ms-lease-id")
		}
		if action == lease.Change && req.ProposedID == "" {
			return req, azhttp.MissingRequiredHeader("x-ms-proposed-lease-id")
		}
	case lease.Break:
		if v := h.Get("x-ms-lease-break-period"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 60 {
				return req, invalid("x-ms-lease-break-period").WithMessage("x-ms-lease-break-period must be 0 to 60 seconds.")
			}
			req.BreakPeriod = &n
		}
	}
	return req, nil
}

func (h *handler) leaseShare(q *request) error {
	req, err := parseShareLeaseRequest(q.r.Header)
	if err != nil {
		return err
	}
	out, err := h.svc.LeaseShare(q.ctx(), q.acct, q.share, req)
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
	case lease.Renew, lease.Change:
		hdr.Set("x-ms-lease-id", out.ID)
	case lease.Break:
		status = http.StatusAccepted
		hdr.Set("x-ms-lease-time", strconv.Itoa(out.Time))
	}
	return azhttp.WriteEmpty(q.w, status)
}
