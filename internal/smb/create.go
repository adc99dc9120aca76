package smb

import (
	"context"
	"encoding/base64"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/file"
)

// open is one open file or directory of a session: a handle of the
// file model, addressed by the FileId the client holds.
type open struct {
	id   fileID // Persistent: the node's ID; Volatile: the handle's
	tree *tree
	path string // within the share, "/"-separated; "" is the root
	// stored is path with each name as stored: the case it was created
	// or last renamed with, whatever case the open named it in.
	stored  string
	dir     bool
	granted uint32 // the access mask granted (generic rights expanded)
	enum    *enumState
	// closedByClose is set when CLOSE ended the open (rather than a tree
	// disconnect or logoff): a lock waiting on it then answers as
	// Windows does.
	closedByClose bool
	// watch is the open's change notification state, from its first
	// CHANGE_NOTIFY on (guarded by the server's notifier).
	watch *watch
	// access and share are the model rights it holds and shares, which
	// decide whether another open breaks its handle caching.
	access, share file.Access
	// conn and sess are where it lives (nil while a durable open is
	// disconnected), grant its oplock or lease; guarded by the
	// server's lease table lock.
	conn    *conn
	sess    *session
	grant   *grant
	durable *durable
	// position is the open's FilePositionInformation, kept as set: a
	// reclaimed durable open still has it. Reads and writes leave it, as
	// Windows' SMB server does.
	position atomic.Uint64
	// lockSeq is its LOCK sequence slots (locksequence.go).
	lockSeq lockSequences
	// appInstance is the application instance ID it was made with
	// (appinstance.go); guarded by the durable table's lock.
	appInstance *[16]byte
	// mode is its FileModeInformation, from the create options on
	// (handlestate.go).
	mode atomic.Uint32
}

// handle names the open's handle in the file domain; acct is the
// session's account.
func (o *open) handle(acct string) file.HandleRef {
	return file.HandleRef{Account: acct, Share: o.tree.share, FileID: o.id.Persistent, HandleID: o.id.Volatile}
}

// Access mask bits (MS-SMB2 2.2.13.1).
const (
	accReadData        uint32 = 0x00000001
	accWriteData       uint32 = 0x00000002
	accAppendData      uint32 = 0x00000004
	accReadEA          uint32 = 0x00000008
	accWriteEA         uint32 = 0x00000010
	accExecute         uint32 = 0x00000020
	accReadAttributes  uint32 = 0x00000080
	accWriteAttributes uint32 = 0x00000100
	accDelete          uint32 = 0x00010000
	accReadControl     uint32 = 0x00020000
	accWriteDAC        uint32 = 0x00040000
	accWriteOwner      uint32 = 0x00080000
	accSynchronize     uint32 = 0x00100000
	accMaximumAllowed  uint32 = 0x02000000
	accGenericAll      uint32 = 0x10000000
	accGenericExecute  uint32 = 0x20000000
	accGenericWrite    uint32 = 0x40000000
	accGenericRead     uint32 = 0x80000000
	accAll             uint32 = 0x001F01FF
)

// expandAccess turns generic rights into the specific ones they grant.
func expandAccess(m uint32) uint32 {
	if m&(accGenericAll|accMaximumAllowed) != 0 {
		m |= accAll
	}
	if m&accGenericRead != 0 {
		m |= 0x00120089
	}
	if m&accGenericWrite != 0 {
		m |= 0x00120116
	}
	if m&accGenericExecute != 0 {
		m |= 0x001200A0
	}
	return m &^ (accGenericAll | accGenericExecute | accGenericWrite | accGenericRead | accMaximumAllowed)
}

// accessBits maps wire bits onto the model's access: any of mask set
// grants a.
type accessBits []struct {
	mask uint32
	a    file.Access
}

// model is the model access the bits set in m grant.
func (t accessBits) model(m uint32) file.Access {
	var a file.Access
	for _, b := range t {
		if m&b.mask != 0 {
			a |= b.a
		}
	}
	return a
}

// desiredBits is the part of an access mask that takes part in sharing.
var desiredBits = accessBits{
	{accReadData | accExecute, file.AccessRead},
	{accWriteData | accAppendData, file.AccessWrite},
	{accDelete, file.AccessDelete},
}

// modelAccess is the part of an access mask that takes part in sharing.
func modelAccess(m uint32) file.Access { return desiredBits.model(m) }

