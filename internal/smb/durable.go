package smb

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/cerulean-db/cerulean/internal/file"
)

// Durable handles (MS-SMB2 3.3.5.9.6, 3.3.5.9.7, 3.3.5.9.10, 3.3.5.9.12):
// an open granted with a batch oplock or a lease with handle caching may
// be made durable; when its connection drops, it stays open in the file
// model (its share mode and byte-range locks with it) for the durable
// timeout, and a new connection of the same client and account may
// reclaim it with DHnC (v1) or DH2C (v2, by create GUID). Persistent
// handles (continuous availability) are never granted.

// Durable timeouts: what a v2 request of 0 gets, and the most granted
// (Windows grants at most 300 s; a v1 open keeps the default).
const (
	durableDefault = 60 * time.Second
	durableMax     = 300 * time.Second
)

// durable is what makes an open durable.
type durable struct {
	v2         bool
	resilient  bool // FSCTL_LMR_REQUEST_RESILIENCY (resilient.go)
	createGUID [16]byte
	client     [16]byte
	account    string
	timeout    time.Duration
	timer      *time.Timer // while disconnected
}

// durableTable is the server's durable opens: those disconnected, by
// handle ID, and every v2 one by client and create GUID (replays).
type durableTable struct {
	mu           sync.Mutex
	disconnected map[uint64]*open
	byCreateGUID map[[32]byte]*open
	// purged marks files a durable open was purged from (purgedSince).
	purged map[nodeKey]bool
	// apps is the opens made with an application instance ID, by ID
	// (appinstance.go).
	apps map[[16]byte]map[*open]struct{}
}

func newDurableTable() *durableTable {
	return &durableTable{disconnected: map[uint64]*open{}, byCreateGUID: map[[32]byte]*open{}, purged: map[nodeKey]bool{},
		apps: map[[16]byte]map[*open]struct{}{}}
}

func createKey(client, guid [16]byte) [32]byte {
	var k [32]byte
	copy(k[:16], client[:])
	copy(k[16:], guid[:])
	return k
}

// durableRequest is what a CREATE's durable contexts ask for.
type durableRequest struct {
	v1, v2     bool // DHnQ, DH2Q
	reconnect  *fileID
	reconnect2 bool // the reconnect is DH2C
	createGUID [16]byte
	timeout    time.Duration
	persistent bool
}

// parseDurable reads the durable create contexts (SMB 3.x for the v2
// ones), refusing the combinations MS-SMB2 3.3.5.9.12 refuses.
func parseDurable(ctxs map[string][]byte, smb3 bool) (*durableRequest, uint32) {
	d := &durableRequest{}
	if data, ok := ctxs["DHnQ"]; ok {
		if len(data) < 16 {
			return nil, statusInvalidParameter
		}
		d.v1 = true
	}
	if data, ok := ctxs["DHnC"]; ok {
		if len(data) < 16 {
			return nil, statusInvalidParameter
		}
		id := fileID{le.Uint64(data), le.Uint64(data[8:])}
		d.reconnect = &id
	}
	if smb3 {
		if data, ok := ctxs["DH2Q"]; ok {
			if len(data) < 32 {
				return nil, statusInvalidParameter
			}
			d.v2 = true
			d.timeout = time.Duration(le.Uint32(data)) * time.Millisecond
			d.persistent = le.Uint32(data[4:])&0x02 != 0
			copy(d.createGUID[:], data[16:32])
		}
		if data, ok := ctxs["DH2C"]; ok {
			if len(data) < 36 {
				return nil, statusInvalidParameter
			}
			if d.reconnect != nil {
				return nil, statusInvalidParameter
			}
			id := fileID{le.Uint64(data), le.Uint64(data[8:])}
			d.reconnect, d.reconnect2 = &id, true
			copy(d.createGUID[:], data[16:32])
		}
	}
	switch {
	case d.reconnect2 && (d.v1 || d.v2),
		d.reconnect != nil && !d.reconnect2 && d.v2,
		d.v1 && d.v2:
		return nil, statusInvalidParameter
	}
	if d.reconnect != nil {
		d.v1, d.v2 = false, false // a v1 request beside a v1 reconnect is ignored
	}
	return d, statusSuccess
}

