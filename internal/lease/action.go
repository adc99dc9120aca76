package lease

import "time"

// Action is x-ms-lease-action.
type Action int

const (
	Acquire Action = iota
	Renew
	Change
	Release
	Break
)

// ParseAction reads x-ms-lease-action.
func ParseAction(s string) (Action, bool) {
	switch s {
	case "acquire":
		return Acquire, true
	case "renew":
		return Renew, true
	case "change":
		return Change, true
	case "release":
		return Release, true
	case "break":
		return Break, true
	}
	return 0, false
}

// Request is one lease operation.
type Request struct {
	Action     Action
	ID         string // x-ms-lease-id
	ProposedID string // x-ms-proposed-lease-id
	Duration   int    // acquire: 15..60 or Infinite
	// BreakPeriod: nil breaks a fixed lease when it would expire and an
	// infinite one at once.
	BreakPeriod *int
}

// Result is what a lease operation reports.
type Result struct {
	ID   string // x-ms-lease-id (not for break)
	Time int    // x-ms-lease-time: seconds until a break completes
}

// Outcome is what a lease operation on a resource answers: its Result
// and the resource's ETag version and last-modified time, which leasing
// leaves alone.
type Outcome struct {
	Result
	Version  uint64
	Modified time.Time
}

// Apply performs req on l at now. newID makes a lease ID when an acquire
// proposes none.
func (l Lease) Apply(now time.Time, req Request, newID func() string) (Lease, Result, error) {
	l = l.At(now)
	switch req.Action {
	case Acquire:
		return l.acquire(now, req, newID)
	case Renew:
		return l.renew(now, req.ID)
	case Change:
		return l.change(req.ID, req.ProposedID)
	case Release:
		return l.release(req.ID)
	default:
		return l.breakLease(now, req.BreakPeriod)
	}
}

func (l Lease) acquire(now time.Time, req Request, newID func() string) (Lease, Result, error) {
	if req.Duration != Infinite && (req.Duration < 15 || req.Duration > 60) {
		return l, Result{}, ErrInvalidDuration
	}
	id := req.ProposedID
	switch l.State {
	case Leased:
		if !SameID(id, l.ID) {
			return l, Result{}, ErrAlreadyPresent
		}
	case Breaking:
		if SameID(id, l.ID) {
			return l, Result{}, ErrBreakingCannotAcquire
		}
		return l, Result{}, ErrAlreadyPresent
	}
	if id == "" {
		id = newID()
	}
	n := Lease{ID: id, State: Leased, Duration: req.Duration}
	if req.Duration != Infinite {
		n.Expires = now.Add(time.Duration(req.Duration) * time.Second)
	}
	return n, Result{ID: id}, nil
}

func (l Lease) renew(now time.Time, id string) (Lease, Result, error) {
	switch {
	case l.State == Available:
		return l, Result{}, ErrNotPresentWithLeaseOp
	case !SameID(id, l.ID):
		return l, Result{}, ErrIDMismatchWithLeaseOp
	case l.State == Breaking || l.State == Broken:
		return l, Result{}, ErrBrokenCannotBeRenewed
	}
	// Leased or Expired with the same ID: a new term from now.
	n := Lease{ID: l.ID, State: Leased, Duration: l.Duration}
	if l.Duration != Infinite {
		n.Expires = now.Add(time.Duration(l.Duration) * time.Second)
	}
	return n, Result{ID: l.ID}, nil
}

func (l Lease) change(id, proposed string) (Lease, Result, error) {
	if proposed == "" {
		return l, Result{}, ErrInvalidProposedID
	}
	switch l.State {
	case Available, Expired, Broken:
		return l, Result{}, ErrNotPresentWithLeaseOp
	case Breaking:
		if SameID(id, l.ID) {
			return l, Result{}, ErrBreakingCannotChange
		}
		return l, Result{}, ErrIDMismatchWithLeaseOp
	}
	// Changing to the ID it already has is allowed (a retried change).
	if !SameID(id, l.ID) && !SameID(proposed, l.ID) {
		return l, Result{}, ErrIDMismatchWithLeaseOp
	}
	l.ID = proposed
	return l, Result{ID: proposed}, nil
}

func (l Lease) release(id string) (Lease, Result, error) {
	switch {
	case l.State == Available:
		return l, Result{}, ErrNotPresentWithLeaseOp
	case !SameID(id, l.ID):
		return l, Result{}, ErrIDMismatchWithLeaseOp
	}
	return Lease{}, Result{ID: id}, nil
}

func (l Lease) breakLease(now time.Time, period *int) (Lease, Result, error) {
	if period != nil && (*period < 0 || *period > 60) {
		return l, Result{}, ErrInvalidBreakPeriod
	}
	broken := Lease{ID: l.ID, State: Broken}
	switch l.State {
	case Available:
		return l, Result{}, ErrNotPresentWithLeaseOp
	case Expired, Broken:
		return broken, Result{}, nil
	case Leased:
		var at time.Time
		switch {
		case period != nil:
			at = now.Add(time.Duration(*period) * time.Second)
			if l.Duration != Infinite && l.Expires.Before(at) {
				at = l.Expires
			}
		case l.Duration == Infinite:
			at = now
		default:
			at = l.Expires
		}
		return breakingUntil(l.ID, now, at)
	default: // Breaking: a new period may only shorten the break
		at := l.BreakAt
		if period != nil {
			if p := now.Add(time.Duration(*period) * time.Second); p.Before(at) {
				at = p
			}
		}
		return breakingUntil(l.ID, now, at)
	}
}

func breakingUntil(id string, now, at time.Time) (Lease, Result, error) {
	if !now.Before(at) {
		return Lease{ID: id, State: Broken}, Result{}, nil
	}
	remaining := int((at.Sub(now) + time.Second - 1) / time.Second)
	return Lease{ID: id, State: Breaking, BreakAt: at}, Result{Time: remaining}, nil
}
