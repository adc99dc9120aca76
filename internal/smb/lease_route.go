package smb

// Windows sends a lease break to the client's first connection (by
// client GUID) that is still up, not necessarily the one the lease's
// opens came in on (smbtorture smb2.lease.v2_complex1): a client with
// several connections hears its breaks on one. The server keeps, per
// client GUID, the connections that opened with a lease in the order
// they first did. A lease whose opens are all disconnected (durable)
// has no connection to be told on, whatever its client has: its opens
// are purged (breakFor). A zero client GUID routes nothing: it names no
// one client.

// clientConns is a client's connections that opened with a lease, in
// order, and how many leases the client holds.
type clientConns struct {
	conns  []*conn
	leases int
}

// noteLeaseConn records that c opened with a lease of client (lt.mu
// held).
func (lt *leaseTable) noteLeaseConn(client [16]byte, c *conn) {
	if c == nil || client == ([16]byte{}) {
		return
	}
	cc := lt.clients[client]
	if cc == nil {
		return // only leases counted by add have an entry
	}
	live := cc.conns[:0]
	seen := false
	for _, x := range cc.conns {
		if x.ctx.Err() == nil {
			live = append(live, x)
			seen = seen || x == c
		}
	}
	clear(cc.conns[len(live):])
	cc.conns = live
	if !seen {
		cc.conns = append(cc.conns, c)
	}
}

// routeOf is the connection g's breaks go to (lt.mu held): nil when
// none of its opens is connected, else its client's first connection
// still up, else that of one of its opens.
func (lt *leaseTable) routeOf(g *grant) *conn {
	c := g.connOf()
	if c == nil || g.oplock != nil {
		return c
	}
	if cc := lt.clients[g.lease.client]; cc != nil {
		for _, x := range cc.conns {
			if x.ctx.Err() == nil {
				return x
			}
		}
	}
	return c
}

// countLease counts a lease of client in or out (lt.mu held); the
// client's entry goes with its last lease.
func (lt *leaseTable) countLease(client [16]byte, delta int) {
	if client == ([16]byte{}) {
		return
	}
	cc := lt.clients[client]
	if cc == nil {
		if delta < 0 {
			return
		}
		cc = &clientConns{}
		lt.clients[client] = cc
	}
	if cc.leases += delta; cc.leases <= 0 {
		delete(lt.clients, client)
	}
}
