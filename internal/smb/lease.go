package smb

import (
	"context"
	"sync"
	"time"

	"github.com/cerulean-db/cerulean/internal/file"
)

// Caching an SMB client may be granted on a file (MS-SMB2 2.2.13,
// 2.2.13.2.8): oplocks (level II, exclusive, batch) belong to one open,
// leases to a client's lease key and every open that names it. Both are
// kept as one lease state: level II is R, exclusive RW, batch RWH.
const (
	leaseRead   uint32 = 0x01
	leaseHandle uint32 = 0x02
	leaseWrite  uint32 = 0x04
)

// Oplock levels of CREATE and OPLOCK_BREAK.
const (
	oplockNone      uint8 = 0x00
	oplockLevelII   uint8 = 0x01
	oplockExclusive uint8 = 0x08
	oplockBatch     uint8 = 0x09
	oplockLease     uint8 = 0xFF
)

// Statuses only caching answers.
const (
	statusUnsuccessful      uint32 = 0xC0000001
	statusDuplicateObjectID uint32 = 0xC000022A
)

// Lease flags.
const (
	leaseFlagBreakInProgress uint32 = 0x02
	leaseFlagParentKeySet    uint32 = 0x04
	breakFlagAckRequired     uint32 = 0x01
)

// oplockState is the lease state an oplock level stands for, and back.
func oplockState(level uint8) uint32 {
	switch level {
	case oplockLevelII:
		return leaseRead
	case oplockExclusive:
		return leaseRead | leaseWrite
	case oplockBatch:
		return leaseRead | leaseWrite | leaseHandle
	}
	return 0
}

func oplockLevel(state uint32) uint8 {
	switch {
	case state&(leaseWrite|leaseHandle) == leaseWrite|leaseHandle:
		return oplockBatch
	case state&leaseWrite != 0:
		return oplockExclusive
	case state&leaseRead != 0:
		return oplockLevelII
	}
	return oplockNone
}

// validLeaseState keeps the states Windows grants (R, RH, RW, RWH); any
// other asked-for state gets none.
func validLeaseState(s uint32) uint32 {
	s &= leaseRead | leaseHandle | leaseWrite
	if s&leaseRead == 0 {
		return 0
	}
	return s
}

// nodeKey names a file of the file model.
type nodeKey struct {
	account, share string
	id             uint64
}

// leaseID names a lease: the client that holds it and its key.
type leaseID struct {
	client [16]byte
	key    [16]byte
}

// grant is the caching granted on one file to one owner: an open's oplock
// (oplock set) or a lease.
type grant struct {
	node   nodeKey
	state  uint32
	oplock *open // the oplock's open; nil for a lease
	lease  leaseID
	v2     bool
	epoch  uint16
	parent *[16]byte
	opens  map[*open]struct{}
	// home is the connection the lease was granted on: its breaks go
	// there while one of its opens lives there.
	home *conn
	// breaking is set from a break notification until the holder
	// acknowledges it, closes its last open, or breakTimeout passes;
	// done is closed then.
	breaking bool
	breakTo  uint32
	// breakNeed (a lease's) is what the operations that met the break
	// in progress need it broken to; at most breakTo. An
	// acknowledgement that keeps more starts the next break at once
	// (lease_breaking.go).
	breakNeed uint32
	done      chan struct{}
	timer     *time.Timer
}

// leaseTable is the server's caching state: every grant by file and every
// lease by its ID. It is kept in memory only: after a restart no client
// holds caching, and the file model's handles are what remains.
type leaseTable struct {
	mu     sync.Mutex
	byNode map[nodeKey][]*grant
	leases map[leaseID]*grant
	// perShare counts grants by account and share, so that a FileREST
	// operation on a share nobody caches costs no lookup.
	perShare map[[2]string]int
	// clients routes lease breaks by client GUID (lease_route.go).
	clients map[[16]byte]*clientConns
}

func newLeaseTable() *leaseTable {
	return &leaseTable{byNode: map[nodeKey][]*grant{}, leases: map[leaseID]*grant{}, perShare: map[[2]string]int{}, clients: map[[16]byte]*clientConns{}}
}