// Share access bits.
const (
	shareRead   uint32 = 1
	shareWrite  uint32 = 2
	shareDelete uint32 = 4
)

var shareBits = accessBits{
	{shareRead, file.AccessRead},
	{shareWrite, file.AccessWrite},
	{shareDelete, file.AccessDelete},
}

// modelShare is the access a CREATE's share mask lets others have.
func modelShare(s uint32) file.Access { return shareBits.model(s) }

// Create options and actions.
const (
	optDirectory     uint32 = 0x00000001
	optNonDirectory  uint32 = 0x00000040
	optDeleteOnClose uint32 = 0x00001000
	optOpenByFileID  uint32 = 0x00002000
)

var dispositions = map[uint32]file.Disposition{
	0: file.Supersede, 1: file.OpenExisting, 2: file.CreateNew, 3: file.OpenOrCreate, 4: file.Overwrite, 5: file.OverwriteOrCreate,
}

var createActions = map[file.OpenAction]uint32{file.Superseded: 0, file.Opened: 1, file.Created: 2, file.Overwritten: 3}

// opTimeout bounds one domain call.
const opTimeout = 30 * time.Second

func (c *conn) opCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.ctx, opTimeout)
}

// flagReplay marks a request the client sends again after a dropped
// connection (MS-SMB2 2.2.1.2).
const flagReplay uint32 = 0x20000000

// createArgs is a CREATE as decoded, for the open that may run later
// (after caching breaks).
type createArgs struct {
	ref      file.Ref
	req      file.OpenRequest
	granted  uint32
	level    uint8
	lease    *leaseRequest
	durable  *durableRequest
	app      *[16]byte // the application instance ID
	node     nodeKey
	hasNode  bool
	intended intent
	mode     uint32 // the open's FileModeInformation flags (openMode)
	blobs    blobRequest
}

