package smb

import (
	"slices"
	"time"
)

// settleWait bounds how long an answer waits for the ends of connections
// whose clients have hung up (settle).
const settleWait = 500 * time.Millisecond

// settle waits, for at most settleWait, until no connection but c is one
// whose client has hung up while the server is still answering what it
// sent or closing what it held. Each connection's requests are answered in
// order, but two connections race: a client that drops one connection and
// at once opens the same file on another could otherwise find the open,
// share mode, pending delete or durable handle of the first still held
// because its end was read later than the new CREATE. A CREATE that meets
// such a conflict is tried again once settle returns true (there was a
// connection to wait for); one that meets a live holder is not delayed.
func (s *Server) settle(c *conn) bool {
	deadline := time.Now().Add(settleWait)
	waited := false
	for s.anyHungUp(c) {
		waited = true
		if !time.Now().Before(deadline) {
			break
		}
		select {
		case <-c.ctx.Done():
			return true
		case <-time.After(2 * time.Millisecond):
		}
	}
	return waited
}

// anyHungUp reports whether a connection other than self is still being
// served although its client has hung up.
func (s *Server) anyHungUp(self *conn) bool {
	return slices.ContainsFunc(s.connections(), func(c *conn) bool { return c != self && hungUp(c.nc) })
}

// settledConflict reports whether err is a sharing violation or a
// pending delete that may have been a hung-up client's, and settle waited
// for one: the caller tries again.
func (c *conn) settledConflict(err error) bool {
	st, _ := statusOf(err)
	return (st == statusSharingViolation || st == statusDeletePending) && c.srv.settle(c)
}
