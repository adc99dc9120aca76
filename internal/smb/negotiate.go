package smb

import (
	"crypto/rand"
	"errors"
	"strings"
)

// Dialects served, best first.
const (
	dialect202  uint16 = 0x0202
	dialect210  uint16 = 0x0210
	dialect300  uint16 = 0x0300
	dialect302  uint16 = 0x0302
	dialect311  uint16 = 0x0311
	dialectWild uint16 = 0x02FF
)

var served = []uint16{dialect311, dialect302, dialect300, dialect210, dialect202}

// maxIO is the largest READ, WRITE and transaction served (1 MiB, as
// Azure Files offers with multi-credit requests).
const maxIO = 1 << 20

// Security modes and capabilities.
const (
	secSigningEnabled  uint16 = 0x01
	secSigningRequired uint16 = 0x02
	capLargeMTU        uint32 = 0x04
	capEncryption      uint32 = 0x40
	capLeasing         uint32 = 0x02
)

// Negotiate contexts (MS-SMB2 2.2.3.1).
const (
	ctxPreauthIntegrity uint16 = 0x0001
	ctxEncryption       uint16 = 0x0002
	ctxSigning          uint16 = 0x0008
	hashSHA512          uint16 = 0x0001
	cipherAES128CCM     uint16 = 0x0001
	cipherAES128GCM     uint16 = 0x0002
	cipherAES256CCM     uint16 = 0x0003
	cipherAES256GCM     uint16 = 0x0004
)

// negotiate answers NEGOTIATE: the best dialect both sides speak, and
// for 3.1.1 the pre-auth integrity context that starts the hash chain
// binding the session keys to this exchange.
func (c *conn) negotiate(r *request) (response, error) {
	if c.negotiated {
		return response{}, errors.New("smb: second NEGOTIATE on a connection")
	}
	b := r.b
	count := int(b.u16(2))
	secMode := b.u16(4)
	caps := b.u32(8)
	guid := b.bytes(12, 16)
	ctxOff, ctxCount := b.u32(28), int(b.u16(32))
	offered := map[uint16]bool{}
	for i := range count {
		offered[b.u16(36+2*i)] = true
	}
	if b.bad || count == 0 {
		return response{}, errMalformed
	}
	dialect := uint16(0)
	for _, d := range served {
		if offered[d] {
			dialect = d
			break
		}
	}
	if dialect == 0 {
		return errResp(statusNotSupported), nil
	}
	var salt [32]byte
	if dialect == dialect311 {
		ctx, err := negotiateContexts(r.msg, ctxOff, ctxCount)
		if err != nil {
			return response{}, err
		}
		if !ctx.preauth || ctx.signingOffered && !ctx.signingListed {
			return errResp(statusInvalidParameter), nil
		}
		c.cipher, c.encryptionOffered = ctx.cipher, ctx.encryptionOffered
		c.signAlg, c.signingChosen = ctx.signAlg, ctx.signingChosen
		_, _ = rand.Read(salt[:])
		c.preauth = [64]byte{}
		hashPreauth(&c.preauth, r.msg)
	}
	if (dialect == dialect300 || dialect == dialect302) && caps&capEncryption != 0 {
		// SMB 3.0 and 3.0.2 encrypt with AES-128-CCM, which Azure
		// Files offers (its ChannelEncryption setting lists it).
		c.cipher = cipherAES128CCM
	}
	c.negotiated, c.dialect = true, dialect
	copy(c.clientGUID[:], guid)
	c.clientSecMode, c.clientCaps = secMode, caps
	return response{body: c.negotiateBody(dialect, salt[:]), sent: func(m []byte) {
		if dialect == dialect311 {
			hashPreauth(&c.preauth, m)
		}
	}}, nil
}

func (c *conn) serverCaps(dialect uint16) uint32 {
	caps := uint32(0)
	if dialect >= dialect210 {
		caps |= capLargeMTU | capLeasing
	}
	if (dialect == dialect300 || dialect == dialect302) && c.cipher != 0 {
		caps |= capEncryption
	}
	return caps
}

