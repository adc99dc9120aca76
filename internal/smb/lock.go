package smb

import (
	"context"
	"errors"
	"time"

	"github.com/cerulean-db/cerulean/internal/file"
)

// Lock element flags (MS-SMB2 2.2.26.1).
const (
	lockShared          uint32 = 0x01
	lockExclusive       uint32 = 0x02
	lockUnlock          uint32 = 0x04
	lockFailImmediately uint32 = 0x10
)

const statusInvalidLockRange uint32 = 0xC00001A1

// lockRetry is how often a waiting lock retries besides the file
// model's release signal, which only fires for releases this process
// commits.
const lockRetry = 250 * time.Millisecond

// lockStatus maps the byte-range lock errors of the file model.
func lockStatus(err error) (uint32, bool) {
	switch {
	case errors.Is(err, file.ErrRangeNotLocked):
		return statusRangeNotLocked, true
	case errors.Is(err, file.ErrInvalidLockRange):
		return statusInvalidLockRange, true
	case errors.Is(err, file.ErrLockOnDirectory):
		return statusInvalidParameter, true
	case errors.Is(err, file.ErrTooManyLocks):
		return statusInsufficientResources, true
	}
	return 0, false
}

type lockElem struct {
	offset, length uint64
	flags          uint32
}

// lock answers LOCK: unlocks, or locks that fail at once or wait.
func (c *conn) lock(r *request) response {
	b := r.b
	count := int(b.u16(2))
	o, st := c.lookup(r, b.fileID(8))
	if o == nil {
		return errResp(st)
	}
	if b.bad || count == 0 || count > 64 {
		return errResp(statusInvalidParameter)
	}
	elems := make([]lockElem, count)
	for i := range elems {
		elems[i] = lockElem{b.u64(24 + 24*i), b.u64(32 + 24*i), b.u32(40 + 24*i)}
	}
	if b.bad {
		return errResp(statusInvalidParameter)
	}
	// The first element decides whether the request unlocks or locks
	// (MS-SMB2 3.3.5.14). Unlocks are applied in order, and one that is
	// not a plain unlock fails the request, keeping those before it.
	unlock := elems[0].flags&lockUnlock != 0
	wait := false
	// Only a request of one lock may wait: one of several that would
	// is STATUS_INVALID_PARAMETER (MS-SMB2 3.3.5.14.2, as Windows does).
	if !unlock {
		for _, e := range elems {
			switch e.flags &^ lockFailImmediately {
			case lockShared, lockExclusive:
				wait = wait || e.flags&lockFailImmediately == 0
			default:
				return errResp(statusInvalidParameter)
			}
		}
		if wait && count > 1 {
			return errResp(statusInvalidParameter)
		}
	}
	if o.dir {
		return errResp(statusInvalidParameter)
	}
	ls := c.lockSequenceOf(o, b.u32(4))
	if o.replayedLock(ls) {
		return response{body: []byte{4, 0, 0, 0}} // applied already
	}
	acct, share := r.sess.account, o.tree.share
	if unlock {
		ctx, cancel := c.opCtx()
		defer cancel()
		for _, e := range elems {
			if e.flags != lockUnlock {
				return errResp(statusInvalidParameter)
			}
			if err := c.srv.files.Unlock(ctx, o.handle(acct), e.offset, e.length); err != nil {
				return c.gone(r, o, err)
			}
		}
		o.recordLockSequence(ls)
		return response{body: []byte{4, 0, 0, 0}}
	}
	// A byte-range lock ends read caching, as a write does (MS-FSA).
	c.breakOthers(acct, o)
	// Locks are taken in order; when one fails, those taken are released
	// again, so a request takes all of its locks or none.
	try := func(ctx context.Context) (int, error) {
		for i, e := range elems {
			err := c.srv.files.Lock(ctx, o.handle(acct), file.LockRange{Offset: e.offset, Length: e.length, Exclusive: e.flags&lockExclusive != 0})
			if err != nil {
				for _, u := range elems[:i] {
					_ = c.srv.files.Unlock(ctx, o.handle(acct), u.offset, u.length)
				}
				return i, err
			}
		}
		return len(elems), nil
	}
	ctx, cancel := c.opCtx()
	released := c.srv.files.LockReleased(acct, share, o.id.Persistent)
	_, err := try(ctx)
	cancel()
	switch {
	case err == nil:
		o.recordLockSequence(ls)
		return response{body: []byte{4, 0, 0, 0}}
	case !errors.Is(err, file.ErrLockConflict):
		return c.gone(r, o, err)
	case !wait:
		return errResp(statusLockNotGranted)
	}
	// Wait: answer STATUS_PENDING now and the outcome later.
	wctx, wcancel := context.WithCancel(c.ctx)
	p, resp, ok := c.goAsync(r, o, func() { wcancel() })
	if !ok {
		wcancel()
		return resp
	}
	granted := func(ctx context.Context) (int, error) {
		n, err := try(ctx)
		if err == nil {
			o.recordLockSequence(ls)
		}
		return n, err
	}
	p.started = func() { go c.waitLock(r, p, wctx, released, granted) }
	return resp
}

// waitLock retries a blocked lock until it is granted, fails otherwise,
// is cancelled or the connection ends, then sends the final answer.
func (c *conn) waitLock(r *request, p *pendingOp, ctx context.Context, released <-chan struct{}, try func(context.Context) (int, error)) {
	defer p.cancel()
	defer c.forget(p)
	held := p.open
	status := statusSuccess
	timer := time.NewTimer(lockRetry)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
		case <-released:
		case <-timer.C:
			timer.Reset(lockRetry)
		}
		if ctx.Err() != nil {
			if !p.wasCancelled() {
				return // the connection ended: nobody to answer
			}
			status = statusCancelled
			break
		}
		o, _ := c.lookup(r, r.b.fileID(8))
		if o == nil {
			// Windows answers a lock whose handle closed under it
			// RANGE_NOT_LOCKED, and one whose tree or session went away
			// with success.
			r.sess.mu.Lock()
			byClose := held.closedByClose
			r.sess.mu.Unlock()
			status = statusSuccess
			if byClose {
				status = statusRangeNotLocked
			}
			break
		}
		released = c.srv.files.LockReleased(r.sess.account, o.tree.share, o.id.Persistent)
		octx, cancel := context.WithTimeout(ctx, opTimeout)
		_, err := try(octx)
		cancel()
		if err == nil {
			break
		}
		if !errors.Is(err, file.ErrLockConflict) {
			if ctx.Err() != nil {
				continue
			}
			status = c.gone(r, o, err).status
			break
		}
	}
	resp := response{status: status}
	if status == statusSuccess {
		resp.body = []byte{4, 0, 0, 0}
	}
	c.finish(p, resp)
}