// intent is what an operation about to reach a file does, as breaking
// judges it.
type intent struct {
	// owner: the lease or open the operation comes from, whose own
	// caching it does not break.
	lease *leaseID
	open  *open
	// access and share are the model rights of an open (REST: none).
	access, share file.Access
	// attrOnly opens (stat opens: attributes and synchronize access
	// only) break no oplock; leaseStat opens (those, or read-control
	// access too) break no lease.
	attrOnly, leaseStat bool
	// handlePhase: only the breaks that end handle caching, which come
	// before the open's sharing check (a batch oplock, a lease's H);
	// the rest follow once the open is made.
	handlePhase bool
	// afterWait: the operation waited for a break in progress; an
	// overwrite then takes handle caching only, as Windows does.
	afterWait bool
	// purgeOnly: only disconnected durable holders are broken (purged).
	purgeOnly bool
	// overwrite (an overwriting open, a write, a truncation, a REST
	// change) ends all caching; rest is a FileREST operation.
	overwrite bool
	// read is a FileREST read: only write caching ends.
	read bool
	// handleOnly: a rename through open, or its close on a
	// delete-pending file, which end other leases' handle caching only.
	handleOnly bool
	// creating: a CREATE, which waits for a lease's break only where
	// Windows makes it wait (grant.createWaits).
	creating bool
}

// target is the state g must break to before the operation in may go on.
// In the handle phase (before an open's sharing check) only handle
// caching goes: a batch oplock breaks to level II, a lease loses H when
// the open would conflict with its opens' share modes. After it, write
// caching goes too (an exclusive oplock to level II).
func (g *grant) target(in intent) uint32 {
	s := g.state
	switch {
	case in.lease != nil && g.oplock == nil && *in.lease == g.lease,
		in.open != nil && g.oplock == in.open && s&leaseWrite != 0:
		// An owner's own caching stands, but a write or lock through
		// an open with a level II oplock breaks that oplock too.
		return s
	case in.handleOnly:
		if g.oplock != nil {
			return s
		}
		return s &^ leaseHandle
	case in.read:
		return s &^ leaseWrite
	case !in.overwrite && (g.oplock != nil && in.attrOnly || g.oplock == nil && in.leaseStat):
		return s
	}
	t := s
	if t&leaseHandle != 0 && (g.oplock != nil || in.overwrite || g.sharingConflict(in)) {
		t &^= leaseHandle
	}
	if in.overwrite && in.handlePhase && !in.afterWait && g.oplock == nil {
		t = 0 // an overwrite ends a lease at once
	}
	if !in.handlePhase {
		t &^= leaseWrite
		if in.overwrite {
			t = 0
		}
	}
	switch {
	case g.oplock != nil && t != s && in.overwrite:
		t = 0 // an overwrite breaks an oplock to none at once
	case g.oplock != nil && t != s && t != 0:
		t = leaseRead // an oplock breaks to level II
	}
	return t
}

// sharingConflict reports whether an open of in could not be made beside
// the grant's opens (its handle caching would keep one of them open).
func (g *grant) sharingConflict(in intent) bool {
	for o := range g.opens {
		a, s := o.access, o.share
		if a == 0 || in.access == 0 {
			continue
		}
		if in.access&^s != 0 || a&^in.share != 0 {
			return true
		}
	}
	return false
}

// ackRequired reports whether breaking from to to waits for the
// holder: a lease losing write or handle caching, an oplock losing
// exclusivity.
func ackRequired(from, to uint32) bool {
	return from&(leaseWrite|leaseHandle) != 0 && from != to
}

