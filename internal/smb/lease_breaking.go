package smb

import "time"

// A lease break in progress, as Windows runs it (smbtorture
// smb2.lease.breaking3, v2_breaking3, breaking4):
//
//   - An operation that needs a breaking lease broken further does not
//     send a second notification: it narrows breakNeed. When the holder
//     acknowledges a state that keeps more than breakNeed, the next
//     break is sent at once, under the same epoch, in steps: a state
//     with write or handle caching breaks to read caching (plus what is
//     still needed) and is acknowledged; read caching then breaks to
//     none without acknowledgement.
//   - A CREATE waits for a lease's break only when the lease loses
//     write caching, or handle caching the CREATE's share modes
//     conflict with; otherwise it goes on once the break is sent (an
//     overwriting open of a file under an RH lease is answered before
//     the acknowledgement). A CREATE that finds nothing to break on a
//     lease whose break is in progress waits for that break to end,
//     as does one that already waited; stat opens and opens of the
//     lease's own key never wait.

// createWaits judges a lease for a CREATE in that needs it broken to to
// (lt.mu held): handled reports that no break is to be started here;
// wait, that the CREATE waits for the break in progress.
func (g *grant) createWaits(in intent, to uint32) (wait, handled bool) {
	if in.lease != nil && *in.lease == g.lease {
		return false, true
	}
	if to == g.state || in.handlePhase && (g.state&leaseHandle == 0 || to&leaseHandle != 0) {
		return g.breaking && !in.leaseStat, true
	}
	if !g.breaking {
		return false, false
	}
	g.breakNeed &= to
	return in.afterWait || g.delays(in, g.state), true
}

// delays reports whether a CREATE in waits for a lease's break from the
// state from: the lease loses write caching, or handle caching the
// CREATE's share modes conflict with.
func (g *grant) delays(in intent, from uint32) bool {
	mask := leaseWrite
	if g.sharingConflict(in) {
		mask |= leaseHandle
	}
	return from&mask != 0
}

// leaseNotice is a lease break to send once the lock is let go.
type leaseNotice struct {
	g        *grant
	c        *conn
	from, to uint32
	ack      bool
}

// ackBreak ends a lease's break in progress with the state the holder
// kept (lt.mu held). When that keeps more than breakNeed, the next
// break starts at once, under the same epoch; its notice is returned.
func (s *Server) ackBreak(g *grant, state uint32) *leaseNotice {
	need := g.breakNeed
	g.finishBreak(state) // waiters ask again, under lt.mu: they see what follows
	if state&^need == 0 {
		return nil
	}
	c := s.leases.routeOf(g)
	if c == nil {
		return nil
	}
	to := need
	if state&(leaseWrite|leaseHandle) != 0 {
		to |= leaseRead
	}
	to &= state
	n := &leaseNotice{g: g, c: c, from: state, to: to, ack: ackRequired(state, to)}
	if n.ack {
		g.breaking, g.breakTo, g.breakNeed, g.done = true, to, need, make(chan struct{})
		g.timer = time.AfterFunc(s.limits.BreakTimeout, func() { s.breakTimedOut(g) })
	} else {
		g.state = to
	}
	return n
}