// create answers CREATE: a durable reconnect, a replayed durable open,
// or an open (file.Open) that first breaks the caching other opens hold
// on the file. When a holder must acknowledge a break, the CREATE answers
// STATUS_PENDING and its outcome once the holders acknowledged or the
// break timed out.
func (c *conn) create(r *request) response {
	b := r.b
	level := b.u8(3)
	impersonation := b.u32(4)
	desired := b.u32(24)
	attrs := b.u32(28)
	shareAcc := b.u32(32)
	disp := b.u32(36)
	opts := b.u32(40)
	nameOff, nameLen := b.u16(44), b.u16(46)
	name := b.buffer(uint32(nameOff), uint32(nameLen))
	contexts := b.buffer(b.u32(48), b.u32(52))
	if b.bad {
		return errResp(statusInvalidParameter)
	}
	ctxs, st := parseContexts(contexts)
	if st != statusSuccess {
		return errResp(st)
	}
	permission, st := createPermission(ctxs["SecD"])
	if st != statusSuccess {
		return errResp(st)
	}
	blobs, st := parseBlobs(ctxs)
	if st != statusSuccess {
		return errResp(st)
	}
	if r.tree.ipc {
		return errResp(statusNotSupported) // named pipes (RPC) are not served
	}
	smb3 := c.dialect >= dialect300
	dur, st := parseDurable(ctxs, smb3)
	if st != statusSuccess {
		return errResp(st)
	}
	var lease *leaseRequest
	if data, ok := ctxs["RqLs"]; ok && c.dialect >= dialect210 {
		if lease, ok = parseLease(data, c.clientGUID, smb3); !ok {
			return errResp(statusInvalidParameter)
		}
	}
	if dur.reconnect != nil {
		// A reconnect names the lease it had whatever oplock level it
		// asks for.
		resp := c.reconnect(r, dur, lease, fromUTF16LE(name))
		if resp.status == statusObjectNameNotFound && c.srv.settle(c) {
			// The connection that held the open may be ending.
			resp = c.reconnect(r, dur, lease, fromUTF16LE(name))
		}
		return resp
	}
	if level != oplockLease {
		lease = nil
	}
	if o := c.replayed(dur); o != nil {
		if r.h.Flags&flagReplay == 0 {
			return errResp(statusDuplicateObjectID)
		}
		return c.replay(r, o, lease)
	}
	if impersonation > 3 {
		return errResp(statusBadImpersonationLevel)
	}
	if st := checkCreateFields(desired, attrs, opts, disp); st != statusSuccess {
		return errResp(st)
	}
	app, st := parseAppInstance(ctxs, smb3)
	if st != statusSuccess {
		return errResp(st)
	}
	var reserve int64 // SMB2_CREATE_ALLOCATION_SIZE (MS-SMB2 3.3.5.9.3)
	if data, ok := ctxs["AlSi"]; ok {
		if len(data) < 8 {
			return errResp(statusInvalidParameter)
		}
		if reserve = int64(le.Uint64(data)); reserve < 0 || reserve > file.MaxFileSize {
			return errResp(statusDiskFull)
		}
	}
	if len(name) >= 2 && name[0] == '\\' && name[1] == 0 {
		return errResp(statusInvalidParameter) // a leading separator, as Windows refuses it
	}
	path, ok := sharePath(fromUTF16LE(name))
	if !ok {
		return errResp(statusObjectNameInvalid)
	}
	if data, ok := ctxs["TWrp"]; ok {
		return errResp(c.timewarp(r, data))
	}
	d, ok := dispositions[disp]
	granted := expandAccess(desired)
	switch {
	case !ok, opts&optDirectory != 0 && opts&optNonDirectory != 0, opts&optDirectory != 0 && attrs&attrTemporary != 0,
		opts&optDeleteOnClose != 0 && granted&accDelete == 0,
		opts&optDirectory != 0 && d != file.OpenExisting && d != file.CreateNew && d != file.OpenOrCreate:
		return errResp(statusInvalidParameter)
	case opts&optOpenByFileID != 0:
		return errResp(statusNotSupported)
	}
	s := r.sess
	a := &createArgs{
		ref:     file.Ref{Account: s.account, Share: r.tree.share, Path: path},
		granted: granted,
		level:   level,
		lease:   lease,
		durable: dur,
		app:     app,
		mode:    opts & modeFlags,
		blobs:   blobs,
		req: file.OpenRequest{
			HandleOptions: file.HandleOptions{Dir: opts&optDirectory != 0, Access: modelAccess(granted), ShareAccess: modelShare(shareAcc),
				DeleteOnClose: opts&optDeleteOnClose != 0, SessionID: s.id, ClientIP: c.clientIP, ClientName: s.client},
			Disposition: d,
			NonDir:      opts&optNonDirectory != 0,
			Attributes:  attrNames(attrs, opts&optDirectory != 0, true),
			Permission:  permission,
			Allocation:  reserve,
		},
	}
	a.intended = intent{access: a.req.Access, share: a.req.ShareAccess,
		attrOnly:  granted&^(accReadAttributes|accWriteAttributes|accSynchronize) == 0,
		leaseStat: granted&^(accReadAttributes|accWriteAttributes|accSynchronize|accReadControl) == 0,
		overwrite: d == file.Overwrite || d == file.OverwriteOrCreate || d == file.Supersede, creating: true}
	if lease != nil {
		a.intended.lease = &lease.id
	}
	// The opens an earlier instance of the application left close
	// before this one meets them.
	c.closeAppInstance(app, s.account, r.tree.share, path)
	ctx, cancel := c.opCtx()
	id, exists, err := c.srv.files.NodeID(ctx, a.ref)
	if c.settledConflict(err) {
		// The open that made the file pending may have been one a
		// hung-up client's connection was closing.
		id, exists, err = c.srv.files.NodeID(ctx, a.ref)
	}
	cancel()
	a.node, a.hasNode = nodeKey{s.account, r.tree.share, id}, exists
	if errors.Is(err, azerr.ErrDeletePending) && exists {
		// A disconnected durable open that made the file pending goes
		// when this open breaks its caching, and the file with it.
		pre := a.intended
		pre.handlePhase, pre.purgeOnly = true, true
		c.srv.breakFor(a.node, pre)
		if c.srv.purgedSince(a.node) {
			return c.openFile(r, a, nil)
		}
	}
	if err != nil {
		return c.fail(r, err)
	}
	if lease != nil && c.srv.leaseElsewhere(lease.id, a.node, exists) {
		return errResp(statusInvalidParameter)
	}
	if !exists {
		return c.openFile(r, a, nil)
	}
	// Handle caching breaks before the sharing check: a holder that
	// cached a handle it no longer needs closes it on the break.
	pre := a.intended
	pre.handlePhase = true
	waits := c.srv.breakFor(a.node, pre)
	if len(waits) == 0 || r.h.NextCommand != 0 {
		// Requests after it in a compound need its FileId now: such an
		// open does not wait for the holders (they are told all the
		// same).
		return c.openFile(r, a, nil)
	}
	return c.runAsync(r, func(ctx context.Context) response {
		bctx, cancel := context.WithTimeout(ctx, c.srv.limits.BreakTimeout+time.Second)
		defer cancel()
		waitBreaks(bctx, waits)
		pre.afterWait = true
		c.srv.breakAndWait(bctx, a.node, pre)
		if ctx.Err() != nil {
			return errResp(statusCancelled)
		}
		return c.openFile(r, a, ctx)
	})
}

