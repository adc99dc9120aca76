package lease

import (
	"errors"
	"time"
)

// State is a lease state as Azure reports it.
type State int

const (
	Available State = iota
	Leased
	Expired
	Breaking
	Broken
)

func (s State) String() string {
	return [...]string{"available", "leased", "expired", "breaking", "broken"}[s]
}

// Infinite is the duration of a lease that never expires.
const Infinite = -1

// Errors of lease operations (Azure answers these with 409 unless noted).
var (
	ErrAlreadyPresent        = errors.New("lease already present")
	ErrNotPresentWithLeaseOp = errors.New("lease not present with lease operation")
	ErrIDMismatchWithLeaseOp = errors.New("lease id mismatch with lease operation")
	ErrBreakingCannotAcquire = errors.New("lease is breaking and cannot be acquired")
	ErrBreakingCannotChange  = errors.New("lease is breaking and cannot be changed")
	ErrBrokenCannotBeRenewed = errors.New("lease is broken and cannot be renewed")
	ErrInvalidDuration       = errors.New("lease duration must be 15 to 60 seconds or -1") // 400
	ErrInvalidBreakPeriod    = errors.New("lease break period must be 0 to 60 seconds")    // 400
	ErrInvalidProposedID     = errors.New("proposed lease id is required")                 // 400
)

// Errors of checks made by other operations on a leased resource (412).
var (
	ErrIDMissing  = errors.New("lease id missing")
	ErrIDMismatch = errors.New("lease id mismatch")
	ErrNotPresent = errors.New("lease not present")
	// ErrLost: the ID of a lease that has since expired or been broken.
	ErrLost = errors.New("lease lost")
)

// Lease is the stored lease of one resource. The zero value is Available.
type Lease struct {
	ID       string    `json:",omitempty"`
	State    State     `json:",omitempty"` // Available, Leased, Breaking or Broken
	Duration int       `json:",omitempty"` // seconds, or Infinite
	Expires  time.Time `json:",omitzero"`  // end of a fixed lease
	BreakAt  time.Time `json:",omitzero"`  // end of a break period
}

// At returns the lease as it stands at now, with derived states resolved.
func (l Lease) At(now time.Time) Lease {
	switch {
	case l.State == Leased && l.Duration != Infinite && !now.Before(l.Expires):
		l.State, l.Expires = Expired, time.Time{}
	case l.State == Breaking && !now.Before(l.BreakAt):
		l.State, l.BreakAt = Broken, time.Time{}
	}
	return l
}

// Active reports whether the lease locks writes at now.
func (l Lease) Active(now time.Time) bool {
	s := l.At(now).State
	return s == Leased || s == Breaking
}

// Status is x-ms-lease-status: "locked" while active.
func (l Lease) Status(now time.Time) string {
	if l.Active(now) {
		return "locked"
	}
	return "unlocked"
}

// DurationType is x-ms-lease-duration, reported only while leased.
func (l Lease) DurationType(now time.Time) string {
	if l.At(now).State != Leased {
		return ""
	}
	if l.Duration == Infinite {
		return "infinite"
	}
	return "fixed"
}

// CheckUse verifies the lease ID that another operation carries (empty
// when it carries none). Writes must carry the ID of an active lease;
// reads may omit it. An ID with no active lease, or the wrong one, fails:
// the ID of the lease that has expired or been broken is ErrLost
// (azure-storage-file-share's recording test_lease_share_break_period:
// 412 LeaseLost), any other ErrNotPresent.
func (l Lease) CheckUse(now time.Time, id string, write bool) error {
	active := l.Active(now)
	switch {
	case id == "" && active && write:
		return ErrIDMissing
	case id == "":
		return nil
	case !active:
		if st := l.At(now).State; (st == Expired || st == Broken) && SameID(id, l.ID) {
			return ErrLost
		}
		return ErrNotPresent
	case !SameID(id, l.ID):
		return ErrIDMismatch
	}
	return nil
}
