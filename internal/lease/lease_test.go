package lease

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

const (
	idA = "a0000000-0000-0000-0000-00000000000a"
	idB = "b0000000-0000-0000-0000-00000000000b"
	idC = "c0000000-0000-0000-0000-00000000000c"
)

func fixedID() string { return idC }

func ptr(n int) *int { return &n }

// leaseIn builds a lease held by idA that is in state s at t0.
func leaseIn(s State) Lease {
	switch s {
	case Leased:
		return Lease{ID: idA, State: Leased, Duration: 30, Expires: t0.Add(10 * time.Second)}
	case Expired:
		return Lease{ID: idA, State: Leased, Duration: 15, Expires: t0.Add(-time.Second)}
	case Breaking:
		return Lease{ID: idA, State: Breaking, BreakAt: t0.Add(20 * time.Second)}
	case Broken:
		return Lease{ID: idA, State: Broken}
	}
	return Lease{}
}

// TestTransitionMatrix walks every state × action × lease-id match against
// Azure's documented outcome.
func TestTransitionMatrix(t *testing.T) {
	type outcome struct {
		state State
		id    string
		err   error
	}
	ok := func(s State, id string) outcome { return outcome{state: s, id: id} }
	fail := func(err error) outcome { return outcome{err: err} }
	tests := []struct {
		from State
		req  Request
		want outcome
	}{
		// Available
		{Available, Request{Action: Acquire, Duration: 15}, ok(Leased, idC)},
		{Available, Request{Action: Acquire, Duration: Infinite, ProposedID: idB}, ok(Leased, idB)},
		{Available, Request{Action: Renew, ID: idA}, fail(ErrNotPresentWithLeaseOp)},
		{Available, Request{Action: Change, ID: idA, ProposedID: idB}, fail(ErrNotPresentWithLeaseOp)},
		{Available, Request{Action: Release, ID: idA}, fail(ErrNotPresentWithLeaseOp)},
		{Available, Request{Action: Break}, fail(ErrNotPresentWithLeaseOp)},
		// Leased (A)
		{Leased, Request{Action: Acquire, Duration: 60, ProposedID: idA}, ok(Leased, idA)},
		{Leased, Request{Action: Acquire, Duration: 60, ProposedID: idB}, fail(ErrAlreadyPresent)},
		{Leased, Request{Action: Acquire, Duration: 60}, fail(ErrAlreadyPresent)},
		{Leased, Request{Action: Renew, ID: idA}, ok(Leased, idA)},
		{Leased, Request{Action: Renew, ID: idB}, fail(ErrIDMismatchWithLeaseOp)},
		{Leased, Request{Action: Change, ID: idA, ProposedID: idB}, ok(Leased, idB)},
		{Leased, Request{Action: Change, ID: idB, ProposedID: idA}, ok(Leased, idA)},
		{Leased, Request{Action: Change, ID: idB, ProposedID: idC}, fail(ErrIDMismatchWithLeaseOp)},
		{Leased, Request{Action: Release, ID: idA}, ok(Available, "")},
		{Leased, Request{Action: Release, ID: idB}, fail(ErrIDMismatchWithLeaseOp)},
		{Leased, Request{Action: Break, BreakPeriod: ptr(0)}, ok(Broken, idA)},
		{Leased, Request{Action: Break, BreakPeriod: ptr(5)}, ok(Breaking, idA)},
		{Leased, Request{Action: Break}, ok(Breaking, idA)},
		{Leased, Request{Action: Break, BreakPeriod: ptr(61)}, fail(ErrInvalidBreakPeriod)},
		{Leased, Request{Action: Acquire, Duration: 14, ProposedID: idA}, fail(ErrInvalidDuration)},
		// Expired (A)
		{Expired, Request{Action: Acquire, Duration: 15, ProposedID: idA}, ok(Leased, idA)},
		{Expired, Request{Action: Acquire, Duration: 15, ProposedID: idB}, ok(Leased, idB)},
		{Expired, Request{Action: Renew, ID: idA}, ok(Leased, idA)},
		{Expired, Request{Action: Renew, ID: idB}, fail(ErrIDMismatchWithLeaseOp)},
		{Expired, Request{Action: Change, ID: idA, ProposedID: idB}, fail(ErrNotPresentWithLeaseOp)},
		{Expired, Request{Action: Release, ID: idA}, ok(Available, "")},
		{Expired, Request{Action: Release, ID: idB}, fail(ErrIDMismatchWithLeaseOp)},
		{Expired, Request{Action: Break}, ok(Broken, idA)},
		// Breaking (A)
		{Breaking, Request{Action: Acquire, Duration: 15, ProposedID: idA}, fail(ErrBreakingCannotAcquire)},
		{Breaking, Request{Action: Acquire, Duration: 15, ProposedID: idB}, fail(ErrAlreadyPresent)},
		{Breaking, Request{Action: Renew, ID: idA}, fail(ErrBrokenCannotBeRenewed)},
		{Breaking, Request{Action: Renew, ID: idB}, fail(ErrIDMismatchWithLeaseOp)},
		{Breaking, Request{Action: Change, ID: idA, ProposedID: idB}, fail(ErrBreakingCannotChange)},
		{Breaking, Request{Action: Change, ID: idB, ProposedID: idC}, fail(ErrIDMismatchWithLeaseOp)},
		{Breaking, Request{Action: Release, ID: idA}, ok(Available, "")},
		{Breaking, Request{Action: Release, ID: idB}, fail(ErrIDMismatchWithLeaseOp)},
		{Breaking, Request{Action: Break, BreakPeriod: ptr(0)}, ok(Broken, idA)},
		{Breaking, Request{Action: Break, BreakPeriod: ptr(5)}, ok(Breaking, idA)},
		{Breaking, Request{Action: Break}, ok(Breaking, idA)},
		// Broken (A)
		{Broken, Request{Action: Acquire, Duration: 15, ProposedID: idA}, ok(Leased, idA)},
		{Broken, Request{Action: Acquire, Duration: 15, ProposedID: idB}, ok(Leased, idB)},
		{Broken, Request{Action: Renew, ID: idA}, fail(ErrBrokenCannotBeRenewed)},
		{Broken, Request{Action: Renew, ID: idB}, fail(ErrIDMismatchWithLeaseOp)},
		{Broken, Request{Action: Change, ID: idA, ProposedID: idB}, fail(ErrNotPresentWithLeaseOp)},
		{Broken, Request{Action: Release, ID: idA}, ok(Available, "")},
		{Broken, Request{Action: Release, ID: idB}, fail(ErrIDMismatchWithLeaseOp)},
		{Broken, Request{Action: Break, BreakPeriod: ptr(10)}, ok(Broken, idA)},
	}
	for i, tc := range tests {
		name := fmt.Sprintf("%d/%v/action%d", i, tc.from, tc.req.Action)
		t.Run(name, func(t *testing.T) {
			before := leaseIn(tc.from)
			if got := before.At(t0).State; got != tc.from {
				t.Fatalf("fixture is %v, want %v", got, tc.from)
			}
			after, _, err := before.Apply(t0, tc.req, fixedID)
			if tc.want.err != nil {
				if !errors.Is(err, tc.want.err) {
					t.Fatalf("error %v, want %v", err, tc.want.err)
				}
				if after.At(t0) != before.At(t0) {
					t.Fatalf("failed operation changed the lease: %+v -> %+v", before, after)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			got := after.At(t0)
			if got.State != tc.want.state || got.ID != tc.want.id {
				t.Fatalf("got %v(%s), want %v(%s)", got.State, got.ID, tc.want.state, tc.want.id)
			}
		})
	}
}

// TestExpiryAndBreakTiming drives a lease through time with a test clock.
func TestExpiryAndBreakTiming(t *testing.T) {
	l, r, err := Lease{}.Apply(t0, Request{Action: Acquire, Duration: 15, ProposedID: idA}, fixedID)
	if err != nil || r.ID != idA {
		t.Fatal(err, r)
	}
	at := func(d time.Duration) State { return l.At(t0.Add(d)).State }
	if at(14*time.Second+999*time.Millisecond) != Leased || at(15*time.Second) != Expired {
		t.Fatalf("a 15 s lease must expire exactly at 15 s: %v %v", at(14*time.Second), at(15*time.Second))
	}
	if l.Status(t0) != "locked" || l.Status(t0.Add(15*time.Second)) != "unlocked" || l.DurationType(t0) != "fixed" {
		t.Fatal("status/duration headers wrong")
	}
	// Renewal restarts the term from the renewal time.
	l, _, _ = l.Apply(t0.Add(10*time.Second), Request{Action: Renew, ID: idA}, fixedID)
	if at(24*time.Second) != Leased || at(25*time.Second) != Expired {
		t.Fatal("renewal did not restart the 15 s term")
	}
	// A break period longer than the remaining term ends with the term.
	l, r, _ = l.Apply(t0.Add(20*time.Second), Request{Action: Break, BreakPeriod: ptr(60)}, fixedID)
	if r.Time != 5 || at(24*time.Second) != Breaking || at(25*time.Second) != Broken {
		t.Fatalf("break: lease time %d, states %v %v", r.Time, at(24*time.Second), at(25*time.Second))
	}
	// During the break, writes still need the ID; after it, the ID is refused.
	if err := l.CheckUse(t0.Add(21*time.Second), "", true); !errors.Is(err, ErrIDMissing) {
		t.Fatalf("write without id during break: %v", err)
	}
	if err := l.CheckUse(t0.Add(26*time.Second), idA, true); !errors.Is(err, ErrLost) {
		t.Fatalf("write with broken lease id: %v", err)
	}
	// A second break may only shorten the period.
	l2, _, _ := Lease{}.Apply(t0, Request{Action: Acquire, Duration: Infinite, ProposedID: idA}, fixedID)
	l2, r, _ = l2.Apply(t0, Request{Action: Break, BreakPeriod: ptr(30)}, fixedID)
	l3, r3, _ := l2.Apply(t0.Add(time.Second), Request{Action: Break, BreakPeriod: ptr(50)}, fixedID)
	if r.Time != 30 || r3.Time != 29 || !l3.BreakAt.Equal(t0.Add(30*time.Second)) {
		t.Fatalf("longer second break extended the period: %d %d %v", r.Time, r3.Time, l3.BreakAt)
	}
	// An infinite lease broken with no period breaks at once.
	l4, _, _ := Lease{}.Apply(t0, Request{Action: Acquire, Duration: Infinite, ProposedID: idA}, fixedID)
	if l4.DurationType(t0.Add(24*time.Hour)) != "infinite" {
		t.Fatal("infinite lease expired")
	}
	l4, r, _ = l4.Apply(t0, Request{Action: Break}, fixedID)
	if l4.At(t0).State != Broken || r.Time != 0 {
		t.Fatalf("infinite break without period: %v %d", l4.State, r.Time)
	}
}

func TestCheckUse(t *testing.T) {
	leased := leaseIn(Leased)
	tests := []struct {
		l     Lease
		id    string
		write bool
		want  error
	}{
		{leased, "", true, ErrIDMissing},
		{leased, "", false, nil},
		{leased, idA, true, nil},
		{leased, idB, true, ErrIDMismatch},
		{leased, idB, false, ErrIDMismatch},
		{Lease{}, "", true, nil},
		{Lease{}, idA, true, ErrNotPresent},
		{Lease{}, idA, false, ErrNotPresent},
		// The ID of a lease that expired or was broken is lost; another
		// ID names no lease (test_lease_share_break_period).
		{leaseIn(Expired), idA, true, ErrLost},
		{leaseIn(Expired), idB, true, ErrNotPresent},
		{leaseIn(Expired), "", true, nil},
		{leaseIn(Breaking), idA, true, nil},
		{leaseIn(Broken), idA, true, ErrLost},
		{leaseIn(Broken), idB, false, ErrNotPresent},
	}
	for i, tc := range tests {
		if err := tc.l.CheckUse(t0, tc.id, tc.write); !errors.Is(err, tc.want) { // errors.Is(nil, nil) holds
			t.Errorf("%d: got %v, want %v", i, err, tc.want)
		}
	}
}
