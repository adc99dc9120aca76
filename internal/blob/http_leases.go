package blob

import (
	"net/http"
	"strconv"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// parseLeaseRequest reads Lease Blob's and Lease Container's headers.
func parseLeaseRequest(h http.Header) (lease.Request, error) {
	missing := func(name string) error {
		return azhttp.MissingRequiredHeader(name)
	}
	invalid := func(name string) error {
		return azhttp.InvalidHeaderValue(name, h.Get(name))
	}
	raw := h.Get("x-ms-lease-action")
	if raw == "" {
		return lease.Request{}, missing("x-ms-lease-action")
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
			return req, missing("x-ms-lease-duration")
		}
		n, err := strconv.Atoi(v)
		if err != nil || (n != lease.Infinite && (n < 15 || n > 60)) {
			return req, invalid("x-ms-lease-duration")
		}
		req.Duration = n
	case lease.Renew, lease.Release, lease.Change:
		if req.ID == "" {
			return req, missing("x-ms-lease-id")
		}
		if action == lease.Change && req.ProposedID == "" {
			return req, missing("x-ms-proposed-lease-id")
		}
	case lease.Break:
		if v := h.Get("x-ms-lease-break-period"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 60 {
				return req, invalid("x-ms-lease-break-period")
			}
			req.BreakPeriod = &n
		}
	}
	return req, nil
}

func writeLeaseOutcome(q *request, action lease.Action, out *LeaseOutcome) error {
	h := q.w.Header()
	h.Set("ETag", azhttp.ETag(out.Version))
	h.Set("Last-Modified", azhttp.HTTPTime(out.Modified))
	status := http.StatusOK
	switch action {
	case lease.Acquire:
		status = http.StatusCreated
		h.Set("x-ms-lease-id", out.ID)
	case lease.Renew, lease.Change:
		h.Set("x-ms-lease-id", out.ID)
	case lease.Break:
		status = http.StatusAccepted
		h.Set("x-ms-lease-time", strconv.Itoa(out.Time))
	}
	return azhttp.WriteEmpty(q.w, status)
}

func (h *handler) leaseBlob(q *request) error {
	req, err := parseLeaseRequest(q.r.Header)
	if err != nil {
		return err
	}
	out, err := h.svc.LeaseBlob(q.ctx(), q.acct, q.container, q.blob, req, conditions.FromHeader(q.r.Header, ""))
	if err != nil {
		return err
	}
	return writeLeaseOutcome(q, req.Action, out)
}

func (h *handler) leaseContainer(q *request) error {
	req, err := parseLeaseRequest(q.r.Header)
	if err != nil {
		return err
	}
	out, err := h.svc.LeaseContainer(q.ctx(), q.acct, q.container, req, conditions.FromHeader(q.r.Header, ""))
	if err != nil {
		return err
	}
	return writeLeaseOutcome(q, req.Action, out)
}

// writeLeaseHeaders sets x-ms-lease-state/-status/-duration as at now.
func writeLeaseHeaders(h http.Header, l lease.Lease, now time.Time) {
	h.Set("x-ms-lease-state", l.At(now).State.String())
	h.Set("x-ms-lease-status", l.Status(now))
	if d := l.DurationType(now); d != "" {
		h.Set("x-ms-lease-duration", d)
	}
}
