package smb

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// maxMessage is the largest transport frame accepted: a write of
// maxIO plus its header and slack for a compound around it.
const maxMessage = maxIO + 64<<10

// conn is one client connection. Requests are handled in arrival order
// by its read loop, except blocking locks, which wait on their own
// goroutine and answer asynchronously.
type conn struct {
	srv      *Server
	nc       net.Conn
	clientIP string
	ctx      context.Context
	cancel   context.CancelFunc

	wmu sync.Mutex // serializes writes to nc

	negotiated    bool
	dialect       uint16
	clientGUID    [16]byte
	clientSecMode uint16
	clientCaps    uint32
	preauth       [64]byte // the connection's pre-auth integrity hash (3.1.1)
	cipher        uint16   // the encryption negotiated (cipherAES128CCM, or a GCM), 0 for none
	// encryptionOffered: a 3.1.1 client sent the encryption context,
	// which the NEGOTIATE response answers (signing.go).
	encryptionOffered bool
	// signAlg is the signing algorithm a 3.1.1 client's signing
	// context chose, when signingChosen (the NEGOTIATE response then
	// answers that context); see conn.signing.
	signAlg       uint16
	signingChosen bool
	// sealing is the session whose encrypted frame the read loop is
	// answering (only the read loop touches it).
	sealing *session

	mu        sync.Mutex // guards the fields below, shared with async work
	sessions  map[uint64]*session
	credits   int // granted and not yet used
	pending   map[uint64]*pendingOp
	nextAsync uint64

	// afterWrite runs once the current frame's responses are sent (a
	// waiting lock starts only after its STATUS_PENDING went out).
	afterWrite []func()

	// inFrame is set while the read loop answers a frame, frame is that
	// frame's place in the order the server began frames in, and handled
	// counts the frames it answered; watchInFrame says the frame may ask
	// for a change notification, and ordering that the read loop is
	// waiting in awaitWatchers.
	inFrame      atomic.Bool
	frame        atomic.Uint64
	handled      atomic.Uint64
	watchInFrame atomic.Bool
	ordering     atomic.Bool
}

func newConn(s *Server, nc net.Conn) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	ip := nc.RemoteAddr().String()
	if host, _, err := net.SplitHostPort(ip); err == nil {
		ip = host
	}
	return &conn{srv: s, nc: nc, clientIP: ip, ctx: ctx, cancel: cancel, sessions: map[uint64]*session{}, credits: 1,
		pending: map[uint64]*pendingOp{}}
}

// serve reads and answers requests until the client leaves or breaks
// the protocol; then every handle its sessions opened is closed.
func (c *conn) serve() {
	defer func() {
		if p := recover(); p != nil {
			c.srv.log.Error("smb connection panicked", "client", c.clientIP, "panic", p)
		}
		c.cancel()
		_ = c.nc.Close()
		c.mu.Lock()
		sessions := c.sessions
		c.sessions = map[uint64]*session{}
		c.mu.Unlock()
		for _, s := range sessions {
			c.disconnectSession(s)
		}
	}()
	var lenBuf [4]byte
	for {
		_ = c.nc.SetReadDeadline(time.Now().Add(c.srv.limits.IdleTimeout))
		if _, err := io.ReadFull(c.nc, lenBuf[:]); err != nil {
			return
		}
		c.watchInFrame.Store(true) // until the frame is read and known
		c.frame.Store(c.srv.frames.Add(1))
		c.inFrame.Store(true)
		n := int(lenBuf[1])<<16 | int(lenBuf[2])<<8 | int(lenBuf[3])
		if lenBuf[0] != 0 || n < headerSize || n > maxMessage {
			c.srv.log.Debug("smb: bad frame, closing", "client", c.clientIP, "type", lenBuf[0], "len", n)
			return
		}
		msg := make([]byte, n)
		if _, err := io.ReadFull(c.nc, msg); err != nil {
			return
		}
		out, err := c.handleFrame(msg)
		if err != nil {
			c.srv.log.Debug("smb: malformed request, closing", "client", c.clientIP, "err", err)
			return
		}
		if out != nil {
			if err := c.write(out); err != nil {
				return
			}
		}
		for _, f := range c.afterWrite {
			f()
		}
		c.afterWrite = nil
		c.handled.Add(1)
		c.watchInFrame.Store(false)
		c.inFrame.Store(false)
	}
}