// breakFor starts the breaks an operation in on node needs and returns
// what to wait for: the done channels of breaks in progress. Breaks that
// need no acknowledgement take effect at once. Holders that are
// disconnected durable opens lose what is broken at once; when that is
// their handle caching, they are closed (MS-SMB2 3.3.4.6), which the
// returned closers do.
func (s *Server) breakFor(node nodeKey, in intent) []chan struct{} {
	lt := s.leases
	var waits []chan struct{}
	type notice struct {
		g        *grant
		c        *conn
		sessID   uint64
		from, to uint32
		ack      bool
	}
	var notices []notice
	var purge []*open
	lt.mu.Lock()
	for _, g := range lt.byNode[node] {
		if in.purgeOnly && g.connOf() != nil {
			continue
		}
		to := g.target(in)
		if in.creating && g.oplock == nil {
			// A CREATE meeting a lease (lease_breaking.go).
			if w, ok := g.createWaits(in, to); ok {
				if w {
					waits = append(waits, g.done)
				}
				continue
			}
		} else {
			if to == g.state || in.handlePhase && (g.state&leaseHandle == 0 || to&leaseHandle != 0) {
				continue
			}
			if g.breaking {
				// The operation waits for the break in progress to
				// end, then asks again.
				if g.oplock == nil {
					g.breakNeed &= to
				}
				waits = append(waits, g.done)
				continue
			}
		}
		from := g.state
		c := lt.routeOf(g)
		if c == nil {
			// Nobody to tell: a disconnected durable open whose
			// caching must break is closed (purged), as Windows does.
			for o := range g.opens {
				purge = append(purge, o)
			}
			g.state = to
			continue
		}
		ack := ackRequired(from, to)
		if g.oplock == nil {
			g.epoch++
		}
		if ack {
			g.breaking, g.breakTo, g.breakNeed, g.done = true, to, to, make(chan struct{})
			if !in.creating || g.oplock != nil || g.delays(in, from) {
				waits = append(waits, g.done)
			}
			gg := g
			g.timer = time.AfterFunc(s.limits.BreakTimeout, func() { s.breakTimedOut(gg) })
		} else {
			g.state = to
		}
		var sessID uint64
		if g.oplock != nil && g.oplock.sess != nil {
			sessID = g.oplock.sess.id
		}
		notices = append(notices, notice{g, c, sessID, from, to, ack})
	}
	lt.mu.Unlock()
	for _, n := range notices {
		n.c.sendBreak(n.g, n.sessID, n.from, n.to, n.ack)
	}
	for _, o := range purge {
		s.expireDurable(o)
	}
	if len(purge) > 0 {
		s.durables.mu.Lock()
		s.durables.purged[node] = true
		s.durables.mu.Unlock()
	}
	return waits
}

// connOf is the connection a grant's breaks go to: that of one of its
// connected opens, or nil when all are disconnected (durable).
func (g *grant) connOf() *conn {
	if g.oplock != nil {
		return g.oplock.conn
	}
	for o := range g.opens {
		if o.conn != nil && o.conn == g.home {
			return o.conn
		}
	}
	for o := range g.opens {
		if o.conn != nil {
			return o.conn
		}
	}
	return nil
}

// breakTimedOut ends a break the holder did not acknowledge in time: the
// oplock or lease is left with no caching (an acknowledgement after that
// is STATUS_UNSUCCESSFUL).
func (s *Server) breakTimedOut(g *grant) {
	lt := s.leases
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if !g.breaking {
		return
	}
	g.finishBreak(0) // Windows: the lease or oplock is gone
}

// finishBreak ends a break in progress with the given state (lt.mu held).
func (g *grant) finishBreak(state uint32) {
	g.state, g.breaking = state, false
	if g.timer != nil {
		g.timer.Stop()
		g.timer = nil
	}
	close(g.done)
}

// waitBreaks waits for breaks to end, up to ctx.
func waitBreaks(ctx context.Context, waits []chan struct{}) {
	for _, w := range waits {
		select {
		case <-w:
		case <-ctx.Done():
			return
		}
	}
}

// breakAndWait breaks what in needs on node and waits until it is done,
// breaks that follow included, up to ctx (a timed-out break has ended by
// then: the break timer fires first).
func (s *Server) breakAndWait(ctx context.Context, node nodeKey, in intent) {
	for range 8 {
		waits := s.breakFor(node, in)
		if len(waits) == 0 || ctx.Err() != nil {
			return
		}
		waitBreaks(ctx, waits)
	}
}