// runAsync answers a request STATUS_PENDING and runs fn on its own
// goroutine once that interim answer is sent; fn's answer is sent then
// (unless a CANCEL answered first). fn's context ends on CANCEL or when
// the connection ends.
func (c *conn) runAsync(r *request, fn func(context.Context) response) response {
	wctx, wcancel := context.WithCancel(c.ctx)
	p, resp, ok := c.goAsync(r, nil, wcancel)
	if !ok {
		wcancel()
		return resp
	}
	p.started = func() {
		go func() {
			defer wcancel()
			resp := fn(wctx)
			if c.ctx.Err() != nil {
				return // the connection ended: nobody to answer
			}
			c.finish(p, resp)
		}()
	}
	return resp
}

// openFile makes the open a CREATE asks for once handle caching is
// broken, then breaks the caching it still conflicts with (write
// caching, level II on an overwrite), waiting for acknowledgements
// (asynchronously when ctx is nil: the read loop runs it), and grants
// the open caching and durability.
func (c *conn) openFile(r *request, a *createArgs, ctx context.Context) response {
	s := r.sess
	s.mu.Lock()
	full := len(s.opens) >= c.srv.limits.MaxHandlesPerSession
	s.mu.Unlock()
	if full {
		return errResp(statusInsufficientResources)
	}
	if c.srv.handles.Add(1) > int64(c.srv.limits.MaxHandles) {
		c.srv.handles.Add(-1)
		return errResp(statusInsufficientResources)
	}
	octx, cancel := c.opCtx()
	defer cancel()
	res, err := c.srv.files.Open(octx, a.ref, a.req)
	if c.settledConflict(err) {
		res, err = c.srv.files.Open(octx, a.ref, a.req)
	}
	if err != nil {
		c.srv.handles.Add(-1)
		if a.req.DeleteOnClose && errors.Is(err, azerr.ErrReadOnlyAttribute) {
			return errResp(statusCannotDelete)
		}
		return c.fail(r, err)
	}
	o := &open{id: fileID{res.Handle.FileID, res.Handle.ID}, tree: r.tree, path: a.ref.Path, stored: res.Path, dir: res.Node.Dir, granted: a.granted,
		access: a.req.Access, share: a.req.ShareAccess, conn: c, sess: s}
	o.mode.Store(a.mode)
	c.learnPaths(s.account, o, res.Node)
	s.mu.Lock()
	s.opens[o.id.Volatile] = o
	s.mu.Unlock()
	node := nodeKey{a.ref.Account, a.ref.Share, res.Node.ID}
	waits := c.srv.breakFor(node, a.intended)
	if len(waits) == 0 && c.srv.purgedSince(node) {
		if hs, err := c.srv.files.NodeHandles(octx, node.account, node.share, node.id); err == nil {
			res.Handles = hs
		}
	}
	if len(waits) > 0 && r.h.NextCommand == 0 {
		// The open is made; its answer waits for the holders. A CANCEL
		// no longer undoes it.
		wait := func() response {
			bctx, cancel := context.WithTimeout(context.Background(), c.srv.limits.BreakTimeout+time.Second)
			defer cancel()
			waitBreaks(bctx, waits)
			again := a.intended
			again.afterWait = true
			c.srv.breakAndWait(bctx, node, again)
			// Holders may have closed instead of acknowledging.
			if hs, err := c.srv.files.NodeHandles(bctx, node.account, node.share, node.id); err == nil {
				res.Handles = hs
			}
			return c.granted(r, a, o, node, res)
		}
		if ctx == nil {
			return c.runAsync(r, func(context.Context) response { return wait() })
		}
		return wait()
	}
	return c.granted(r, a, o, node, res)
}

