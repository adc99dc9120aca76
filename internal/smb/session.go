package smb

import (
	"context"
	"crypto/cipher"
	"crypto/hmac"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/file"
)

// session is one authenticated user (a storage account) on a
// connection, with its tree connects and open files.
type session struct {
	id    uint64
	valid bool
	ntlm  *ntlmServer
	// reauth is a re-authentication under way (SESSION_SETUP on the
	// valid session): the session keeps its keys and serves requests
	// meanwhile.
	reauth    *ntlmServer
	mechTypes []byte // the client's SPNEGO mechanism list, for mechListMIC
	preauth   [64]byte
	account   string
	client    string // the workstation name NTLM gave
	signKey   []byte
	cmac      *cmac
	gmac      cipher.AEAD // AES-128-GMAC signing (3.1.1 signing context), else nil
	// seal and open encrypt responses and decrypt requests (the cipher
	// the connection negotiated); nil otherwise.
	seal, unseal cipher.AEAD

	mu       sync.Mutex
	trees    map[uint32]*tree
	nextTree uint32
	opens    map[uint64]*open // by the handle's ID (FileId.Volatile)
}

// tree is one TREE_CONNECT: a share, or IPC$.
type tree struct {
	id    uint32
	share string
	ipc   bool
}

// maxTreesPerSession bounds a session's tree connects.
const maxTreesPerSession = 256

// sessionSetup runs the two legs of SPNEGO/NTLMSSP: the first answers
// a challenge (STATUS_MORE_PROCESSING_REQUIRED), the second verifies
// the response and derives the signing key.
func (c *conn) sessionSetup(r *request) (response, error) {
	b := r.b
	flags := b.u8(2)
	secOff, secLen := b.u16(12), b.u16(14)
	token := b.buffer(uint32(secOff), uint32(secLen))
	previous := b.u64(16)
	if b.bad {
		return response{}, errMalformed
	}
	if flags&0x01 != 0 {
		return errResp(statusRequestNotAccepted), nil // channel binding (multichannel) is not served
	}
	s := r.sess
	if r.h.SessionID == 0 {
		c.mu.Lock()
		if len(c.sessions) >= c.srv.limits.MaxSessionsPerConn {
			c.mu.Unlock()
			return errResp(statusInsufficientResources), nil
		}
		s = &session{id: c.srv.nextSess.Add(1), ntlm: &ntlmServer{accounts: c.srv.accounts, now: c.srv.now},
			preauth: c.preauth, trees: map[uint32]*tree{}, opens: map[uint64]*open{}}
		c.sessions[s.id] = s
		c.mu.Unlock()
		r.sess = s
	}
	if s == nil {
		return errResp(statusUserSessionDeleted), nil
	}
	// A SESSION_SETUP on a valid session re-authenticates it (MS-SMB2
	// 3.3.5.5.3): a new NTLM exchange whose success keeps the session and
	// its keys, and whose failure ends the session.
	reauth := s.valid
	nt := s.ntlm
	if reauth {
		if s.reauth == nil {
			s.reauth = &ntlmServer{accounts: c.srv.accounts, now: c.srv.now}
		}
		nt = s.reauth
	}
	fail := func(status uint32) (response, error) {
		c.mu.Lock()
		delete(c.sessions, s.id)
		c.mu.Unlock()
		if reauth {
			c.closeSession(s)
		}
		return errResp(status), nil
	}
	if c.dialect == dialect311 && !reauth {
		hashPreauth(&s.preauth, r.msg)
	}
	tok, err := parseSPNEGO(token)
	if err != nil || tok.mechToken == nil {
		return fail(statusInvalidParameter)
	}
	if nt.challenge == nil {
		if tok.mechTypes != nil {
			s.mechTypes = tok.mechTypes
		}
		ch, err := nt.challengeFor(tok.mechToken)
		if err != nil {
			return fail(statusInvalidParameter)
		}
		out := ch
		if !tok.raw {
			out = negTokenResp(negAcceptIncomplete, true, ch, nil)
		}
		id := s.id
		return response{status: statusMoreProcessingRequired, body: sessionSetupBody(out), sessionID: &id, sent: func(m []byte) {
			if c.dialect == dialect311 && !reauth {
				hashPreauth(&s.preauth, m)
			}
		}}, nil
	}
	if err := nt.authenticate(tok.mechToken); err != nil {
		if errors.Is(err, errLogon) {
			c.srv.log.Info("smb logon refused", "client", c.clientIP)
			return fail(statusLogonFailure)
		}
		return fail(statusInvalidParameter)
	}
	var mic []byte
	if !tok.raw && s.mechTypes != nil {
		if tok.mic != nil {
			in, err := newNTLMSeal(nt.sessionKey, nt.flags, false)
			if err != nil || !hmac.Equal(in.sign(s.mechTypes), tok.mic) {
				return fail(statusLogonFailure)
			}
		}
		out, err := newNTLMSeal(nt.sessionKey, nt.flags, true)
		if err != nil {
			return fail(statusInternalError)
		}
		mic = out.sign(s.mechTypes)
	}
	if reauth {
		s.reauth = nil
		if nt.account != s.account {
			return fail(statusLogonFailure) // a session stays one account's
		}
	} else {
		if err := s.deriveKeys(c.dialect, c.cipher, c.signing()); err != nil {
			return fail(statusInternalError)
		}
		s.account, s.client = s.ntlm.account, s.ntlm.workstation
		s.valid = true
		if previous != 0 && previous != s.id {
			c.srv.endPrevious(previous, s.account)
		}
	}
	var out []byte
	if !tok.raw {
		out = negTokenResp(negAcceptCompleted, false, nil, mic)
	}
	id := s.id
	return response{body: sessionSetupBody(out), sessionID: &id, signWith: s}, nil
}