// sendBreak sends a break notification (MS-SMB2 2.2.23): an oplock's to
// its open's connection, a lease's to a connection of its client.
func (c *conn) sendBreak(g *grant, sessID uint64, from, to uint32, ack bool) {
	var w buf
	h := header{Command: cmdOplockBreak, Flags: flagResponse, MessageID: ^uint64(0), SessionID: sessID}
	if g.oplock != nil {
		o := g.oplock
		w.u16(24)
		w.u8(oplockLevel(to))
		w.u8(0)
		w.u32(0)
		w.fileID(o.id)
	} else {
		w.u16(44)
		if g.v2 {
			w.u16(g.epoch)
		} else {
			w.u16(0)
		}
		flags := uint32(0)
		if ack {
			flags = breakFlagAckRequired
		}
		w.u32(flags)
		w.raw(g.lease.key[:])
		w.u32(from)
		w.u32(to)
		w.u32(0) // BreakReason
		w.u32(0) // AccessMaskHint
		w.u32(0) // ShareMaskHint
	}
	m := make([]byte, headerSize, headerSize+len(w.b))
	h.encode(m)
	m = append(m, w.b...)
	_ = c.write(m)
}

// grantFor decides the caching a new open gets once it is made: others
// holds the IDs of the handles open on its file. level is the oplock
// level asked for; req the lease asked for (level oplockLease). It
// returns the level and the lease granted (nil without one).
func (s *Server) grantFor(o *open, node nodeKey, level uint8, req *leaseRequest, handles []uint64) (uint8, *grant) {
	lt := s.leases
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if o.dir || level == oplockNone || (level == oplockLease && req == nil) {
		return oplockNone, nil
	}
	mine := map[uint64]bool{o.id.Volatile: true}
	var g *grant
	if level == oplockLease {
		g = lt.leases[req.id]
		if g != nil {
			for m := range g.opens {
				mine[m.id.Volatile] = true
			}
		}
	}
	others := 0
	for _, id := range handles {
		if !mine[id] {
			others++
		}
	}
	// What other owners still hold limits what this one may get: no
	// write caching beside another owner's open (a stat open with a
	// lease counts), no handle caching for a lease beside an oplock,
	// no oplock beside another's handle-caching lease.
	var held uint32
	otherOplock, otherHandleLease := false, false
	for _, og := range lt.byNode[node] {
		if og == g {
			continue
		}
		if len(og.opens) > 0 {
			others++
		}
		held |= og.state
		if og.breaking {
			held |= og.breakTo
		}
		otherOplock = otherOplock || og.oplock != nil && og.state != 0
		otherHandleLease = otherHandleLease || og.oplock == nil && og.state&leaseHandle != 0
	}
	if level != oplockLease {
		want := oplockState(level)
		if others > 0 || held&leaseWrite != 0 {
			want &= leaseRead
		}
		if held&leaseWrite != 0 || otherHandleLease {
			want = 0
		}
		if want == 0 {
			return oplockNone, nil
		}
		ng := &grant{node: node, state: want, oplock: o, opens: map[*open]struct{}{o: {}}}
		lt.add(ng)
		o.grant = ng
		return oplockLevel(want), ng
	}
	want := validLeaseState(req.state)
	if others > 0 || held&leaseWrite != 0 {
		want &^= leaseWrite
	}
	if otherOplock {
		want &^= leaseHandle | leaseWrite
	}
	if g == nil {
		// A lease granted nothing still ties its opens together.
		epoch := req.epoch
		if want != 0 {
			epoch++
		}
		g = &grant{node: node, state: want, lease: req.id, v2: req.v2, epoch: epoch, parent: req.parent, opens: map[*open]struct{}{}, home: o.conn}
		lt.add(g)
	} else if asked := validLeaseState(req.state); !g.breaking && asked&^g.state != 0 && asked&g.state == g.state && asked == want {
		// A lease is upgraded only to a state holding all it has, and
		// only when all of it can be granted (Windows).
		g.state = want
		g.epoch++
	}
	g.opens[o] = struct{}{}
	o.grant = g
	lt.noteLeaseConn(g.lease.client, o.conn)
	return oplockLease, g
}