// granted grants a made open its caching and durability and answers.
func (c *conn) granted(r *request, a *createArgs, o *open, node nodeKey, res *file.OpenResult) response {
	s := r.sess
	level, g := c.srv.grantFor(o, node, a.level, a.lease, res.Handles)
	var cs []createContext
	if a.lease != nil && level == oplockLease {
		c.srv.leases.mu.Lock()
		cs = append(cs, createContext{"RqLs", leaseContext(g, a.lease)})
		c.srv.leases.mu.Unlock()
	}
	if name, data := c.grantDurable(o, a.durable, level, g, s.account); name != "" {
		cs = append(cs, createContext{name, data})
	}
	c.srv.noteAppInstance(o, a.app)
	cs = append(cs, a.blobs.contexts(res.Node)...)
	id := o.id
	return response{body: createResponse(level, res.Action, res.Node, o.id, cs), created: &id}
}

// replay answers a replayed CREATE with the open the first one made.
func (c *conn) replay(r *request, o *open, lease *leaseRequest) response {
	s := r.sess
	s.mu.Lock()
	mine := s.opens[o.id.Volatile] == o
	s.mu.Unlock()
	if !mine {
		return errResp(statusDuplicateObjectID)
	}
	n, err := c.node(r, o)
	if err != nil {
		return c.gone(r, o, err)
	}
	level := oplockNone
	var cs []createContext
	c.srv.leases.mu.Lock()
	if g := o.grant; g != nil {
		if g.oplock != nil {
			level = oplockLevel(g.state)
		} else if lease != nil {
			level = oplockLease
			cs = append(cs, createContext{"RqLs", leaseContext(g, lease)})
		}
	}
	c.srv.leases.mu.Unlock()
	id := o.id
	return response{body: createResponse(level, file.Opened, n, o.id, cs), created: &id}
}

// createContext is one create context of a CREATE response.
type createContext struct {
	name string
	data []byte
}

// createResponse encodes a CREATE response (MS-SMB2 2.2.14) with its
// create contexts.
func createResponse(level uint8, action file.OpenAction, n *file.Node, id fileID, cs []createContext) []byte {
	var w buf
	w.u16(89)
	w.u8(level)
	w.u8(0)
	w.u32(createActions[action])
	w.openInfo(n)
	w.u32(0)
	w.fileID(id)
	if len(cs) == 0 {
		w.u32(0)
		w.u32(0)
		w.u8(0)
		return w.b
	}
	var cw buf
	for i, cc := range cs {
		start := len(cw.b)
		next := 0
		cw.u32(0) // Next, set below
		cw.u16(16)
		cw.u16(uint16(len(cc.name)))
		cw.u16(0)
		cw.u16(24)
		cw.u32(uint32(len(cc.data)))
		cw.raw([]byte(cc.name))
		cw.align(8)
		cw.raw(cc.data)
		if i < len(cs)-1 {
			cw.align(8)
			next = len(cw.b) - start
		}
		le.PutUint32(cw.b[start:], uint32(next))
	}
	w.u32(headerSize + 88)
	w.u32(uint32(len(cw.b)))
	w.raw(cw.b)
	return w.b
}

// parseContexts reads a CREATE's create contexts (MS-SMB2 2.2.13.2) by
// name; a malformed chain is STATUS_INVALID_PARAMETER.
func parseContexts(contexts []byte) (map[string][]byte, uint32) {
	out := map[string][]byte{}
	for len(contexts) > 0 {
		if len(contexts) < 16 {
			return nil, statusInvalidParameter
		}
		next := le.Uint32(contexts)
		nameOff, nameLen := int(le.Uint16(contexts[4:])), int(le.Uint16(contexts[6:]))
		dataOff, dataLen := int(le.Uint16(contexts[10:])), int(le.Uint32(contexts[12:]))
		end := len(contexts)
		if next != 0 {
			end = int(next)
		}
		// A name is at least four bytes, as Windows requires.
		if end > len(contexts) || nameLen < 4 || nameOff+nameLen > end || dataOff+dataLen > end || next != 0 && next%8 != 0 {
			return nil, statusInvalidParameter
		}
		out[string(contexts[nameOff:nameOff+nameLen])] = contexts[dataOff : dataOff+dataLen]
		if next == 0 {
			break
		}
		contexts = contexts[end:]
	}
	return out, statusSuccess
}