func sessionSetupBody(token []byte) []byte {
	var w buf
	w.u16(9)
	w.u16(0) // SessionFlags: neither guest nor anonymous
	w.u16(headerSize + 8)
	w.u16(uint16(len(token)))
	if len(token) == 0 {
		w.u8(0)
	}
	w.raw(token)
	return w.b
}

// deriveKeys sets the session's signing key and algorithm, and its
// encryption keys when encryption was negotiated (MS-SMB2 3.3.5.5.3):
// 128-bit keys, 256-bit ones for the AES-256 ciphers.
func (s *session) deriveKeys(dialect, cipherID, signAlg uint16) error {
	key := s.ntlm.sessionKey
	switch {
	case dialect < dialect300:
		s.signKey = key
		return nil
	case dialect == dialect311:
		s.signKey = kdf(key, []byte("SMBSigningKey\x00"), s.preauth[:])
	default:
		s.signKey = kdf(key, []byte("SMB2AESCMAC\x00"), []byte("SmbSign\x00"))
	}
	if cipherID != 0 {
		// The keys each way: 3.1.1 binds them to the pre-auth hash, 3.0
		// and 3.0.2 use fixed labels.
		bits := cipherKeyBits(cipherID)
		out, in := kdfBits(key, []byte("SMBS2CCipherKey\x00"), s.preauth[:], bits), kdfBits(key, []byte("SMBC2SCipherKey\x00"), s.preauth[:], bits)
		if dialect != dialect311 {
			out, in = kdf(key, []byte("SMB2AESCCM\x00"), []byte("ServerOut\x00")), kdf(key, []byte("SMB2AESCCM\x00"), []byte("ServerIn \x00"))
		}
		newAEAD := newGCM
		if cipherID == cipherAES128CCM || cipherID == cipherAES256CCM {
			newAEAD = func(k []byte) (cipher.AEAD, error) { return newCCM(k, 11, 16) }
		}
		var err error
		if s.seal, err = newAEAD(out); err != nil {
			return err
		}
		if s.unseal, err = newAEAD(in); err != nil {
			return err
		}
	}
	var err error
	switch {
	case dialect == dialect311 && signAlg == signAESGMAC:
		s.gmac, err = newGCM(s.signKey)
	case dialect == dialect311 && signAlg == signHMACSHA256:
		// HMAC-SHA256 over the derived signing key: neither AES MAC.
	default:
		s.cmac, err = newCMAC(s.signKey)
	}
	return err
}