// write sends one frame: the 4-byte length, then the messages.
func (c *conn) write(msg []byte) error {
	frame := make([]byte, 4, 4+len(msg))
	frame[1], frame[2], frame[3] = byte(len(msg)>>16), byte(len(msg)>>8), byte(len(msg))
	frame = append(frame, msg...)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.nc.SetWriteDeadline(time.Now().Add(time.Minute))
	_, err := c.nc.Write(frame)
	return err
}

// request is one message of a frame, decoded enough to dispatch.
type request struct {
	h    header
	msg  []byte
	b    *body
	sess *session
	tree *tree
	// related: the request is a related operation of a compound; its
	// session, tree and all-ones FileId come from chain.
	related bool
	chain   *chain
	// sealed is the session whose encryption carried the request: its
	// answers are encrypted for it, not signed.
	sealed *session
}

// response is a handler's answer.
type response struct {
	status uint32
	body   []byte // nil: the error body
	// sessionID and treeID override the request's (SESSION_SETUP and
	// TREE_CONNECT assign them).
	sessionID *uint64
	treeID    *uint32
	// signWith signs the response with this session even when the
	// request was not signed (the final SESSION_SETUP response).
	signWith *session
	// sent runs with the response's final bytes (pre-auth hashing).
	sent func(msg []byte)
	// async: the answer comes later (STATUS_PENDING was sent).
	asyncID uint64
	// created is the file a CREATE opened, for related requests.
	created *fileID
	// none: no response at all (CANCEL).
	none bool
}

func errResp(status uint32) response { return response{status: status} }

// chain is what one frame's requests hand on to the related requests
// after them (MS-SMB2 3.3.5.2.7.2): the session and tree the last
// request used (none once a lookup failed), the file the last request
// that named one resolved, and the status of a failed CREATE, which a
// related request that then finds no file answers instead.
type chain struct {
	sess      *session
	tree      *tree
	file      *fileID
	createErr uint32
}

// handleFrame answers one frame: a message or a compound chain of them.
// A malformed frame is an error, and the connection closes.
func (c *conn) handleFrame(frame []byte) ([]byte, error) {
	if len(frame) >= 4 && frame[0] == 0xFF && string(frame[1:4]) == "SMB" {
		return c.smb1Negotiate(frame)
	}
	if len(frame) >= 4 && frame[0] == 0xFD && string(frame[1:4]) == "SMB" {
		return c.handleSealed(frame)
	}
	// A plain frame's commands are known here (a sealed one's once
	// decrypted); until then the read loop counts it as one that may.
	c.watchInFrame.Store(mayWatch(frame))
	type answered struct {
		r    *request
		resp response
		m    []byte
	}
	var done []answered
	ch := &chain{}
	for off := 0; off < len(frame); {
		h, err := parseHeader(frame[off:])
		if err != nil || h.Flags&flagResponse != 0 {
			return nil, errMalformed
		}
		end := len(frame)
		if h.NextCommand != 0 {
			if h.NextCommand%8 != 0 || int(h.NextCommand) < headerSize || off+int(h.NextCommand) > len(frame) {
				return nil, errMalformed
			}
			end = off + int(h.NextCommand)
		}
		// A related first request has no operation before it to take
		// its session from: it fails as a related request whose
		// session lookup failed (STATUS_INVALID_PARAMETER).
		r := &request{h: h, msg: frame[off:end], sealed: c.sealing, related: h.Flags&flagRelated != 0, chain: ch}
		r.b = newBody(r.msg)
		resp, err := c.dispatch(r)
		if err != nil {
			return nil, err
		}
		if h.Command <= cmdOplockBreak { // an unknown command leaves the chain as it was
			ch.sess, ch.tree = r.sess, r.tree
		}
		if h.Command == cmdCreate {
			ch.file = resp.created
			if resp.status != statusSuccess {
				ch.createErr = resp.status
			}
		}
		if !resp.none {
			done = append(done, answered{r, resp, c.build(r, resp)})
		}
		off = end
	}
	var out []byte
	for i, a := range done {
		m := a.m
		// Every response of a compound, the last too, is padded to
		// 8 bytes, as Windows does (smbtorture smb2.compound.
		// compound-padding reads a 3-byte READ answer as 24 bytes).
		if len(done) > 1 {
			for len(m)%8 != 0 {
				m = append(m, 0)
			}
			if i < len(done)-1 {
				le.PutUint32(m[20:], uint32(len(m)))
			}
		}
		c.sign(a.r, a.resp, m)
		if a.resp.sent != nil {
			a.resp.sent(m)
		}
		out = append(out, m...)
	}
	return out, nil
}