// grantDurable makes o durable when its caching allows it (a batch
// oplock, or a lease with handle caching), and returns the context to
// answer with ("" for none).
func (c *conn) grantDurable(o *open, d *durableRequest, level uint8, g *grant, acct string) (string, []byte) {
	if d == nil || !d.v1 && !d.v2 {
		return "", nil
	}
	c.srv.leases.mu.Lock()
	handleCaching := level == oplockBatch || level == oplockLease && g != nil && g.state&leaseHandle != 0
	c.srv.leases.mu.Unlock()
	if !handleCaching {
		return "", nil
	}
	du := &durable{v2: d.v2, createGUID: d.createGUID, client: c.clientGUID, account: acct, timeout: durableDefault}
	if d.v2 {
		switch {
		case d.timeout == 0:
		case d.timeout > durableMax:
			du.timeout = durableMax
		default:
			du.timeout = d.timeout
		}
	}
	dt := c.srv.durables
	dt.mu.Lock()
	o.durable = du
	if du.v2 {
		dt.byCreateGUID[createKey(du.client, du.createGUID)] = o
	}
	dt.mu.Unlock()
	if !d.v2 {
		return "DHnQ", make([]byte, 8)
	}
	var w buf
	w.u32(uint32(du.timeout / time.Millisecond))
	w.u32(0) // not persistent
	return "DH2Q", w.b
}

// replayed finds the open a v2 durable request's create GUID already
// made for this client: a replayed CREATE answers with it.
func (c *conn) replayed(d *durableRequest) *open {
	if d == nil || !d.v2 {
		return nil
	}
	dt := c.srv.durables
	dt.mu.Lock()
	defer dt.mu.Unlock()
	return dt.byCreateGUID[createKey(c.clientGUID, d.createGUID)]
}

// disconnectSession ends a session whose connection dropped: durable
// opens stay open, disconnected, for their timeout; the rest close.
func (c *conn) disconnectSession(s *session) {
	s.mu.Lock()
	opens := s.opens
	s.opens = map[uint64]*open{}
	s.trees = map[uint32]*tree{}
	s.mu.Unlock()
	for _, o := range opens {
		c.srv.leases.mu.Lock()
		// A break its connection could no longer acknowledge purges a
		// durable open, as one that must break while disconnected is.
		keep := o.durable != nil && (o.grant == nil || !o.grant.breaking)
		if keep {
			o.conn, o.sess = nil, nil
		}
		c.srv.leases.mu.Unlock()
		if !keep {
			c.release(s, o)
			continue
		}
		dt := c.srv.durables
		dt.mu.Lock()
		dt.disconnected[o.id.Volatile] = o
		oo := o
		o.durable.timer = time.AfterFunc(o.durable.timeout, func() { c.srv.expireDurable(oo) })
		dt.mu.Unlock()
	}
}

// expireDurable closes a disconnected durable open: its timeout passed,
// its caching had to break, or the server is closing.
func (s *Server) expireDurable(o *open) {
	dt := s.durables
	dt.mu.Lock()
	if dt.disconnected[o.id.Volatile] != o {
		dt.mu.Unlock()
		return // reclaimed, or closed already
	}
	delete(dt.disconnected, o.id.Volatile)
	if o.durable.timer != nil {
		o.durable.timer.Stop()
	}
	dt.mu.Unlock()
	defer s.forget(o) // after the close, as release does
	s.handles.Add(-1)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	ref := file.HandleRef{Account: o.durable.account, Share: o.tree.share, FileID: o.id.Persistent, HandleID: o.id.Volatile}
	if err := s.files.CloseHandle(ctx, ref); err != nil && !file.IsHandleClosed(err) {
		s.log.Error("smb: closing a durable handle failed", "share", o.tree.share, "path", o.path, "err", err)
	}
}

