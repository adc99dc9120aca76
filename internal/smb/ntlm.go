package smb

import (
	"bytes"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/rc4"
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/md4"
)

// NTLMSSP (MS-NLMP) as an SMB server speaks it: it challenges, then
// verifies an NTLMv2 response against the storage account's keys, the
// way Azure Files accepts key-based access: the user name is the account
// and the password is a key in its base64 form.

var ntlmSignature = []byte("NTLMSSP\x00")

const (
	ntlmNegotiate    = 1
	ntlmChallenge    = 2
	ntlmAuthenticate = 3
)

// Negotiate flags (MS-NLMP 2.2.2.5).
const (
	ntlmFlagUnicode       uint32 = 0x00000001
	ntlmFlagRequestTarget uint32 = 0x00000004
	ntlmFlagSign          uint32 = 0x00000010
	ntlmFlagSeal          uint32 = 0x00000020
	ntlmFlagNTLM          uint32 = 0x00000200
	ntlmFlagAlwaysSign    uint32 = 0x00008000
	ntlmFlagTargetServer  uint32 = 0x00020000
	ntlmFlagESS           uint32 = 0x00080000
	ntlmFlagTargetInfo    uint32 = 0x00800000
	ntlmFlagVersion       uint32 = 0x02000000
	ntlmFlag128           uint32 = 0x20000000
	ntlmFlagKeyExch       uint32 = 0x40000000
	ntlmFlag56            uint32 = 0x80000000
	ntlmMirroredFlags            = ntlmFlagSign | ntlmFlagSeal | ntlmFlag128 | ntlmFlagKeyExch | ntlmFlag56
	ntlmServerFlags              = ntlmFlagUnicode | ntlmFlagRequestTarget | ntlmFlagNTLM | ntlmFlagAlwaysSign | ntlmFlagTargetServer | ntlmFlagESS | ntlmFlagTargetInfo | ntlmFlagVersion
	ntlmAvEOL                    = 0
	ntlmAvNbComputerName         = 1
	ntlmAvNbDomainName           = 2
	ntlmAvDNSComputerName        = 3
	ntlmAvDNSDomainName          = 4
	ntlmAvFlags                  = 6
	ntlmAvTimestamp              = 7
	ntlmAvFlagMICPresent  uint32 = 0x2
)

var errLogon = errors.New("smb: logon failure")

// ntlmServer is one authentication in progress.
type ntlmServer struct {
	accounts  *azauth.Accounts
	now       func() time.Time
	negotiate []byte
	challenge []byte
	flags     uint32
	nonce     [8]byte

	// Set by a successful authenticate.
	account     string
	workstation string
	sessionKey  []byte // the exported session key
}

// serverName is the NetBIOS name the challenge gives.
const serverName = "CERULEAN"

// challengeFor answers a NEGOTIATE_MESSAGE.
func (s *ntlmServer) challengeFor(neg []byte) ([]byte, error) {
	if len(neg) < 16 || !bytes.Equal(neg[:8], ntlmSignature) || le.Uint32(neg[8:]) != ntlmNegotiate {
		return nil, errMalformed
	}
	s.negotiate = append([]byte(nil), neg...)
	s.flags = ntlmServerFlags | le.Uint32(neg[12:])&ntlmMirroredFlags
	if _, err := rand.Read(s.nonce[:]); err != nil {
		return nil, err
	}
	var info buf
	av := func(id uint16, v []byte) {
		info.u16(id)
		info.u16(uint16(len(v)))
		info.raw(v)
	}
	av(ntlmAvNbDomainName, utf16le(serverName))
	av(ntlmAvNbComputerName, utf16le(serverName))
	av(ntlmAvDNSDomainName, utf16le("localhost"))
	av(ntlmAvDNSComputerName, utf16le("localhost"))
	ts := make([]byte, 8)
	le.PutUint64(ts, filetime(s.now()))
	av(ntlmAvTimestamp, ts)
	av(ntlmAvEOL, nil)
	target := utf16le(serverName)
	var m buf
	m.raw(ntlmSignature)
	m.u32(ntlmChallenge)
	const fixed = 56
	m.u16(uint16(len(target)))
	m.u16(uint16(len(target)))
	m.u32(fixed)
	m.u32(s.flags)
	m.raw(s.nonce[:])
	m.zero(8)
	m.u16(uint16(len(info.b)))
	m.u16(uint16(len(info.b)))
	m.u32(uint32(fixed + len(target)))
	m.raw([]byte{10, 0, 0x63, 0x45, 0, 0, 0, 15}) // version 10.0.17763, NTLM revision 15
	m.raw(target)
	m.raw(info.b)
	s.challenge = m.b
	return m.b, nil
}

// field reads one (length, max length, offset) payload field.
func ntlmField(msg []byte, at int) ([]byte, bool) {
	if at+8 > len(msg) {
		return nil, false
	}
	n, off := int(le.Uint16(msg[at:])), int(le.Uint32(msg[at+4:]))
	if n == 0 {
		return nil, true
	}
	if off < 0 || off+n > len(msg) || off+n < off {
		return nil, false
	}
	return msg[off : off+n], true
}

