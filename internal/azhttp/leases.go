package azhttp

import (
	"net/http"
	"strconv"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// LeaseTerms are the durations a kind of lease may take.
type LeaseTerms int

const (
	// FiniteOrInfinite leases (blobs, containers, shares) last 15 to 60
	// seconds or are infinite, renew, and break after up to 60 seconds.
	FiniteOrInfinite LeaseTerms = iota
	// InfiniteOnly leases (files) are infinite, never renew and break at
	// once.
	InfiniteOnly
)

// ParseLeaseRequest reads a Lease Blob / Container / Share / File
// request's headers under the given terms.
func ParseLeaseRequest(h http.Header, terms LeaseTerms) (lease.Request, error) {
	invalid := func(name string) *azerr.Error { return azerr.InvalidHeaderValue(name, h.Get(name)) }
	raw := h.Get("X-Ms-Lease-Action")
	if raw == "" {
		return lease.Request{}, azerr.MissingRequiredHeader("x-ms-lease-action")
	}
	action, ok := lease.ParseAction(raw)
	if !ok || terms == InfiniteOnly && action == lease.Renew {
		return lease.Request{}, invalid("x-ms-lease-action")
	}
	req := lease.Request{Action: action, ID: h.Get("X-Ms-Lease-Id"), ProposedID: h.Get("X-Ms-Proposed-Lease-Id")}
	if req.ProposedID != "" && !lease.ValidID(req.ProposedID) {
		return req, invalid("x-ms-proposed-lease-id")
	}
	switch action {
	case lease.Acquire:
		v := h.Get("X-Ms-Lease-Duration")
		if terms == InfiniteOnly {
			if v != "" && v != "-1" {
				return req, invalid("x-ms-lease-duration").WithMessage("A file lease is infinite: x-ms-lease-duration must be -1.")
			}
			req.Duration = lease.Infinite
			break
		}
		if v == "" {
			return req, azerr.MissingRequiredHeader("x-ms-lease-duration")
		}
		n, err := strconv.Atoi(v)
		if err != nil || (n != lease.Infinite && (n < 15 || n > 60)) {
			return req, invalid("x-ms-lease-duration").WithMessage("x-ms-lease-duration must be 15 to 60 seconds, or -1 for an infinite lease.")
		}
		req.Duration = n
	case lease.Renew, lease.Release, lease.Change:
		if req.ID == "" {
			return req, azerr.MissingRequiredHeader("x-ms-lease-id")
		}
		if action == lease.Change && req.ProposedID == "" {
			return req, azerr.MissingRequiredHeader("x-ms-proposed-lease-id")
		}
	case lease.Break:
		if v := h.Get("X-Ms-Lease-Break-Period"); v != "" && terms == FiniteOrInfinite {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 60 {
				return req, invalid("x-ms-lease-break-period").WithMessage("x-ms-lease-break-period must be 0 to 60 seconds.")
			}
			req.BreakPeriod = &n
		}
	}
	return req, nil
}

// WriteLeaseOutcome answers a lease operation: the resource's ETag and
// Last-Modified, the lease ID it holds (acquire, renew, change) or the
// seconds a break takes, with Azure's status for the action.
func WriteLeaseOutcome(w http.ResponseWriter, action lease.Action, out *lease.Outcome) error {
	h := w.Header()
	h.Set("Etag", ETag(out.Version))
	h.Set("Last-Modified", HTTPTime(out.Modified))
	status := http.StatusOK
	switch action {
	case lease.Acquire:
		status = http.StatusCreated
		h.Set("X-Ms-Lease-Id", out.ID)
	case lease.Renew, lease.Change:
		h.Set("X-Ms-Lease-Id", out.ID)
	case lease.Break:
		status = http.StatusAccepted
		h.Set("X-Ms-Lease-Time", strconv.Itoa(out.Time))
	}
	return WriteEmpty(w, status)
}

// WriteLeaseState sets x-ms-lease-state, -status and -duration as the
// lease stands at now.
func WriteLeaseState(h http.Header, l lease.Lease, now time.Time) {
	h.Set("X-Ms-Lease-State", l.At(now).State.String())
	h.Set("X-Ms-Lease-Status", l.Status(now))
	if d := l.DurationType(now); d != "" {
		h.Set("X-Ms-Lease-Duration", d)
	}
}