// treeConnect connects to a share (which must exist) or to IPC$.
func (c *conn) treeConnect(r *request) (response, error) {
	b := r.b
	off, n := b.u16(4), b.u16(6)
	p := b.buffer(uint32(off), uint32(n))
	if b.bad {
		return response{}, errMalformed
	}
	path := fromUTF16LE(p)
	name := path[strings.LastIndexByte(path, '\\')+1:]
	t := &tree{share: strings.ToLower(name)}
	if strings.EqualFold(name, "IPC$") {
		t.ipc = true
	} else {
		ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
		defer cancel()
		sh, err := c.srv.files.GetShare(ctx, file.ShareRef{Account: r.sess.account, Share: t.share}, "")
		if err != nil {
			if errors.Is(err, azerr.ErrShareNotFound) {
				return errResp(statusBadNetworkName), nil
			}
			return c.internal(r, err), nil
		}
		if sh.NFS != nil {
			// An NFS share is no SMB share: SMB clients do not see it, as
			// they do not see one on Azure, where it is mounted over NFS
			// only.
			return errResp(statusBadNetworkName), nil
		}
	}
	s := r.sess
	s.mu.Lock()
	if len(s.trees) >= maxTreesPerSession {
		s.mu.Unlock()
		return errResp(statusInsufficientResources), nil
	}
	s.nextTree++
	t.id = s.nextTree
	s.trees[t.id] = t
	s.mu.Unlock()
	r.tree = t
	var w buf
	w.u16(16)
	if t.ipc {
		w.u8(2) // pipe
	} else {
		w.u8(1) // disk
	}
	w.u8(0)
	w.u32(0)          // ShareFlags: manual caching
	w.u32(0)          // Capabilities
	w.u32(0x001F01FF) // MaximalAccess
	id := t.id
	return response{body: w.b, treeID: &id}, nil
}

// treeDisconnect closes what the session opened in the tree.
func (c *conn) treeDisconnect(s *session, t *tree) {
	s.mu.Lock()
	delete(s.trees, t.id)
	var opens []*open
	for id, o := range s.opens {
		if o.tree == t {
			opens = append(opens, o)
			delete(s.opens, id)
		}
	}
	s.mu.Unlock()
	for _, o := range opens {
		c.release(s, o)
	}
}

// closeSession closes every handle the session holds.
func (c *conn) closeSession(s *session) {
	s.mu.Lock()
	opens := s.opens
	s.opens = map[uint64]*open{}
	s.trees = map[uint32]*tree{}
	s.mu.Unlock()
	for _, o := range opens {
		c.release(s, o)
	}
}

// internal answers an unexpected error: logged, STATUS_INTERNAL_ERROR.
func (c *conn) internal(r *request, err error) response {
	c.srv.log.Error("smb request failed", "command", r.h.Command, "client", c.clientIP, "err", err)
	return errResp(statusInternalError)
}

// fail maps a domain error to its status; unknown ones are internal.
func (c *conn) fail(r *request, err error) response {
	if st, ok := statusOf(err); ok {
		return errResp(st)
	}
	return c.internal(r, err)
}

// endPrevious ends the session a client names as its previous one in
// a new SESSION_SETUP (it reconnected, MS-SMB2 3.3.5.5.3), as a dropped
// connection ends it: its durable opens stay open, disconnected, for the
// new session to reclaim; the others close and what waits on them ends.
// Only a session of the same account can be ended so.
func (s *Server) endPrevious(id uint64, account string) {
	for _, c := range s.connections() {
		c.mu.Lock()
		old := c.sessions[id]
		if old != nil && old.valid && old.account == account {
			delete(c.sessions, id)
		} else {
			old = nil
		}
		c.mu.Unlock()
		if old != nil {
			c.disconnectSession(old)
		}
	}
}