// sharePath turns an SMB path ("dir\file", no leading separator) into a
// path of the file model, refusing names Azure Files refuses: those
// FileREST refuses (file.CheckPath), and '/' within a name.
func sharePath(name string) (string, bool) {
	name = strings.TrimPrefix(name, "\\")
	name = strings.TrimSuffix(name, "::$DATA")
	if name == "" {
		return "", true
	}
	if strings.Contains(name, "/") {
		return "", false
	}
	path := strings.ReplaceAll(name, "\\", "/")
	if file.CheckPath(path) != nil {
		return "", false
	}
	return path, true
}

// createPermission reads the security descriptor create context
// ("SecD", MS-SMB2 2.2.13.2.1) of a CREATE as the SDDL a created file or
// directory gets: "" when there is none (data nil). A descriptor without
// an SDDL form is STATUS_INVALID_SECURITY_DESCR.
func createPermission(data []byte) (string, uint32) {
	if data == nil {
		return "", statusSuccess
	}
	d, ok := parseDescriptor(data)
	if !ok || d.owner == nil || d.group == nil || d.dacl == nil && !d.nullDACL {
		// Azure Files keeps owner, group and DACL; a part
		// left out is taken from the default permission.
		def, _ := file.Descriptor("")
		dd, _ := parseDescriptor(def)
		if !ok {
			return "", statusInvalidSecurityDescr
		}
		if d.owner == nil {
			d.owner = dd.owner
		}
		if d.group == nil {
			d.group = dd.group
		}
		if d.dacl == nil && !d.nullDACL {
			d.dacl, d.daclControl = dd.dacl, dd.daclControl
		}
	}
	sddl, err := file.BinaryToSDDL(base64.StdEncoding.EncodeToString(d.encode(ownerSecurityInformation | groupSecurityInformation | daclSecurityInformation)))
	if err != nil {
		return "", statusInvalidSecurityDescr
	}
	return sddl, statusSuccess
}

// lookup finds the open a request's FileId names. A related request
// of a compound that sends the all-ones FileId means the file the
// operation before it named (MS-SMB2 3.3.5.2.7.2); when there is none,
// it answers the failed CREATE's status if one failed in the compound,
// else STATUS_FILE_CLOSED, as an unknown FileId does.
func (c *conn) lookup(r *request, id fileID) (*open, uint32) {
	ch := r.chain
	if r.related && id == relatedFileID && ch != nil {
		if ch.file == nil {
			if ch.createErr != statusSuccess {
				return nil, ch.createErr
			}
			return nil, statusFileClosed
		}
		id = *ch.file
	}
	s := r.sess
	s.mu.Lock()
	o := s.opens[id.Volatile]
	s.mu.Unlock()
	if o == nil || o.id != id {
		if ch != nil {
			ch.file = nil
			if r.related && ch.createErr != statusSuccess {
				return nil, ch.createErr
			}
		}
		return nil, statusFileClosed
	}
	if ch != nil {
		ch.file = &o.id
	}
	return o, statusSuccess
}

// openOf finds the open a request names once its fixed part is read: a
// request cut short answers STATUS_INVALID_PARAMETER before the FileId is
// looked at.
func (c *conn) openOf(r *request, id fileID) (*open, uint32) {
	if r.b.bad {
		return nil, statusInvalidParameter
	}
	return c.lookup(r, id)
}

// node is the file or directory an open names, as the file model has it.
func (c *conn) node(r *request, o *open) (*file.Node, error) {
	ctx, cancel := c.opCtx()
	defer cancel()
	_, n, err := c.srv.files.HandleInfo(ctx, o.handle(r.sess.account))
	return n, err
}

// gone answers a domain error on an open: a handle the file model no
// longer has (force-closed, or its share deleted) is forgotten and
// answers STATUS_FILE_CLOSED, as Azure answers after Force Close Handles.
func (c *conn) gone(r *request, o *open, err error) response {
	if file.IsHandleClosed(err) {
		s := r.sess
		s.mu.Lock()
		forgotten := s.opens[o.id.Volatile] == o
		if forgotten {
			delete(s.opens, o.id.Volatile)
			c.srv.handles.Add(-1)
		}
		s.mu.Unlock()
		c.unwatch(o) // a change notification waiting on it ends too
		if forgotten {
			c.srv.forget(o)
		}
	}
	return c.fail(r, err)
}

