package smb

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha512"
	"encoding/hex"
	"testing"
)

// TestGMACIsGCMWithoutPlaintext: AES-GMAC is GCM with no plaintext and
// the message as additional data, so the GCM tag is the MAC. The vector
// is NIST CAVP's first AES-128 GCM encryption case with a 96-bit IV, an
// empty plaintext and 128 bits of additional data (gcmEncryptExtIV128).
func TestGMACIsGCMWithoutPlaintext(t *testing.T) {
	g, err := newGCM(unhex(t, "77be63708971c4e240d1cb79e8d77feb"))
	if err != nil {
		t.Fatal(err)
	}
	tag := g.Seal(nil, unhex(t, "e0e00f19fed7ba0136a797f3"), nil, unhex(t, "7a43ec1d9c0a5a78a0b16533a6213cab"))
	if got := hex.EncodeToString(tag); got != "209fcc8d3675ed938e9c7166709dd946" {
		t.Fatalf("GMAC tag %s", got)
	}
}

// TestKDFVectors: the SP800-108 KDF against published SMB 3.0 keys: the
// client's encryption key of "Encryption in SMB 3.0: A protocol
// perspective" (Microsoft's Open Specifications blog), and the signing
// key of smbj's key-derivation test. A 256-bit key is a whole
// HMAC-SHA256 block derived with L = 256, so its first half is not the
// 128-bit key.
func TestKDFVectors(t *testing.T) {
	enc := kdf(unhex(t, "B4546771B515F766A86735532DD6C4F0"), []byte("SMB2AESCCM\x00"), []byte("ServerIn \x00"))
	if got := hex.EncodeToString(enc); got != "261b72350558f2e9dcf613070383edbf" {
		t.Errorf("3.0 client encryption key %s", got)
	}
	sign := kdf(unhex(t, "09921d4431b171b977370bf8910900f9"), []byte("SMB2AESCMAC\x00"), []byte("SmbSign\x00"))
	if got := hex.EncodeToString(sign); got != "8f5a6907bce9ec89b8f89e560d4e2e18" {
		t.Errorf("3.0 signing key %s", got)
	}
	key, label, ctx := unhex(t, "B4546771B515F766A86735532DD6C4F0"), []byte("SMBC2SCipherKey\x00"), bytes.Repeat([]byte{7}, 64)
	long := kdfBits(key, label, ctx, 256)
	if len(long) != 32 || bytes.Equal(long[:16], kdf(key, label, ctx)) {
		t.Errorf("256-bit key %x: want 32 bytes that do not start with the 128-bit key", long)
	}
}

// TestGMACNonce: the GMAC signature's nonce is the MessageId, then a
// field whose bit 0 marks the server as sender and bit 1 a CANCEL
// request (MS-SMB2 3.1.4.1), and it covers the whole message.
func TestGMACNonce(t *testing.T) {
	key := []byte("signing-key-16-b")
	g, err := newGCM(key)
	if err != nil {
		t.Fatal(err)
	}
	msg := func(cmd uint16, flags uint32) []byte {
		m := testRequest(cmd, 1, []byte{4, 0, 0, 0})
		le.PutUint64(m[24:], 0x0102030405060708)
		le.PutUint32(m[16:], flags)
		return m
	}
	for _, tc := range []struct {
		name  string
		m     []byte
		nonce string
	}{
		{"request", msg(cmdEcho, 0), "080706050403020100000000"},
		{"response", msg(cmdEcho, flagResponse), "080706050403020101000000"},
		{"cancel", msg(cmdCancel, 0), "080706050403020102000000"},
	} {
		want := g.Seal(nil, unhex(t, tc.nonce), nil, tc.m)
		got := gmacSignature(g, tc.m)
		if !bytes.Equal(got[:], want) {
			t.Errorf("%s: signature %x, want the GCM tag %x of nonce %s", tc.name, got, want, tc.nonce)
		}
		for _, at := range []int{0, 20, 40, len(tc.m) - 1} {
			changed := append([]byte(nil), tc.m...)
			changed[at] ^= 1
			if gmacSignature(g, changed) == got {
				t.Errorf("%s: the signature does not cover byte %d", tc.name, at)
			}
		}
	}
}

