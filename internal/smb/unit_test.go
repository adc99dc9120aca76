package smb

import (
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/file"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCMACVectors are RFC 4493's examples (empty, one block, 40 bytes,
// four blocks).
func TestCMACVectors(t *testing.T) {
	m, err := newCMAC(unhex(t, "2b7e151628aed2a6abf7158809cf4f3c"))
	if err != nil {
		t.Fatal(err)
	}
	msg := unhex(t, "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")
	for n, want := range map[int]string{
		0:  "bb1d6929e95937287fa37d129b756746",
		16: "070a16b46b4d4144f79bdd9dd04a287c",
		40: "dfa66747de9ae63030ca32611497c827",
		64: "51f0bebf7e3b9d92fc49741779363cfe",
	} {
		got := m.sum(msg[:n])
		if hex.EncodeToString(got[:]) != want {
			t.Errorf("CMAC of %d bytes = %x, want %s", n, got, want)
		}
	}
}

// TestWildcards: * and ? as Windows matches them (patterns and names
// arrive lower-cased).
func TestWildcards(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"*", "anything", true}, {"*", ".", true}, {"*.txt", "a.txt", true}, {"*.txt", "a.txt.bak", false},
		{"a?c", "abc", true}, {"a?c", "ac", false}, {"file.txt", "file.txt", true}, {"file.txt", "file.tx", false},
		{"*a*b*", "xxaxxbxx", true}, {"*a*b*", "xxbxxaxx", false}, {"*.*", "noext", true}, {"??", "abc", false},
	} {
		if got := match(tc.pattern, tc.name); got != tc.want {
			t.Errorf("match(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

// TestSharePath: SMB paths become model paths; names Azure refuses are
// refused.
func TestSharePath(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "a", "a\\b\\c.txt": "a/b/c.txt", "f::$DATA": "f"} {
		if got, ok := sharePath(in); !ok || got != want {
			t.Errorf("sharePath(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"a\\\\b", "a\\..\\b", ".", "a:stream", "a*", "a?b", "x\x01"} {
		if _, ok := sharePath(in); ok {
			t.Errorf("sharePath(%q) accepted", in)
		}
	}
}

// TestAttributes: attribute bits and the model's names map both ways.
func TestAttributes(t *testing.T) {
	n := &file.Node{SMB: file.SMB{Attributes: attrNames(0x1|0x2|0x20, false, false)}}
	if n.SMB.Attributes != "ReadOnly | Hidden | Archive" || attrBits(n) != 0x23 {
		t.Errorf("file: %q %#x", n.SMB.Attributes, attrBits(n))
	}
	d := &file.Node{Dir: true, SMB: file.SMB{Attributes: attrNames(0x2, true, false)}}
	if d.SMB.Attributes != "Hidden | Directory" || attrBits(d) != 0x12 {
		t.Errorf("dir: %q %#x", d.SMB.Attributes, attrBits(d))
	}
	if got := attrNames(attrNormal, false, false); got != "None" {
		t.Errorf("normal: %q", got)
	}
	if got := attrNames(attrNormal, false, true); got != "" {
		t.Errorf("normal at create: %q", got)
	}
	if attrBits(&file.Node{SMB: file.SMB{Attributes: "None"}}) != attrNormal {
		t.Error("None is not FILE_ATTRIBUTE_NORMAL")
	}
}

// TestFiletime: Windows FILETIME round trips at 100 ns.
func TestFiletime(t *testing.T) {
	at := time.Date(2026, 11, 22, 12, 0, 0, 123456700, time.UTC)
	if got := fromFiletime(filetime(at)); !got.Equal(at) {
		t.Errorf("round trip %v -> %v", at, got)
	}
	if filetime(time.Unix(0, 0)) != filetimeEpoch {
		t.Error("the Unix epoch")
	}
}

// TestAccessMapping: generic rights expand, and only data rights take
// part in sharing.
func TestAccessMapping(t *testing.T) {
	if modelAccess(expandAccess(accGenericRead)) != file.AccessRead {
		t.Error("GENERIC_READ")
	}
	if modelAccess(expandAccess(accGenericWrite)) != file.AccessWrite {
		t.Error("GENERIC_WRITE")
	}
	if modelAccess(expandAccess(accGenericAll)) != file.AccessAll {
		t.Error("GENERIC_ALL")
	}
	if modelAccess(accReadAttributes|accSynchronize) != 0 {
		t.Error("attribute-only access takes part in sharing")
	}
	if modelShare(shareRead|shareDelete) != file.AccessRead|file.AccessDelete {
		t.Error("share modes")
	}
}

// TestNTLMRefusesMalformed: an anonymous AUTHENTICATE is a logon
// failure, one whose fields point outside it is malformed (wrong keys
// are refused end to end by test/smbclient).
func TestNTLMRefusesMalformed(t *testing.T) {
	s := &ntlmServer{now: time.Now}
	if _, err := s.challengeFor([]byte("NTLMSSP\x00\x01\x00\x00\x00\x00\x00\x00\x00")); err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 88)
	copy(auth, "NTLMSSP\x00\x03")
	if err := s.authenticate(auth); !errors.Is(err, errLogon) {
		t.Errorf("anonymous: %v, want a logon failure", err)
	}
	le.PutUint16(auth[20:], 100)
	le.PutUint32(auth[24:], 80)
	if err := s.authenticate(auth); !errors.Is(err, errMalformed) {
		t.Errorf("a field past the end: %v, want malformed", err)
	}
	if _, err := s.challengeFor([]byte("NTLMSSP\x00\x03")); err == nil {
		t.Error("a short negotiate was accepted")
	}
}

// TestSPNEGO: a client's NegTokenInit and NegTokenResp parse, and junk
// does not.
func TestSPNEGO(t *testing.T) {
	mech := []byte("NTLMSSP\x00\x01\x00\x00\x00")
	mechTypes := tlv(0x30, tlv(0x06, oidNTLMSSP))
	init := tlv(0x60, tlv(0x06, oidSPNEGO), tlv(0xa0, tlv(0x30, tlv(0xa0, mechTypes), tlv(0xa2, tlv(0x04, mech)))))
	tok, err := parseSPNEGO(init)
	if err != nil || string(tok.mechToken) != string(mech) || string(tok.mechTypes) != string(mechTypes) {
		t.Fatalf("init: %+v %v", tok, err)
	}
	resp := negTokenResp(negAcceptIncomplete, false, mech, []byte("mic"))
	tok, err = parseSPNEGO(resp)
	if err != nil || string(tok.mechToken) != string(mech) || string(tok.mic) != "mic" {
		t.Fatalf("resp: %+v %v", tok, err)
	}
	for _, junk := range [][]byte{nil, {0x60}, {0x60, 0x85, 1, 2, 3, 4, 5}, {0xa1, 0x03, 0x30, 0x01}, {0x30, 0}} {
		if _, err := parseSPNEGO(junk); err == nil {
			t.Errorf("%x parsed", junk)
		}
	}
}

// TestValidateNegotiate: FSCTL_VALIDATE_NEGOTIATE_INFO confirms what the
// connection negotiated, signed, and refuses a client whose view
// differs (a downgraded dialect, other capabilities).
func TestValidateNegotiate(t *testing.T) {
	c := fuzzConn(t)
	c.dialect, c.clientCaps, c.clientSecMode = dialect302, 0x7f, 1
	copy(c.clientGUID[:], "0123456789abcdef")
	ioctl := func(caps uint32, dialects ...uint16) []byte {
		in := le.AppendUint32(nil, caps)
		in = append(in, "0123456789abcdef"...)
		in = le.AppendUint16(in, 1)
		in = le.AppendUint16(in, uint16(len(dialects)))
		for _, d := range dialects {
			in = le.AppendUint16(in, d)
		}
		b := make([]byte, 56)
		le.PutUint16(b, 57)
		le.PutUint32(b[4:], fsctlValidateNegotiateInfo)
		for i := 8; i < 24; i++ {
			b[i] = 0xff
		}
		le.PutUint32(b[24:], headerSize+56)
		le.PutUint32(b[28:], uint32(len(in)))
		le.PutUint32(b[44:], 1024)
		le.PutUint32(b[48:], ioctlIsFSCTL)
		m := testRequest(cmdIoctl, 1, append(b, in...))
		le.PutUint32(m[16:], flagSigned)
		sig := c.sessions[1].signature(m)
		copy(m[48:64], sig[:])
		return m
	}
	out, err := c.handleFrame(ioctl(0x7f, dialect210, dialect300, dialect302))
	if err != nil || le.Uint32(out[8:]) != statusSuccess {
		t.Fatalf("matching view: %v %#x", err, le.Uint32(out[8:]))
	}
	if le.Uint32(out[16:])&flagSigned == 0 {
		t.Error("the answer is not signed")
	}
	if d := le.Uint16(out[len(out)-2:]); d != dialect302 {
		t.Errorf("answered dialect %#x", d)
	}
	forged := ioctl(0x7f, dialect210, dialect300, dialect302)
	forged[50] ^= 1
	out, err = c.handleFrame(forged)
	if err != nil || le.Uint32(out[8:]) != statusAccessDenied {
		t.Errorf("a request with a wrong signature: %v %#x, want STATUS_ACCESS_DENIED", err, le.Uint32(out[8:]))
	}
	for name, m := range map[string][]byte{
		"downgraded dialect list": ioctl(0x7f, dialect210, dialect300),
		"other capabilities":      ioctl(0x3f, dialect210, dialect300, dialect302),
	} {
		out, err := c.handleFrame(m)
		if err != nil || le.Uint32(out[8:]) != statusAccessDenied {
			t.Errorf("%s: %v %#x, want STATUS_ACCESS_DENIED", name, err, le.Uint32(out[8:]))
		}
	}
}