// release closes an open's handle in the file model (it may already be
// gone) and gives back its place under the handle limit.
func (c *conn) release(s *session, o *open) {
	c.unwatch(o)
	// The handle closes before its caching ends: an open waiting on a
	// break then finds it gone.
	defer c.srv.forget(o)
	c.srv.handles.Add(-1)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if err := c.srv.files.CloseHandle(ctx, o.handle(s.account)); err != nil && !file.IsHandleClosed(err) {
		c.srv.log.Error("smb: closing a handle failed", "share", o.tree.share, "path", o.path, "err", err)
	}
}

// closeFile answers CLOSE, with the file's attributes when asked.
func (c *conn) closeFile(r *request) response {
	flags := r.b.u16(2)
	o, st := c.openOf(r, r.b.fileID(8))
	if o == nil {
		return errResp(st)
	}
	var n *file.Node
	if flags&1 != 0 {
		n, _ = c.node(r, o)
	}
	s := r.sess
	s.mu.Lock()
	delete(s.opens, o.id.Volatile)
	o.closedByClose = true
	s.mu.Unlock()
	c.unwatch(o)
	c.srv.handles.Add(-1)
	breaks := c.deleteCloseBreaks(r, o)
	ctx, cancel := c.opCtx()
	defer cancel()
	err := c.srv.files.CloseHandle(ctx, o.handle(s.account))
	c.srv.forget(o) // after the close: an open waiting on a break finds it gone
	if err != nil {
		return c.fail(r, err)
	}
	if breaks != nil {
		breaks()
	}
	var w buf
	w.u16(60)
	if n != nil {
		w.u16(1)
		w.u32(0)
		w.openInfo(n)
	} else {
		w.zero(58)
	}
	return response{body: w.b}
}

// flush answers FLUSH: every acknowledged write is already durable.
func (c *conn) flush(r *request) response {
	o, st := c.lookup(r, r.b.fileID(8))
	if o == nil {
		return errResp(st)
	}
	if _, err := c.node(r, o); err != nil {
		return c.gone(r, o, err)
	}
	return response{body: []byte{4, 0, 0, 0}}
}

// read answers READ.
func (c *conn) read(r *request) response {
	b := r.b
	length := b.u32(4)
	offset := b.u64(8)
	id := b.fileID(16)
	minCount := b.u32(32)
	o, st := c.openOf(r, id)
	if o == nil {
		return errResp(st)
	}
	switch {
	case o.dir:
		return errResp(statusInvalidDeviceRequest)
	case o.granted&(accReadData|accExecute) == 0:
		return errResp(statusAccessDenied)
	case length > maxIO, offset > math.MaxInt64-uint64(length):
		// Offsets are signed 64-bit on the wire's other side: one whose
		// read would end beyond 2^63-1 is invalid (smbtorture
		// smb2.rw.invalid); one only beyond any file reads nothing.
		return errResp(statusInvalidParameter)
	case offset > file.MaxFileSize:
		if length == 0 {
			return response{body: readResponse(nil)}
		}
		return errResp(statusEndOfFile)
	}
	ctx, cancel := c.opCtx()
	defer cancel()
	data, _, err := c.srv.files.ReadHandle(ctx, o.handle(r.sess.account), int64(offset), int(length))
	if err != nil {
		return c.gone(r, o, err)
	}
	if (len(data) == 0 && length > 0) || uint32(len(data)) < minCount {
		return errResp(statusEndOfFile)
	}
	return response{body: readResponse(data)}
}

func readResponse(data []byte) []byte {
	var w buf
	w.u16(17)
	w.u8(headerSize + 16)
	w.u8(0)
	w.u32(uint32(len(data)))
	w.u32(0)
	w.u32(0)
	w.raw(data)
	return w.b
}