// negotiateContexts311 lays out 3.1.1 contexts: SHA-512 pre-auth
// integrity, then an encryption context listing ciphers and a signing
// context listing algorithms, each left out when nil.
func negotiateContexts311(ciphers, signing []uint16) ([]byte, uint16) {
	preauth := []byte{1, 0, 32, 0, 1, 0}
	preauth = append(preauth, bytes.Repeat([]byte{7}, 32)...)
	out, n := negotiateContext(ctxPreauthIntegrity, preauth), uint16(1)
	list := func(ids []uint16) []byte {
		b := le.AppendUint16(nil, uint16(len(ids)))
		for _, id := range ids {
			b = le.AppendUint16(b, id)
		}
		return b
	}
	if ciphers != nil {
		out, n = append(out, negotiateContext(ctxEncryption, list(ciphers))...), n+1
	}
	if signing != nil {
		out, n = append(out, negotiateContext(ctxSigning, list(signing))...), n+1
	}
	return out, n
}

// negotiateAnswer reads a NEGOTIATE response's contexts by type.
func negotiateAnswer(t *testing.T, out []byte) map[uint16][]byte {
	t.Helper()
	body := out[headerSize:]
	count, off := int(le.Uint16(body[6:])), int(le.Uint32(body[60:]))
	got := map[uint16][]byte{}
	for range count {
		off = (off + 7) &^ 7
		typ, n := le.Uint16(out[off:]), int(le.Uint16(out[off+2:]))
		if _, dup := got[typ]; dup {
			t.Fatalf("context %#x twice", typ)
		}
		got[typ] = out[off+8 : off+8+n]
		off += 8 + n
	}
	return got
}

// TestNegotiateChoosesAlgorithms: a 3.1.1 NEGOTIATE's signing context
// is answered with the algorithm chosen in the server's order (AES-GMAC,
// AES-CMAC, HMAC-SHA256) whatever the client's order, and left
// unanswered (AES-CMAC signs) when it lists none the server knows; the
// cipher is chosen in Windows Server's order among the ciphers Azure
// Files offers (AES-128-GCM, AES-128-CCM, AES-256-GCM), and a list
// without any is answered with cipher 0. A signing context that lists
// nothing is STATUS_INVALID_PARAMETER.
func TestNegotiateChoosesAlgorithms(t *testing.T) {
	for _, tc := range []struct {
		name            string
		ciphers, sign   []uint16
		wantCipher      uint16
		wantSign        uint16
		wantSignContext bool
	}{
		{"samba's defaults", []uint16{cipherAES128GCM, cipherAES128CCM, cipherAES256GCM, cipherAES256CCM}, []uint16{signAESGMAC, signAESCMAC, signHMACSHA256}, cipherAES128GCM, signAESGMAC, true},
		{"client prefers CMAC and AES-256", []uint16{cipherAES256GCM, cipherAES128GCM}, []uint16{signAESCMAC, signAESGMAC}, cipherAES128GCM, signAESGMAC, true},
		{"only AES-256-GCM and HMAC-SHA256", []uint16{cipherAES256GCM}, []uint16{signHMACSHA256}, cipherAES256GCM, signHMACSHA256, true},
		{"only CMAC", []uint16{cipherAES128CCM, cipherAES256CCM}, []uint16{signAESCMAC}, cipherAES128CCM, signAESCMAC, true},
		{"only AES-256-CCM, unknown signing", []uint16{cipherAES256CCM}, []uint16{0x0009}, 0, signAESCMAC, false},
		{"no signing context", []uint16{cipherAES128GCM}, nil, cipherAES128GCM, signAESCMAC, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestConn(t)
			ctxs, n := negotiateContexts311(tc.ciphers, tc.sign)
			out, err := c.handleFrame(testRequest(cmdNegotiate, 0, negotiateBody([]uint16{dialect311}, ctxs, n)))
			if err != nil || le.Uint32(out[8:]) != statusSuccess {
				t.Fatalf("NEGOTIATE: %v %x", err, out[:min(len(out), 16)])
			}
			got := negotiateAnswer(t, out)
			if enc := got[ctxEncryption]; len(enc) != 4 || le.Uint16(enc) != 1 || le.Uint16(enc[2:]) != tc.wantCipher {
				t.Errorf("encryption context %x, want cipher %#x", enc, tc.wantCipher)
			}
			sign, answered := got[ctxSigning]
			if answered != tc.wantSignContext || answered && (len(sign) != 4 || le.Uint16(sign) != 1 || le.Uint16(sign[2:]) != tc.wantSign) {
				t.Errorf("signing context %x (answered %v), want %#x (answered %v)", sign, answered, tc.wantSign, tc.wantSignContext)
			}
			if c.cipher != tc.wantCipher || c.signing() != tc.wantSign {
				t.Errorf("connection cipher %#x signing %#x, want %#x %#x", c.cipher, c.signing(), tc.wantCipher, tc.wantSign)
			}
		})
	}
	c := newTestConn(t)
	ctxs, n := negotiateContexts311(nil, []uint16{})
	out, err := c.handleFrame(testRequest(cmdNegotiate, 0, negotiateBody([]uint16{dialect311}, ctxs, n)))
	if err != nil || le.Uint32(out[8:]) != statusInvalidParameter {
		t.Errorf("an empty signing context: %v %x, want STATUS_INVALID_PARAMETER", err, out[:min(len(out), 16)])
	}
}

