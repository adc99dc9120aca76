package smb

import (
	"context"
	"time"
)

// Renaming a file ends the handle caching other clients' leases hold on
// it, as Windows does (smbtorture smb2.lease.rename_wait, v2_rename): a
// holder that cached a handle must be able to close it before the name
// goes. The renamer's own lease keeps its caching;
// oplocks are not broken (Windows breaks no batch oplock on a rename:
// smb2.oplock.batch20). The rename waits for the acknowledgements,
// answering STATUS_PENDING meanwhile.

// renameBreaks starts the handle-caching breaks a rename through o needs
// and returns what to wait for.
func (c *conn) renameBreaks(acct string, o *open) (nodeKey, intent, []chan struct{}) {
	s := c.srv
	node := nodeKey{acct, o.tree.share, o.id.Persistent}
	in := intent{handleOnly: true, handlePhase: true, open: o}
	s.leases.mu.Lock()
	if g := o.grant; g != nil && g.oplock == nil {
		id := g.lease
		in.lease = &id
	}
	s.leases.mu.Unlock()
	if !s.caching(node.account, node.share) {
		return node, in, nil
	}
	return node, in, s.breakFor(node, in)
}

// renameAfterBreaks runs a rename once the handle-caching breaks it
// started have ended: at once when there were none, else asynchronously
// (STATUS_PENDING first).
func (c *conn) renameAfterBreaks(r *request, o *open, do func() response) response {
	node, in, waits := c.renameBreaks(r.sess.account, o)
	if len(waits) == 0 || r.h.NextCommand != 0 {
		return do()
	}
	return c.runAsync(r, func(ctx context.Context) response {
		bctx, cancel := context.WithTimeout(ctx, c.srv.limits.BreakTimeout+time.Second)
		defer cancel()
		waitBreaks(bctx, waits)
		c.srv.breakAndWait(bctx, node, in)
		if ctx.Err() != nil {
			return errResp(statusCancelled)
		}
		return do()
	})
}