// writeFile answers WRITE.
func (c *conn) writeFile(r *request) response {
	b := r.b
	dataOff := b.u16(2)
	length := b.u32(4)
	offset := b.u64(8)
	id := b.fileID(16)
	data := b.buffer(uint32(dataOff), length)
	o, st := c.openOf(r, id)
	if o == nil {
		return errResp(st)
	}
	switch {
	case o.dir:
		return errResp(statusInvalidDeviceRequest)
	case o.granted&(accWriteData|accAppendData) == 0:
		return errResp(statusAccessDenied)
	case length > maxIO:
		return errResp(statusInvalidParameter)
	case offset == ^uint64(0) && o.granted&accWriteData == 0: // append to an append-only open
		n, err := c.node(r, o)
		if err != nil {
			return c.gone(r, o, err)
		}
		offset = uint64(n.Size)
	case offset > math.MaxInt64-uint64(length):
		// As Windows answers (smbtorture smb2.rw.invalid): an end
		// beyond a signed 64-bit offset is invalid, and so is a write
		// ending beyond the largest file NTFS holds; one ending beyond
		// Azure's 4 TiB is a full disk.
		return errResp(statusInvalidParameter)
	case length == 0:
	case offset+uint64(length) > ntfsMaxFileSize:
		return errResp(statusInvalidParameter)
	case offset+uint64(length) > file.MaxFileSize:
		return errResp(statusDiskFull)
	}
	if length == 0 {
		return response{body: writeBody(0)}
	}
	if err := c.writeRange(r, o, int64(offset), data); err != nil {
		return c.gone(r, o, err)
	}
	return response{body: writeBody(length)}
}

// writeRange stores data at offset through the open: the one path by
// which SMB changes a file's bytes (WRITE and server-side copy). As a
// write, it first ends the read caching others hold on the file, then
// writes through the file model, which checks byte-range locks and
// gives the file a new version as Put Range does.
func (c *conn) writeRange(r *request, o *open, offset int64, data []byte) error {
	c.breakOthers(r.sess.account, o)
	ctx, cancel := c.opCtx()
	defer cancel()
	_, err := c.srv.files.WriteHandle(ctx, o.handle(r.sess.account), offset, data)
	return err
}

// ntfsMaxFileSize is the largest file NTFS holds (16 TiB less 64 KiB).
const ntfsMaxFileSize = 0xfffffff0000

func writeBody(n uint32) []byte {
	var w buf
	w.u16(17)
	w.u16(0)
	w.u32(n)
	w.u32(0)
	w.u16(0)
	w.u16(0)
	return w.b
}

// attributes: the names the file model keeps and their bits.
var attrTable = []struct {
	name string
	bit  uint32
}{
	{"ReadOnly", 0x1}, {"Hidden", 0x2}, {"System", 0x4}, {"Directory", 0x10}, {"Archive", 0x20},
	{"Temporary", 0x100}, {"Offline", 0x1000}, {"NotContentIndexed", 0x2000}, {"NoScrubData", 0x20000},
}

const (
	attrNormal    uint32 = 0x80
	attrTemporary uint32 = 0x100
)

// attrNames turns attribute bits into the file model's names; a create
// with none ("" with forCreate) takes the model's default, a change to
// none stores "None".
func attrNames(bits uint32, dir, forCreate bool) string {
	var names []string
	for _, a := range attrTable {
		if bits&a.bit != 0 && a.name != "Directory" {
			names = append(names, a.name)
		}
	}
	if dir {
		names = append([]string{"Directory"}, names...)
		if len(names) == 1 && forCreate {
			return ""
		}
		// Keep the model's order: ReadOnly, Hidden, System before Directory.
		names = orderNames(names)
	}
	if len(names) == 0 {
		if forCreate {
			return ""
		}
		return "None"
	}
	return strings.Join(names, " | ")
}

func orderNames(names []string) []string {
	set := map[string]bool{}
	for _, n := range names {
		set[n] = true
	}
	var out []string
	for _, a := range attrTable {
		if set[a.name] {
			out = append(out, a.name)
		}
	}
	return out
}

// attrBits is a node's FileAttributes.
func attrBits(n *file.Node) uint32 {
	var bits uint32
	for _, part := range strings.Split(n.SMB.Attributes, "|") {
		part = strings.TrimSpace(part)
		for _, a := range attrTable {
			if strings.EqualFold(part, a.name) {
				bits |= a.bit
			}
		}
	}
	if n.Dir {
		bits |= 0x10
	}
	if bits == 0 {
		bits = attrNormal
	}
	return bits
}

func endOfFile(n *file.Node) uint64 {
	if n.Dir {
		return 0
	}
	return uint64(n.Size)
}

// allocation is the size rounded up to 4 KiB clusters, or the space an
// open reserved beyond it while the file is open.
func allocation(n *file.Node) uint64 {
	return uint64(n.Allocated())
}