// dispatch checks the request's session, tree and signature and runs
// its command.
func (c *conn) dispatch(r *request) (response, error) {
	h := r.h
	c.chargeCredits(h)
	if !c.negotiated && h.Command != cmdNegotiate {
		return response{}, errors.New("smb: request before NEGOTIATE")
	}
	if h.Command > cmdOplockBreak {
		return errResp(statusInvalidParameter), nil
	}
	switch h.Command {
	case cmdNegotiate:
		return c.negotiate(r)
	case cmdEcho:
		return response{body: []byte{4, 0, 0, 0}}, nil
	case cmdCancel:
		c.cancelPending(h)
		return response{none: true}, nil
	}
	if r.related && h.Command != cmdSessionSetup {
		// A related request uses the session of the operation before
		// it; when that had none, the compound is malformed there.
		r.sess = r.chain.sess
		if r.sess == nil || !r.sess.valid {
			r.sess = nil
			return errResp(statusInvalidParameter), nil
		}
	} else {
		c.mu.Lock()
		r.sess = c.sessions[h.SessionID]
		c.mu.Unlock()
	}
	if h.Command == cmdSessionSetup {
		return c.sessionSetup(r)
	}
	s := r.sess
	if s == nil || !s.valid {
		r.sess = nil
		return errResp(statusUserSessionDeleted), nil
	}
	if h.Flags&flagSigned != 0 && !c.verify(s, r.msg) {
		return errResp(statusAccessDenied), nil
	}
	switch h.Command {
	case cmdLogoff:
		c.mu.Lock()
		delete(c.sessions, s.id)
		c.mu.Unlock()
		c.disconnectSession(s) // durable opens outlive a logoff, as on Windows
		return response{body: []byte{4, 0, 0, 0}}, nil
	case cmdTreeConnect:
		return c.treeConnect(r)
	}
	if r.related {
		r.tree = r.chain.tree
	} else {
		s.mu.Lock()
		r.tree = s.trees[h.TreeID]
		s.mu.Unlock()
	}
	if r.tree == nil {
		return errResp(statusNetworkNameDeleted), nil
	}
	switch h.Command {
	case cmdCreate, cmdWrite, cmdSetInfo, cmdClose:
		c.srv.awaitWatchers(c, r.tree.share)
	}
	switch h.Command {
	case cmdTreeDisconnect:
		c.treeDisconnect(s, r.tree)
		return response{body: []byte{4, 0, 0, 0}}, nil
	case cmdCreate:
		return c.create(r), nil
	case cmdClose:
		return c.closeFile(r), nil
	case cmdFlush:
		return c.flush(r), nil
	case cmdRead:
		return c.read(r), nil
	case cmdWrite:
		return c.writeFile(r), nil
	case cmdLock:
		return c.lock(r), nil
	case cmdIoctl:
		return c.ioctl(r), nil
	case cmdQueryDirectory:
		return c.queryDirectory(r), nil
	case cmdQueryInfo:
		return c.queryInfo(r), nil
	case cmdSetInfo:
		return c.setInfo(r), nil
	case cmdChangeNotify:
		return c.changeNotify(r), nil
	case cmdOplockBreak:
		return c.oplockBreak(r), nil
	}
	return errResp(statusNotSupported), nil
}

