package smb

import (
	"bytes"
	"errors"
)

// SPNEGO (RFC 4178) wraps NTLMSSP in SESSION_SETUP. Only what the
// exchange needs is parsed: DER tag-length-value triples.

var (
	oidSPNEGO  = []byte{0x2b, 0x06, 0x01, 0x05, 0x05, 0x02}
	oidNTLMSSP = []byte{0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x02, 0x02, 0x0a}
)

func tlv(tag byte, content ...[]byte) []byte {
	n := 0
	for _, c := range content {
		n += len(c)
	}
	out := []byte{tag}
	switch {
	case n < 0x80:
		out = append(out, byte(n))
	case n < 0x100:
		out = append(out, 0x81, byte(n))
	case n < 0x10000:
		out = append(out, 0x82, byte(n>>8), byte(n))
	default:
		out = append(out, 0x83, byte(n>>16), byte(n>>8), byte(n))
	}
	for _, c := range content {
		out = append(out, c...)
	}
	return out
}

var errDER = errors.New("smb: malformed SPNEGO token")

// parseTLV splits one DER element off b; whole is the element itself.
func parseTLV(b []byte) (tag byte, content, whole, rest []byte, err error) {
	if len(b) < 2 {
		return 0, nil, nil, nil, errDER
	}
	tag = b[0]
	n, hdr := int(b[1]), 2
	if n&0x80 != 0 {
		k := n & 0x7f
		if k == 0 || k > 3 || len(b) < 2+k {
			return 0, nil, nil, nil, errDER
		}
		n = 0
		for _, c := range b[2 : 2+k] {
			n = n<<8 | int(c)
		}
		hdr += k
	}
	if hdr+n > len(b) {
		return 0, nil, nil, nil, errDER
	}
	return tag, b[hdr : hdr+n], b[:hdr+n], b[hdr+n:], nil
}

// fields splits a SEQUENCE's content into its context-tagged fields.
func fields(seq []byte) (map[byte][]byte, error) {
	out := map[byte][]byte{}
	for len(seq) > 0 {
		tag, content, _, rest, err := parseTLV(seq)
		if err != nil {
			return nil, err
		}
		out[tag] = content
		seq = rest
	}
	return out, nil
}

// negTokenInitHint is the security buffer of the NEGOTIATE response:
// SPNEGO offering NTLMSSP only.
func negTokenInitHint() []byte {
	mechs := tlv(0x30, tlv(0x06, oidNTLMSSP))
	hints := tlv(0xa3, tlv(0x30, tlv(0xa0, tlv(0x1b, []byte("not_defined_in_RFC4178@please_ignore")))))
	return tlv(0x60, tlv(0x06, oidSPNEGO), tlv(0xa0, tlv(0x30, tlv(0xa0, mechs), hints)))
}

// spnegoToken is what a client's SPNEGO token carries.
type spnegoToken struct {
	mechTypes []byte // the DER MechTypeList of a NegTokenInit
	mechToken []byte
	mic       []byte
	raw       bool // a bare NTLMSSP message, without SPNEGO
}

func parseSPNEGO(b []byte) (*spnegoToken, error) {
	if bytes.HasPrefix(b, ntlmSignature) {
		return &spnegoToken{mechToken: b, raw: true}, nil
	}
	tag, content, _, _, err := parseTLV(b)
	if err != nil {
		return nil, err
	}
	var f map[byte][]byte
	t := &spnegoToken{}
	switch tag {
	case 0x60: // GSS-API InitialContextToken: OID, then NegTokenInit [0]
		otag, oid, _, rest, err := parseTLV(content)
		if err != nil || otag != 0x06 || !bytes.Equal(oid, oidSPNEGO) {
			return nil, errDER
		}
		itag, init, _, _, err := parseTLV(rest)
		if err != nil || itag != 0xa0 {
			return nil, errDER
		}
		stag, seq, _, _, err := parseTLV(init)
		if err != nil || stag != 0x30 {
			return nil, errDER
		}
		if f, err = fields(seq); err != nil {
			return nil, err
		}
		if mt, ok := f[0xa0]; ok {
			_, _, whole, _, err := parseTLV(mt)
			if err != nil {
				return nil, err
			}
			t.mechTypes = whole
		}
	case 0xa1: // NegTokenResp
		stag, seq, _, _, err := parseTLV(content)
		if err != nil || stag != 0x30 {
			return nil, errDER
		}
		if f, err = fields(seq); err != nil {
			return nil, err
		}
	default:
		return nil, errDER
	}
	if tok, ok := f[0xa2]; ok {
		otag, oct, _, _, err := parseTLV(tok)
		if err != nil || otag != 0x04 {
			return nil, errDER
		}
		t.mechToken = oct
	}
	if mic, ok := f[0xa3]; ok && tag == 0xa1 {
		otag, oct, _, _, err := parseTLV(mic)
		if err != nil || otag != 0x04 {
			return nil, errDER
		}
		t.mic = oct
	}
	return t, nil
}

// negState values of a NegTokenResp.
const (
	negAcceptCompleted  = 0
	negAcceptIncomplete = 1
	negReject           = 2
)

func negTokenResp(state byte, mech bool, token, mic []byte) []byte {
	parts := [][]byte{tlv(0xa0, tlv(0x0a, []byte{state}))}
	if mech {
		parts = append(parts, tlv(0xa1, tlv(0x06, oidNTLMSSP)))
	}
	if token != nil {
		parts = append(parts, tlv(0xa2, tlv(0x04, token)))
	}
	if mic != nil {
		parts = append(parts, tlv(0xa3, tlv(0x04, mic)))
	}
	return tlv(0xa1, tlv(0x30, parts...))
}
