package smb

// Closing a handle of a delete-pending file while others stay open ends
// the handle caching of the other clients' leases on it, as Windows
// does (the close of a delete-on-close handle breaks handle caching so
// that the holders close theirs and the delete can happen;
// smb2.lease.unlink): RH breaks to R, to be acknowledged. The close
// itself does not wait. The closing open's own lease keeps its caching.

// deleteCloseBreaks is called before o closes: when other leases hold
// handle caching on o's file and the file is delete-pending, it returns
// what starts their breaks once o is closed; else nil.
func (c *conn) deleteCloseBreaks(r *request, o *open) func() {
	s := c.srv
	acct := r.sess.account
	node := nodeKey{acct, o.tree.share, o.id.Persistent}
	if o.dir || !s.caching(node.account, node.share) {
		return nil
	}
	in := intent{handleOnly: true, handlePhase: true, open: o}
	others := false
	s.leases.mu.Lock()
	if g := o.grant; g != nil && g.oplock == nil {
		id := g.lease
		in.lease = &id
	}
	for _, g := range s.leases.byNode[node] {
		if g.oplock == nil && g.state&leaseHandle != 0 && (in.lease == nil || g.lease != *in.lease) {
			others = true
		}
	}
	s.leases.mu.Unlock()
	if !others {
		return nil
	}
	if n, err := c.node(r, o); err != nil || !n.DeletePending {
		return nil
	}
	return func() { s.breakFor(node, in) }
}