// chargeCredits accounts the credits a request uses.
func (c *conn) chargeCredits(h header) {
	charge := max(int(h.CreditCharge), 1)
	c.mu.Lock()
	c.credits = max(c.credits-charge, 0)
	c.mu.Unlock()
}

// grant decides the credits a response hands out: what the client asks
// for, keeping what it holds within MaxCredits, and at least one while it
// holds none.
func (c *conn) grant(asked uint16) uint16 {
	c.mu.Lock()
	defer c.mu.Unlock()
	give := min(max(int(asked), 1), c.srv.limits.MaxCredits-c.credits)
	if give <= 0 {
		if c.credits > 0 {
			return 0
		}
		give = 1
	}
	c.credits += give
	return uint16(give)
}

// build encodes a response message (unsigned).
func (c *conn) build(r *request, resp response) []byte {
	h := header{
		Status:       resp.status,
		Command:      r.h.Command,
		CreditCharge: r.h.CreditCharge,
		Flags:        flagResponse | r.h.Flags&flagRelated,
		MessageID:    r.h.MessageID,
		TreeID:       r.h.TreeID,
		SessionID:    r.h.SessionID,
	}
	if r.sess != nil {
		h.SessionID = r.sess.id
	}
	if r.tree != nil {
		h.TreeID = r.tree.id
	}
	if resp.sessionID != nil {
		h.SessionID = *resp.sessionID
	}
	if resp.treeID != nil {
		h.TreeID = *resp.treeID
	}
	if resp.asyncID != 0 {
		h.Flags |= flagAsync
		h.AsyncID = resp.asyncID
	}
	h.Credits = c.grant(r.h.Credits)
	b := resp.body
	if b == nil {
		b = []byte{9, 0, 0, 0, 0, 0, 0, 0, 0}
	}
	m := make([]byte, headerSize, headerSize+len(b))
	h.encode(m)
	return append(m, b...)
}

// sign signs a response when its request was signed (or the handler
// asks), with the session's signing key.
func (c *conn) sign(r *request, resp response, m []byte) {
	if r.sealed != nil {
		return // encryption protects it instead
	}
	s := resp.signWith
	if s == nil {
		if r.h.Flags&flagSigned == 0 || r.sess == nil || !r.sess.valid {
			return
		}
		s = r.sess
	}
	le.PutUint32(m[16:], le.Uint32(m[16:])|flagSigned)
	clear(m[48:64])
	sig := s.signature(m)
	copy(m[48:64], sig[:])
}

// verify checks a request's signature.
func (c *conn) verify(s *session, m []byte) bool {
	if s.signKey == nil {
		return false
	}
	cp := append([]byte(nil), m...)
	clear(cp[48:64])
	sig := s.signature(cp)
	return hmac.Equal(sig[:], m[48:64])
}

// signature computes a message's signature: HMAC-SHA256 for SMB 2.x,
// AES-128-CMAC for 3.x, or the algorithm a 3.1.1 client's signing
// context chose (AES-128-GMAC, or HMAC-SHA256 over the derived key).
func (s *session) signature(m []byte) [16]byte {
	if s.gmac != nil {
		return gmacSignature(s.gmac, m)
	}
	if s.cmac != nil {
		return s.cmac.sum(m)
	}
	h := hmac.New(sha256.New, s.signKey)
	h.Write(m)
	var out [16]byte
	copy(out[:], h.Sum(nil))
	return out
}

// hashPreauth folds a message into a pre-auth integrity hash.
func hashPreauth(v *[64]byte, msg []byte) {
	h := sha512.New()
	h.Write(v[:])
	h.Write(msg)
	copy(v[:], h.Sum(nil))
}