// authenticate verifies an AUTHENTICATE_MESSAGE. A malformed message is
// errMalformed; a wrong account, key or an anonymous or NTLMv1 logon is
// errLogon.
func (s *ntlmServer) authenticate(auth []byte) error {
	if s.challenge == nil || len(auth) < 64 || !bytes.Equal(auth[:8], ntlmSignature) || le.Uint32(auth[8:]) != ntlmAuthenticate {
		return errMalformed
	}
	nt, ok1 := ntlmField(auth, 20)
	domain, ok2 := ntlmField(auth, 28)
	user, ok3 := ntlmField(auth, 36)
	ws, ok4 := ntlmField(auth, 44)
	encKey, ok5 := ntlmField(auth, 52)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return errMalformed
	}
	flags := le.Uint32(auth[60:])
	if len(nt) < 16+28 || len(user) == 0 {
		return errLogon // anonymous, or NTLMv1: refused as Azure refuses them
	}
	if !avPairsWellFormed(nt[16+28:]) {
		// Windows answers an NTLMv2 response whose AV pairs do not
		// parse with STATUS_INVALID_PARAMETER before it checks the
		// proof (smbtorture smb2.session.ntlmssp_bug14932).
		return errMalformed
	}
	name := fromUTF16LE(user)
	acct, found := s.lookup(name)
	if !found {
		return errLogon
	}
	proof, blob := nt[:16], nt[16:]
	for _, key := range acct.Keys {
		password := base64.StdEncoding.EncodeToString(key)
		hash := md4.Sum(utf16le(password))
		respKey := hmacMD5(hash[:], utf16le(strings.ToUpper(name)), domain)
		if !hmac.Equal(hmacMD5(respKey, s.nonce[:], blob), proof) {
			continue
		}
		baseKey := hmacMD5(respKey, proof)
		exported := baseKey
		if flags&ntlmFlagKeyExch != 0 {
			if len(encKey) != 16 {
				return errMalformed
			}
			c, err := rc4.NewCipher(baseKey)
			if err != nil {
				return err
			}
			exported = make([]byte, 16)
			c.XORKeyStream(exported, encKey)
		}
		if micPresent(blob) {
			if len(auth) < 88 {
				return errMalformed
			}
			zeroed := append([]byte(nil), auth...)
			clear(zeroed[72:88])
			if !hmac.Equal(hmacMD5(exported, s.negotiate, s.challenge, zeroed), auth[72:88]) {
				return errLogon
			}
		}
		s.flags &^= ntlmFlagKeyExch &^ flags
		s.account, s.workstation, s.sessionKey = acct.Name, fromUTF16LE(ws), exported
		return nil
	}
	return errLogon
}

// lookup finds the account a user name names; account names are
// lowercase, and Windows sends the name as the user typed it.
func (s *ntlmServer) lookup(name string) (azauth.Account, bool) {
	if a, ok := s.accounts.Lookup(name); ok {
		return a, true
	}
	return s.accounts.Lookup(strings.ToLower(name))
}

// avPairsWellFormed reports whether an NTLMv2 client challenge's AV
// pairs (MS-NLMP 2.2.2.1) each lie within it, up to the MsvAvEOL that
// must end them; what follows MsvAvEOL is padding.
func avPairsWellFormed(av []byte) bool {
	for len(av) >= 4 {
		id, n := le.Uint16(av), int(le.Uint16(av[2:]))
		if id == ntlmAvEOL {
			return true
		}
		if 4+n > len(av) {
			return false
		}
		av = av[4+n:]
	}
	return false
}

// micPresent reports whether an NTLMv2 client blob's AV pairs say the
// message carries a MIC.
func micPresent(blob []byte) bool {
	if len(blob) < 28 {
		return false
	}
	av := blob[28:]
	for len(av) >= 4 {
		id, n := le.Uint16(av), int(le.Uint16(av[2:]))
		if id == ntlmAvEOL || 4+n > len(av) {
			return false
		}
		if id == ntlmAvFlags && n == 4 {
			return le.Uint32(av[4:])&ntlmAvFlagMICPresent != 0
		}
		av = av[4+n:]
	}
	return false
}

func hmacMD5(key []byte, parts ...[]byte) []byte {
	h := hmac.New(md5.New, key)
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

// ntlmSeal is one direction of NTLMSSP message signing (MS-NLMP 3.4.4.2),
// which SPNEGO's mechListMIC uses.
type ntlmSeal struct {
	signKey []byte
	rc4     *rc4.Cipher // nil without key exchange
	seq     uint32
}

func newNTLMSeal(sessionKey []byte, flags uint32, serverToClient bool) (*ntlmSeal, error) {
	dir := "client-to-server"
	if serverToClient {
		dir = "server-to-client"
	}
	sign := md5.Sum(append(append([]byte(nil), sessionKey...), "session key to "+dir+" signing key magic constant\x00"...))
	sealBase := sessionKey
	switch {
	case flags&ntlmFlag128 != 0:
	case flags&ntlmFlag56 != 0:
		sealBase = sessionKey[:7]
	default:
		sealBase = sessionKey[:5]
	}
	seal := md5.Sum(append(append([]byte(nil), sealBase...), "session key to "+dir+" sealing key magic constant\x00"...))
	s := &ntlmSeal{signKey: sign[:]}
	if flags&ntlmFlagKeyExch != 0 {
		c, err := rc4.NewCipher(seal[:])
		if err != nil {
			return nil, err
		}
		s.rc4 = c
	}
	return s, nil
}

// sign returns the 16-byte signature of msg and advances the sequence.
func (s *ntlmSeal) sign(msg []byte) []byte {
	seq := le.AppendUint32(nil, s.seq)
	sum := hmacMD5(s.signKey, seq, msg)[:8]
	if s.rc4 != nil {
		s.rc4.XORKeyStream(sum, sum)
	}
	s.seq++
	out := le.AppendUint32(nil, 1)
	out = append(out, sum...)
	return append(out, seq...)
}