// add records a new grant (lt.mu held).
func (lt *leaseTable) add(g *grant) {
	lt.byNode[g.node] = append(lt.byNode[g.node], g)
	if g.oplock == nil {
		lt.leases[g.lease] = g
		lt.countLease(g.lease.client, 1)
	}
	lt.perShare[[2]string{g.node.account, g.node.share}]++
}

// dropOpen ends an open's part in its grant: an oplock ends with it, a
// lease with its last open. A break waiting on the grant then ends.
func (s *Server) dropOpen(o *open) {
	lt := s.leases
	lt.mu.Lock()
	defer lt.mu.Unlock()
	g := o.grant
	if g == nil {
		return
	}
	o.grant = nil
	delete(g.opens, o)
	if len(g.opens) > 0 {
		return
	}
	if g.breaking {
		g.finishBreak(0)
	}
	list := lt.byNode[g.node]
	for i, x := range list {
		if x == g {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(lt.byNode, g.node)
	} else {
		lt.byNode[g.node] = list
	}
	if g.oplock == nil && lt.leases[g.lease] == g {
		delete(lt.leases, g.lease)
		lt.countLease(g.lease.client, -1)
	}
	k := [2]string{g.node.account, g.node.share}
	if lt.perShare[k]--; lt.perShare[k] <= 0 {
		delete(lt.perShare, k)
	}
}

// leaseElsewhere reports whether a client's lease key is already held on
// another file: one key caches one file (MS-SMB2 3.3.5.9.8).
func (s *Server) leaseElsewhere(id leaseID, node nodeKey, exists bool) bool {
	lt := s.leases
	lt.mu.Lock()
	defer lt.mu.Unlock()
	g := lt.leases[id]
	return g != nil && (!exists || g.node != node)
}

// caching is what a share's files have granted, for the cheap check
// before a FileREST operation.
func (s *Server) caching(acct, share string) bool {
	lt := s.leases
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.perShare[[2]string{acct, share}] > 0
}

// BreakCaching breaks the SMB caching of the file a FileREST operation is
// about to read or change (file.CachingBreaker): a write ends all of it,
// a read write caching, and the operation waits for the holders'
// acknowledgements, up to the break timeout or ctx.
func (s *Server) BreakCaching(ctx context.Context, ref file.Ref, write bool) {
	if !s.caching(ref.Account, ref.Share) {
		return
	}
	id, ok, err := s.files.NodeID(ctx, ref)
	if err != nil || !ok {
		return
	}
	wctx, cancel := context.WithTimeout(ctx, s.limits.BreakTimeout+time.Second)
	defer cancel()
	node := nodeKey{ref.Account, ref.Share, id}
	s.breakAndWait(wctx, node, intent{overwrite: write, read: !write})
	s.purgedSince(node) // only an open regrants by it
}

// leaseRequest is a CREATE's lease context ("RqLs", MS-SMB2 2.2.13.2.8
// and 2.2.13.2.10).
type leaseRequest struct {
	id     leaseID
	state  uint32
	v2     bool
	parent *[16]byte
	epoch  uint16
}

// parseLease reads a lease context's data; v2 only with SMB 3.x.
func parseLease(data []byte, client [16]byte, smb3 bool) (*leaseRequest, bool) {
	if len(data) < 32 {
		return nil, false
	}
	r := &leaseRequest{state: le.Uint32(data[16:])}
	r.id.client = client
	copy(r.id.key[:], data[:16])
	if smb3 && len(data) >= 52 {
		r.v2 = true
		if le.Uint32(data[20:])&leaseFlagParentKeySet != 0 {
			var p [16]byte
			copy(p[:], data[32:48])
			r.parent = &p
		}
		r.epoch = le.Uint16(data[48:])
	}
	return r, true
}

// leaseContext is the lease create context a CREATE answers with.
func leaseContext(g *grant, req *leaseRequest) []byte {
	var w buf
	w.raw(req.id.key[:])
	state, flags := uint32(0), uint32(0)
	epoch, v2 := req.epoch, req.v2
	if g != nil {
		// A lease answers in the version it was granted in, whatever
		// version a later open names it with.
		state, epoch, v2 = g.state, g.epoch, g.v2
		if g.breaking {
			flags |= leaseFlagBreakInProgress
		}
	}
	if !v2 {
		w.u32(state)
		w.u32(flags)
		w.u64(0)
		return w.b
	}
	parent := req.parent
	if g != nil {
		parent = g.parent
	}
	if parent != nil {
		flags |= leaseFlagParentKeySet
	}
	w.u32(state)
	w.u32(flags)
	w.u64(0)
	if parent != nil {
		w.raw(parent[:])
	} else {
		w.zero(16)
	}
	w.u16(epoch)
	w.u16(0)
	return w.b
}

// oplockBreak answers OPLOCK_BREAK: an acknowledgement of an oplock break
// (24 bytes) or of a lease break (36 bytes).
func (c *conn) oplockBreak(r *request) response {
	switch r.b.u16(0) {
	case 24:
		return c.oplockAck(r)
	case 36:
		return c.leaseAck(r)
	}
	return errResp(statusInvalidParameter)
}

func (c *conn) oplockAck(r *request) response {
	level := r.b.u8(2)
	o, st := c.openOf(r, r.b.fileID(8))
	if o == nil {
		return errResp(st)
	}
	lt := c.srv.leases
	lt.mu.Lock()
	g := o.grant
	if g == nil || g.oplock != o || !g.breaking {
		lt.mu.Unlock()
		return errResp(statusInvalidOplockProtocol)
	}
	to := g.breakTo
	if level != oplockNone && level != oplockLevelII || oplockState(level)&^to != 0 {
		// An acknowledgement to more than the break allows ends the
		// oplock (MS-SMB2 3.3.5.22.1).
		g.finishBreak(0)
		lt.mu.Unlock()
		c.srv.dropOpen(o)
		return errResp(statusInvalidOplockProtocol)
	}
	g.finishBreak(oplockState(level))
	lt.mu.Unlock()
	if level == oplockNone {
		c.srv.dropOpen(o)
	}
	var w buf
	w.u16(24)
	w.u8(level)
	w.u8(0)
	w.u32(0)
	w.fileID(o.id)
	return response{body: w.b}
}

func (c *conn) leaseAck(r *request) response {
	b := r.b
	var id leaseID
	id.client = c.clientGUID
	copy(id.key[:], b.bytes(8, 16))
	state := b.u32(24)
	if b.bad {
		return errResp(statusInvalidParameter)
	}
	lt := c.srv.leases
	lt.mu.Lock()
	g := lt.leases[id]
	switch {
	case g == nil:
		lt.mu.Unlock()
		return errResp(statusObjectNameNotFound)
	case !g.breaking:
		lt.mu.Unlock()
		return errResp(statusUnsuccessful)
	case state&^g.breakTo != 0:
		// The break stays in progress for a right acknowledgement.
		lt.mu.Unlock()
		return errResp(statusRequestNotAccepted)
	}
	next := c.srv.ackBreak(g, state)
	lt.mu.Unlock()
	if next != nil {
		// The next break goes out after this answer.
		c.mu.Lock()
		c.afterWrite = append(c.afterWrite, func() { next.c.sendBreak(next.g, 0, next.from, next.to, next.ack) })
		c.mu.Unlock()
	}
	var w buf
	w.u16(36)
	w.u16(0)
	w.u32(0)
	w.raw(id.key[:])
	w.u32(state)
	w.u64(0)
	return response{body: w.b}
}

// breakOthers ends the caching other owners hold on the file o writes
// (MS-FSA: a write breaks level II oplocks and read leases). It does not
// wait: a read-only holder need not acknowledge.
func (c *conn) breakOthers(acct string, o *open) {
	s := c.srv
	s.leases.mu.Lock()
	own := o.grant
	s.leases.mu.Unlock()
	node := nodeKey{acct, o.tree.share, o.id.Persistent}
	if !s.caching(node.account, node.share) {
		return
	}
	in := intent{overwrite: true, open: o}
	if own != nil && own.oplock == nil {
		in.lease = &own.lease
	}
	s.breakFor(node, in)
	s.purgedSince(node) // only an open regrants by it
}