// pendingOp is a request answered asynchronously (MS-SMB2 3.3.4.2): an
// interim STATUS_PENDING response carrying its async ID goes out at once,
// the final answer later, once, through finish. A waiting lock and a
// change notification are such requests; anything that must wait uses
// the same machinery.
type pendingOp struct {
	asyncID   uint64
	messageID uint64
	sessionID uint64
	r         *request
	open      *open
	// cancel is run by CANCEL naming the request (or by the request's
	// open, tree or session going away): it must lead to finish.
	cancel func()
	// started, when set, runs once the interim response is on the wire,
	// so that a final answer can never overtake it.
	started func()

	mu        sync.Mutex
	cancelled bool
	done      bool
}

func (p *pendingOp) wasCancelled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cancelled
}

// goAsync makes r an asynchronous request of o (nil when it names no
// open) whose cancel function is cancel. It returns the interim response
// to send; when the request cannot wait, ok is false and the response is
// the error to answer instead: too many requests waiting on the
// connection, or a request of a compound other than its last, which
// Windows fails with STATUS_INTERNAL_ERROR (MS-SMB2 <159>; smbtorture
// smb2.compound.interim2).
func (c *conn) goAsync(r *request, o *open, cancel func()) (p *pendingOp, resp response, ok bool) {
	if r.h.NextCommand != 0 {
		return nil, errResp(statusInternalError), false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) >= c.srv.limits.MaxPending {
		return nil, errResp(statusInsufficientResources), false
	}
	c.nextAsync++
	p = &pendingOp{asyncID: c.nextAsync, messageID: r.h.MessageID, sessionID: r.sess.id, r: r, open: o, cancel: cancel}
	c.pending[p.asyncID] = p
	c.afterWrite = append(c.afterWrite, func() {
		if p.started != nil {
			p.started()
		}
	})
	return p, response{status: statusPending, asyncID: p.asyncID}, true
}

// finish sends an asynchronous request's final answer; only the first
// call for a request sends anything, and it reports whether it did.
func (c *conn) finish(p *pendingOp, resp response) bool {
	p.mu.Lock()
	if p.done {
		p.mu.Unlock()
		return false
	}
	p.done = true
	p.mu.Unlock()
	c.forget(p)
	resp.asyncID = p.asyncID
	r := p.r
	m := c.build(r, resp)
	c.sign(r, resp, m)
	if r.sealed != nil {
		var err error
		if m, err = sealFor(r.sealed, m); err != nil {
			return true
		}
	}
	_ = c.write(m)
	return true
}

// forget drops a pending request from the connection's list.
func (c *conn) forget(p *pendingOp) {
	c.mu.Lock()
	delete(c.pending, p.asyncID)
	c.mu.Unlock()
}

// cancelPending answers CANCEL: the waiting request it names (by async
// ID, or by message ID) ends with STATUS_CANCELLED. A CANCEL naming
// neither (message ID 0, which only NEGOTIATE uses, and no async ID) is
// what Samba's client sends when it cancels a request before the
// interim response reached it: it cancels the session's latest waiting
// request.
func (c *conn) cancelPending(h header) {
	c.mu.Lock()
	var hit []*pendingOp
	var latest *pendingOp
	for _, p := range c.pending {
		if (h.Flags&flagAsync != 0 && p.asyncID == h.AsyncID) || (h.Flags&flagAsync == 0 && p.messageID == h.MessageID) {
			hit = append(hit, p)
		}
		if p.sessionID == h.SessionID && (latest == nil || p.asyncID > latest.asyncID) {
			latest = p
		}
	}
	c.mu.Unlock()
	if len(hit) == 0 && h.MessageID == 0 && h.AsyncID == 0 && latest != nil {
		hit = append(hit, latest)
	}
	for _, p := range hit {
		p.mu.Lock()
		p.cancelled = true
		p.mu.Unlock()
		p.cancel()
	}
}