// TestSignedSessionRoundTrip logs on over 3.1.1 as a client does,
// offering AES-GMAC signing and only AES-256-GCM encryption, and derives
// the keys on its side from the pre-auth hash of the messages it sent
// and received (MS-SMB2 3.3.5.5.3): the final SESSION_SETUP response
// and a TREE_CONNECT's response carry AES-128-GMAC signatures the client
// verifies, a request with a wrong signature is STATUS_ACCESS_DENIED,
// and an ECHO encrypted with the 256-bit client-to-server key is
// answered encrypted with the 256-bit server-to-client key.
func TestSignedSessionRoundTrip(t *testing.T) {
	c := newTestConn(t)
	var preauth [64]byte
	chain := func(m []byte) {
		h := sha512.New()
		h.Write(preauth[:])
		h.Write(m)
		copy(preauth[:], h.Sum(nil))
	}
	ctxs, n := negotiateContexts311([]uint16{cipherAES256GCM}, []uint16{signAESGMAC, signAESCMAC})
	req := testRequest(cmdNegotiate, 0, negotiateBody([]uint16{dialect311}, ctxs, n))
	out, err := c.handleFrame(req)
	if err != nil || le.Uint32(out[8:]) != statusSuccess {
		t.Fatalf("NEGOTIATE: %v", err)
	}
	chain(req)
	chain(out)

	const flags = 0x00000001 | 0x00000004 | 0x00000200 | 0x00008000 | 0x00080000 | 0x00800000 | 0x02000000 | 0x20000000 | 0x40000000 | 0x80000000
	client := &ntlmClient{negFlags: flags, authFlags: flags}
	copy(client.exported[:], "exported-key-16b")
	negotiate := client.negotiateMessage()
	req = setupRequest(0, negotiate)
	out, err = c.handleFrame(req)
	if err != nil || le.Uint32(out[8:]) != statusMoreProcessingRequired {
		t.Fatalf("first SESSION_SETUP: %v", err)
	}
	chain(req)
	chain(out)
	sessionID := le.Uint64(out[40:])
	tok, err := parseSPNEGO(out[headerSize+8:])
	if err != nil {
		t.Fatal(err)
	}
	auth, sessionKey := client.authenticateMessage(negotiate, tok.mechToken)
	req = setupRequest(sessionID, auth)
	chain(req)
	out, err = c.handleFrame(req)
	if err != nil || le.Uint32(out[8:]) != statusSuccess {
		t.Fatalf("second SESSION_SETUP: %v %x", err, out[:min(len(out), 16)])
	}

	gmac, err := newGCM(kdf(sessionKey, []byte("SMBSigningKey\x00"), preauth[:]))
	if err != nil {
		t.Fatal(err)
	}
	// verify checks a response's GMAC signature with the server's role
	// bit, computed here from the specification's nonce layout.
	verify := func(what string, m []byte) {
		t.Helper()
		if le.Uint32(m[16:])&flagSigned == 0 {
			t.Fatalf("%s is not signed", what)
		}
		zeroed := append([]byte(nil), m...)
		clear(zeroed[48:64])
		nonce := append(append([]byte(nil), m[24:32]...), 1, 0, 0, 0)
		if want := gmac.Seal(nil, nonce, nil, zeroed); !bytes.Equal(m[48:64], want) {
			t.Fatalf("%s signature %x, want the AES-128-GMAC tag %x", what, m[48:64], want)
		}
	}
	verify("the final SESSION_SETUP response", out)

	path := utf16le(`\\127.0.0.1\s`)
	tc := make([]byte, 8, 8+len(path))
	le.PutUint16(tc, 9)
	le.PutUint16(tc[4:], headerSize+8)
	le.PutUint16(tc[6:], uint16(len(path)))
	treeConnect := func(corrupt bool) []byte {
		m := testRequest(cmdTreeConnect, 0, append(tc, path...))
		le.PutUint64(m[24:], 7)
		le.PutUint64(m[40:], sessionID)
		le.PutUint32(m[16:], flagSigned)
		nonce := append(append([]byte(nil), m[24:32]...), 0, 0, 0, 0)
		copy(m[48:64], gmac.Seal(nil, nonce, nil, m))
		if corrupt {
			m[len(m)-1] ^= 1
		}
		return m
	}
	out, err = c.handleFrame(treeConnect(false))
	if err != nil || le.Uint32(out[8:]) != statusSuccess {
		t.Fatalf("signed TREE_CONNECT: %v %x", err, out[:min(len(out), 16)])
	}
	verify("the TREE_CONNECT response", out)
	out, err = c.handleFrame(treeConnect(true))
	if err != nil || le.Uint32(out[8:]) != statusAccessDenied {
		t.Fatalf("TREE_CONNECT with a wrong signature: %v %x, want STATUS_ACCESS_DENIED", err, out[:min(len(out), 16)])
	}

	in, outKey := kdfBits(sessionKey, []byte("SMBC2SCipherKey\x00"), preauth[:], 256), kdfBits(sessionKey, []byte("SMBS2CCipherKey\x00"), preauth[:], 256)
	toServer, err := newGCM(in)
	if err != nil {
		t.Fatal(err)
	}
	echo := testRequest(cmdEcho, 0, []byte{4, 0, 0, 0})
	le.PutUint64(echo[40:], sessionID)
	frame, err := sealFor(&session{id: sessionID, seal: toServer}, echo)
	if err != nil {
		t.Fatal(err)
	}
	out, err = c.handleFrame(frame)
	if err != nil || len(out) < transformSize || out[0] != 0xFD {
		t.Fatalf("encrypted ECHO: %v %x", err, out[:min(len(out), 16)])
	}
	b, err := aes.NewCipher(outKey)
	if err != nil {
		t.Fatal(err)
	}
	fromServer, err := cipher.NewGCM(b)
	if err != nil {
		t.Fatal(err)
	}
	tagged := append(append([]byte(nil), out[transformSize:]...), out[4:20]...)
	plain, err := fromServer.Open(nil, out[20:32], tagged, out[20:transformSize])
	if err != nil || le.Uint16(plain[12:]) != cmdEcho || le.Uint32(plain[8:]) != statusSuccess {
		t.Fatalf("the answer does not decrypt with the 256-bit server-to-client key: %v", err)
	}
}