// closeDisconnected closes every disconnected durable open (the server
// is closing).
func (s *Server) closeDisconnected() {
	dt := s.durables
	dt.mu.Lock()
	var opens []*open
	for _, o := range dt.disconnected {
		opens = append(opens, o)
	}
	dt.mu.Unlock()
	for _, o := range opens {
		s.expireDurable(o)
	}
}

// forget ends an open's caching and durable state: it is closing.
func (s *Server) forget(o *open) {
	s.dropOpen(o)
	s.durables.forgetAppInstance(o)
	if o.durable == nil {
		return
	}
	dt := s.durables
	dt.mu.Lock()
	defer dt.mu.Unlock()
	if !o.durable.v2 {
		return
	}
	if k := createKey(o.durable.client, o.durable.createGUID); dt.byCreateGUID[k] == o {
		delete(dt.byCreateGUID, k)
	}
}

// reconnect answers a CREATE with DHnC or DH2C: the disconnected durable
// open it names, on the same share, of the same account (for v2 with the
// same create GUID; a v1 open has the zero GUID), is reclaimed by this
// session with its handle, share mode, locks and caching. An oplock's
// open may be reclaimed from any client, as Windows allows; a lease's
// only by the lease's client with the same lease key. Anything else is
// STATUS_OBJECT_NAME_NOT_FOUND.
func (c *conn) reconnect(r *request, d *durableRequest, lease *leaseRequest, name string) response {
	s := r.sess
	dt := c.srv.durables
	dt.mu.Lock()
	o := dt.disconnected[d.reconnect.Volatile]
	ok := o != nil && o.id == *d.reconnect && o.durable.account == s.account && o.tree.share == r.tree.share &&
		(!d.reconnect2 || o.durable.createGUID == d.createGUID)
	if ok {
		c.srv.leases.mu.Lock()
		g := o.grant
		if g != nil && g.oplock == nil {
			// A lease is its client's: another client GUID does not
			// reclaim it (MS-SMB2 3.3.5.9.7, 3.3.5.9.12).
			ok = lease != nil && lease.id == g.lease
		} else if lease != nil {
			ok = false
		}
		c.srv.leases.mu.Unlock()
	}
	if !ok {
		dt.mu.Unlock()
		return errResp(statusObjectNameNotFound)
	}
	if path, _ := sharePath(name); lease != nil && !strings.EqualFold(path, o.stored) && !strings.EqualFold(path, o.path) {
		// With a lease, a reconnect naming another file is malformed
		// (Windows), where an oplock's is just not found.
		dt.mu.Unlock()
		return errResp(statusInvalidParameter)
	}
	delete(dt.disconnected, o.id.Volatile)
	o.durable.timer.Stop()
	dt.mu.Unlock()
	ctx, cancel := c.opCtx()
	defer cancel()
	_, n, err := c.srv.files.HandleInfo(ctx, o.handle(s.account))
	if err != nil {
		// Force Close Handles ended it while it was disconnected.
		c.srv.forget(o)
		c.srv.handles.Add(-1)
		if file.IsHandleClosed(err) {
			return errResp(statusObjectNameNotFound)
		}
		return c.fail(r, err)
	}
	c.srv.leases.mu.Lock()
	o.conn, o.sess, o.tree = c, s, r.tree
	level := oplockNone
	var lc []byte
	if g := o.grant; g != nil {
		if g.oplock != nil {
			level = oplockLevel(g.state)
		} else {
			level = oplockLease
			lc = leaseContext(g, lease)
		}
	}
	c.srv.leases.mu.Unlock()
	s.mu.Lock()
	s.opens[o.id.Volatile] = o
	s.mu.Unlock()
	var cs []createContext
	if lc != nil {
		cs = append(cs, createContext{"RqLs", lc})
	}
	id := o.id
	return response{body: createResponse(level, file.Opened, n, o.id, cs), created: &id}
}

// purgedSince reports whether a disconnected durable open on node was
// purged since the last call for node: the handles an open counted are
// then stale.
func (s *Server) purgedSince(node nodeKey) bool {
	dt := s.durables
	dt.mu.Lock()
	defer dt.mu.Unlock()
	if dt.purged[node] {
		delete(dt.purged, node)
		return true
	}
	return false
}