func (c *conn) negotiateBody(dialect uint16, salt []byte) []byte {
	sec := negTokenInitHint()
	var w buf
	w.u16(65)
	w.u16(secSigningEnabled)
	w.u16(dialect)
	contexts := uint16(0)
	if dialect == dialect311 {
		contexts = 1
		if c.encryptionOffered {
			contexts++
		}
		if c.signingChosen {
			contexts++
		}
	}
	w.u16(contexts)
	w.raw(c.srv.guid[:])
	w.u32(c.serverCaps(dialect))
	size := uint32(maxIO)
	if dialect < dialect210 {
		size = 64 << 10
	}
	w.u32(size)
	w.u32(size)
	w.u32(size)
	w.u64(filetime(c.srv.now()))
	w.u64(filetime(c.srv.started))
	w.u16(headerSize + 64)
	w.u16(uint16(len(sec)))
	ctxAt := len(w.b) // NegotiateContextOffset, filled in below
	w.u32(0)
	w.raw(sec)
	if dialect == dialect311 {
		w.align(8)
		le.PutUint32(w.b[ctxAt:], uint32(headerSize+len(w.b)))
		w.u16(ctxPreauthIntegrity)
		w.u16(uint16(6 + len(salt)))
		w.u32(0)
		w.u16(1)
		w.u16(uint16(len(salt)))
		w.u16(hashSHA512)
		w.raw(salt)
		if c.encryptionOffered {
			// With no cipher in common the answer names none (0),
			// and the connection does not encrypt.
			w.align(8)
			w.u16(ctxEncryption)
			w.u16(4)
			w.u32(0)
			w.u16(1)
			w.u16(c.cipher)
		}
		if c.signingChosen {
			w.align(8)
			w.u16(ctxSigning)
			w.u16(4)
			w.u32(0)
			w.u16(1)
			w.u16(c.signAlg)
		}
	}
	return w.b
}

// offeredContexts is what a 3.1.1 NEGOTIATE's contexts offer, and what
// the server chose from them.
type offeredContexts struct {
	preauth bool // SHA-512 pre-auth integrity is offered
	// encryptionOffered: the client sent SMB2_ENCRYPTION_CAPABILITIES;
	// cipher is the one chosen from it, 0 for none in common.
	encryptionOffered bool
	cipher            uint16
	// signingOffered: the client sent SMB2_SIGNING_CAPABILITIES;
	// signingListed: it listed at least one algorithm (a context with
	// none is malformed); signingChosen: one of them is served, and
	// signAlg is the one chosen.
	signingOffered, signingListed, signingChosen bool
	signAlg                                      uint16
}

// negotiateContexts reads a 3.1.1 NEGOTIATE's contexts: whether they
// offer SHA-512 pre-auth integrity, and the cipher and signing
// algorithm chosen from those offered, in the server's order of
// preference (cipherPreference, signingPreference).
func negotiateContexts(msg []byte, off uint32, count int) (offeredContexts, error) {
	var o offeredContexts
	ciphers, signing := map[uint16]bool{}, map[uint16]bool{}
	p := int(off)
	for range count {
		p = (p + 7) &^ 7
		if p < headerSize || p+8 > len(msg) {
			return o, errMalformed
		}
		typ, n := le.Uint16(msg[p:]), int(le.Uint16(msg[p+2:]))
		data := msg[p+8:]
		if n > len(data) {
			return o, errMalformed
		}
		data = data[:n]
		switch typ {
		case ctxPreauthIntegrity:
			if len(data) < 4 {
				return o, errMalformed
			}
			algs := int(le.Uint16(data))
			if 4+2*algs > len(data) {
				return o, errMalformed
			}
			for i := range algs {
				o.preauth = o.preauth || le.Uint16(data[4+2*i:]) == hashSHA512
			}
		case ctxEncryption, ctxSigning:
			if len(data) < 2 {
				return o, errMalformed
			}
			ids := int(le.Uint16(data))
			if 2+2*ids > len(data) {
				return o, errMalformed
			}
			set := ciphers
			if typ == ctxSigning {
				set = signing
				o.signingOffered = true
				o.signingListed = o.signingListed || ids > 0
			} else {
				o.encryptionOffered = true
			}
			for i := range ids {
				set[le.Uint16(data[2+2*i:])] = true
			}
		}
		p += 8 + n
	}
	o.cipher, _ = preferred(cipherPreference, ciphers)
	o.signAlg, o.signingChosen = preferred(signingPreference, signing)
	return o, nil
}

// smb1Negotiate answers a client that starts with SMB1's multi-protocol
// NEGOTIATE naming SMB2: an SMB2 NEGOTIATE response with the wildcard
// dialect, after which the client negotiates again in SMB2. A client
// that offers no SMB2 dialect is refused by closing the connection, as
// SMB1 is not served.
func (c *conn) smb1Negotiate(frame []byte) ([]byte, error) {
	if c.negotiated || len(frame) < 35 || frame[4] != 0x72 {
		return nil, errors.New("smb: SMB1 is not served")
	}
	names := strings.Split(string(frame[35:]), "\x02")
	wild := false
	for _, n := range names {
		if strings.TrimRight(n, "\x00") == "SMB 2.???" {
			wild = true
		}
	}
	if !wild {
		return nil, errors.New("smb: SMB1 client offers no SMB2 dialect")
	}
	h := header{Command: cmdNegotiate, Flags: flagResponse, Credits: 1}
	m := make([]byte, headerSize)
	h.encode(m)
	return append(m, c.negotiateBody(dialectWild, nil)...), nil
}
