package smb

import (
	"bytes"
	"context"
	"crypto/rc4"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/md4"
)

// These fuzz targets reach the decoders FuzzPacket's random frames
// rarely get past: NEGOTIATE with its contexts on a fresh connection,
// the two SESSION_SETUP legs with a correctly computed NTLMv2 answer,
// encrypted (TRANSFORM_HEADER) frames the session's key decrypts, and
// the commands on a file or directory a CREATE really opened.

// newTestConn is a connection of a server over an in-memory store with
// share "s" holding d/ and d/f.txt, before NEGOTIATE; devstoreaccount1
// can log on.
func newTestConn(t testing.TB) *conn {
	t.Helper()
	accounts, err := azauth.LoadAccounts(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	store := memory.Open()
	files := file.New(file.Config{Store: store, Accounts: accounts, Logger: slog.New(slog.DiscardHandler)})
	ctx := context.Background()
	if _, err := files.CreateShare(ctx, file.ShareRef{Account: azauth.DevAccount, Share: "s"}, file.ShareSpec{}); err != nil {
		t.Fatal(err)
	}
	if _, err := files.CreateDirectory(ctx, file.Ref{Account: azauth.DevAccount, Share: "s", Path: "d"}, file.SMBChange{}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := files.CreateFile(ctx, file.Ref{Account: azauth.DevAccount, Share: "s", Path: "d/f.txt"}, file.CreateFileOptions{Size: 100}); err != nil {
		t.Fatal(err)
	}
	srv := New(Config{Files: files, Accounts: accounts, Logger: slog.New(slog.DiscardHandler)})
	a, b := net.Pipe()
	t.Cleanup(func() { _ = a.Close(); _ = b.Close(); _ = store.Close() })
	go func() { _, _ = io.Copy(io.Discard, b) }()
	c := newConn(srv, a)
	t.Cleanup(c.cancel)
	return c
}

// negotiateBody is a NEGOTIATE request offering dialects, with the
// 3.1.1 negotiate contexts given (already laid out, 8-aligned).
func negotiateBody(dialects []uint16, contexts []byte, count uint16) []byte {
	b := make([]byte, 36, 36+2*len(dialects)+8+len(contexts))
	le.PutUint16(b, 36)
	le.PutUint16(b[2:], uint16(len(dialects)))
	le.PutUint16(b[4:], secSigningEnabled)
	le.PutUint32(b[8:], capLargeMTU)
	copy(b[12:28], "fuzz-client-guid")
	for _, d := range dialects {
		b = le.AppendUint16(b, d)
	}
	if contexts != nil {
		for (headerSize+len(b))%8 != 0 {
			b = append(b, 0)
		}
		le.PutUint32(b[28:], uint32(headerSize+len(b)))
		le.PutUint16(b[32:], count)
		b = append(b, contexts...)
	}
	return b
}

// negotiateContext lays out one negotiate context, padded to 8 bytes.
func negotiateContext(typ uint16, data []byte) []byte {
	b := le.AppendUint16(nil, typ)
	b = le.AppendUint16(b, uint16(len(data)))
	b = append(b, 0, 0, 0, 0)
	b = append(b, data...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

// standardContexts offers SHA-512 pre-auth integrity and AES-128-GCM,
// as Windows and Samba clients do.
func standardContexts() []byte {
	preauth := []byte{1, 0, 32, 0, 1, 0}
	preauth = append(preauth, bytes.Repeat([]byte{7}, 32)...)
	enc := []byte{2, 0, 2, 0, 1, 0}
	return append(negotiateContext(ctxPreauthIntegrity, preauth), negotiateContext(ctxEncryption, enc)...)
}

// FuzzNegotiate: any NEGOTIATE body on a fresh connection is answered
// or closes the connection; an answer that succeeds picks a dialect the
// client offered (or the wildcard for SMB1's NEGOTIATE), and 3.1.1 only
// with SHA-512 pre-auth integrity offered.
func FuzzNegotiate(f *testing.F) {
	all := []uint16{dialect202, dialect210, dialect300, dialect302, dialect311}
	f.Add(negotiateBody(all, standardContexts(), 2))
	f.Add(negotiateBody([]uint16{dialect311}, negotiateContext(ctxPreauthIntegrity, []byte{1, 0, 0, 0, 1, 0}), 1))
	f.Add(negotiateBody([]uint16{dialect311}, append(standardContexts(), negotiateContext(7, []byte("unknown"))...), 3))
	f.Add(negotiateBody([]uint16{dialect311}, negotiateContext(ctxEncryption, []byte{1, 0, 1, 0}), 1))
	f.Add(negotiateBody([]uint16{dialect311}, append(standardContexts(), negotiateContext(ctxSigning, []byte{3, 0, 1, 0, 2, 0, 0, 0})...), 3))
	f.Add(negotiateBody([]uint16{dialect311}, append(standardContexts(), negotiateContext(ctxSigning, []byte{0, 0})...), 3))
	f.Add(negotiateBody([]uint16{dialect202, dialect210}, nil, 0))
	f.Add(negotiateBody([]uint16{0x0100, dialectWild}, nil, 0))
	f.Add(negotiateBody(nil, nil, 0))
	f.Fuzz(func(t *testing.T, body []byte) {
		c := newTestConn(t)
		out, err := c.handleFrame(testRequest(cmdNegotiate, 0, body))
		if err != nil {
			return
		}
		if len(out) < headerSize+6 {
			t.Fatalf("answer of %d bytes", len(out))
		}
		if le.Uint32(out[8:]) != statusSuccess {
			if c.negotiated {
				t.Fatal("a refused NEGOTIATE negotiated")
			}
			return
		}
		if !c.negotiated {
			t.Fatal("a NEGOTIATE answered with success left the connection unnegotiated")
		}
		d := le.Uint16(out[headerSize+4:])
		if d != c.dialect {
			t.Fatalf("answered dialect %#x, connection has %#x", d, c.dialect)
		}
		count := int(le.Uint16(body[2:]))
		offered := false
		for i := range count {
			offered = offered || le.Uint16(body[36+2*i:]) == d
		}
		if !offered {
			t.Fatalf("dialect %#x chosen but not offered", d)
		}
		if d == dialect311 {
			ctx, err := negotiateContexts(testRequest(cmdNegotiate, 0, body), le.Uint32(body[28:]), int(le.Uint16(body[32:])))
			if err != nil || !ctx.preauth || ctx.cipher != c.cipher || ctx.signingChosen && ctx.signAlg != c.signing() {
				t.Fatalf("3.1.1 chosen with contexts %+v (conn cipher %v, signing %v), %v", ctx, c.cipher, c.signing(), err)
			}
		}
	})
}

// FuzzSPNEGO: any security token parses or is refused, and every
// NegTokenResp the server writes parses back to the token and MIC it
// carries.
func FuzzSPNEGO(f *testing.F) {
	mech := []byte("NTLMSSP\x00\x01\x00\x00\x00")
	mechTypes := tlv(0x30, tlv(0x06, oidNTLMSSP))
	f.Add(tlv(0x60, tlv(0x06, oidSPNEGO), tlv(0xa0, tlv(0x30, tlv(0xa0, mechTypes), tlv(0xa2, tlv(0x04, mech))))), []byte("mic"), uint8(1))
	f.Add(negTokenResp(negAcceptIncomplete, true, mech, []byte("mic")), []byte{}, uint8(0))
	f.Add(negTokenInitHint(), bytes.Repeat([]byte{1}, 300), uint8(2))
	f.Add(mech, []byte(nil), uint8(0))
	f.Add([]byte{0x60, 0x84, 0xff, 0xff, 0xff, 0xff}, []byte(nil), uint8(0))
	f.Fuzz(func(t *testing.T, token, payload []byte, state uint8) {
		tok, err := parseSPNEGO(token)
		if err == nil && tok == nil {
			t.Fatal("nil token without an error")
		}
		for _, withMech := range []bool{false, true} {
			resp := negTokenResp(state%3, withMech, payload, token)
			back, err := parseSPNEGO(resp)
			if err != nil {
				t.Fatalf("the server's NegTokenResp %x does not parse: %v", resp, err)
			}
			if !bytes.Equal(back.mechToken, payload) || !bytes.Equal(back.mic, token) || back.raw {
				t.Fatalf("NegTokenResp of %x/%x parses as %+v", payload, token, back)
			}
		}
	})
}

// ntlmClient computes one NTLMv2 logon to devstoreaccount1 as a client
// does, so that the fuzzer's choices reach past the proof check.
type ntlmClient struct {
	negFlags, authFlags uint32
	domain, workstation []byte
	avPairs             []byte // the client blob's AV pairs
	exported            [16]byte
}

// negotiateMessage is the client's NEGOTIATE_MESSAGE.
func (n *ntlmClient) negotiateMessage() []byte {
	m := append([]byte("NTLMSSP\x00"), 1, 0, 0, 0)
	m = le.AppendUint32(m, n.negFlags)
	return append(m, make([]byte, 24)...)
}

// authenticateMessage answers challenge (after negotiate) with the
// right key; the session key it exports is n.exported with key exchange,
// the base key otherwise.
func (n *ntlmClient) authenticateMessage(negotiate, challenge []byte) (auth, sessionKey []byte) {
	const account = azauth.DevAccount
	hash := md4.Sum(utf16le(azauth.DevKey))
	respKey := hmacMD5(hash[:], utf16le(strings.ToUpper(account)), n.domain)
	blob := []byte{1, 1, 0, 0, 0, 0, 0, 0}
	blob = le.AppendUint64(blob, 133_000_000_000_000_000)
	blob = append(blob, "client-n"...)
	blob = append(blob, 0, 0, 0, 0)
	blob = append(blob, n.avPairs...)
	blob = append(blob, 0, 0, 0, 0)
	proof := hmacMD5(respKey, challenge[24:32], blob)
	baseKey := hmacMD5(respKey, proof)
	sessionKey, enc := baseKey, []byte(nil)
	if n.authFlags&ntlmFlagKeyExch != 0 {
		sessionKey = n.exported[:]
		enc = make([]byte, 16)
		r, _ := rc4.NewCipher(baseKey)
		r.XORKeyStream(enc, sessionKey)
	}
	payload := [][]byte{make([]byte, 24), append(proof, blob...), n.domain, utf16le(account), n.workstation, enc}
	auth = append([]byte("NTLMSSP\x00"), 3, 0, 0, 0)
	off := 88
	for _, p := range payload {
		auth = le.AppendUint16(auth, uint16(len(p)))
		auth = le.AppendUint16(auth, uint16(len(p)))
		auth = le.AppendUint32(auth, uint32(off))
		off += len(p)
	}
	auth = le.AppendUint32(auth, n.authFlags)
	auth = append(auth, make([]byte, 8+16)...)
	for _, p := range payload {
		auth = append(auth, p...)
	}
	if micPresent(blob) {
		copy(auth[72:88], hmacMD5(sessionKey, negotiate, challenge, auth))
	}
	return auth, sessionKey
}

// setupRequest is a SESSION_SETUP request carrying token.
func setupRequest(session uint64, token []byte) []byte {
	b := make([]byte, 24, 24+len(token))
	le.PutUint16(b, 25)
	le.PutUint16(b[12:], headerSize+24)
	le.PutUint16(b[14:], uint16(len(token)))
	m := testRequest(cmdSessionSetup, 0, append(b, token...))
	le.PutUint64(m[40:], session)
	return m
}

// FuzzSessionSetup runs both SESSION_SETUP legs, bare NTLMSSP or in
// SPNEGO, with the client's flags, names and AV pairs from the fuzzer
// and a correctly computed NTLMv2 answer (and MIC, mechListMIC and
// encrypted session key), on every dialect. An untouched exchange logs
// on, with signing keys and for 3.1.1 with GCM encryption keys; one the
// fuzzer changed a byte of after computing it is answered, never a
// panic.
func FuzzSessionSetup(f *testing.F) {
	const flags = 0x00000001 | 0x00000004 | 0x00000200 | 0x00008000 | 0x00080000 | 0x00800000 | 0x02000000 | 0x20000000 | 0x40000000 | 0x80000000
	micFlag := []byte{byte(ntlmAvFlags), 0, 4, 0, 2, 0, 0, 0}
	f.Add(uint32(flags), uint32(flags), []byte{}, utf16le("WS"), micFlag, false, uint8(4), true, uint16(0))
	f.Add(uint32(flags), uint32(flags&^ntlmFlagKeyExch), utf16le("DOMAIN"), []byte{}, []byte{}, true, uint8(3), false, uint16(0))
	f.Add(uint32(0), uint32(0), []byte{}, []byte{}, append(micFlag, 9, 0, 2, 0, 'h', 0), false, uint8(0), false, uint16(0))
	f.Add(uint32(flags), uint32(flags), []byte{}, []byte{}, micFlag, false, uint8(4), true, uint16(100))
	f.Add(uint32(flags), uint32(flags), []byte{}, []byte{}, []byte{}, true, uint8(2), true, uint16(30))
	f.Fuzz(func(t *testing.T, negFlags, authFlags uint32, domain, workstation, avPairs []byte, raw bool, dialect uint8, gcm bool, flip uint16) {
		if len(domain)+len(workstation)+len(avPairs) > 16<<10 {
			return // the message's 16-bit lengths hold no more
		}
		c := newTestConn(t)
		c.negotiated, c.dialect = true, served[int(dialect)%len(served)]
		if gcm && c.dialect == dialect311 {
			c.cipher = cipherAES128GCM
		}
		client := &ntlmClient{negFlags: negFlags, authFlags: authFlags, domain: domain, workstation: workstation, avPairs: avPairs}
		copy(client.exported[:], "exported-key-16b")
		negotiate := client.negotiateMessage()
		mechTypes := tlv(0x30, tlv(0x06, oidNTLMSSP))
		first := negotiate
		if !raw {
			first = tlv(0x60, tlv(0x06, oidSPNEGO), tlv(0xa0, tlv(0x30, tlv(0xa0, mechTypes), tlv(0xa2, tlv(0x04, negotiate)))))
		}
		out, err := c.handleFrame(setupRequest(0, first))
		if err != nil || le.Uint32(out[8:]) != statusMoreProcessingRequired {
			t.Fatalf("first leg: %v, %x", err, out[:min(len(out), 16)])
		}
		session := le.Uint64(out[40:])
		tok, err := parseSPNEGO(out[headerSize+8:])
		if err != nil {
			t.Fatalf("challenge token: %v", err)
		}
		auth, sessionKey := client.authenticateMessage(negotiate, tok.mechToken)
		second := auth
		if !raw {
			// The server's flags after the logon decide the MIC's keys.
			serverFlags := (ntlmServerFlags | negFlags&ntlmMirroredFlags) &^ (ntlmFlagKeyExch &^ authFlags)
			seal, err := newNTLMSeal(sessionKey, serverFlags, false)
			if err != nil {
				t.Fatal(err)
			}
			second = negTokenResp(negAcceptIncomplete, false, auth, seal.sign(mechTypes))
		}
		req := setupRequest(session, second)
		if flip > 0 {
			i := headerSize + 24 + int(flip-1)%len(second)
			req[i] ^= 0x5a
		}
		out, err = c.handleFrame(req)
		if err != nil {
			t.Fatalf("second leg closed the connection: %v", err)
		}
		c.mu.Lock()
		s := c.sessions[session]
		c.mu.Unlock()
		st := le.Uint32(out[8:])
		if st == statusSuccess != (s != nil && s.valid) {
			t.Fatalf("status %#x, session %+v", st, s)
		}
		if flip > 0 {
			return
		}
		if st != statusSuccess {
			t.Fatalf("an untouched logon answered %#x", st)
		}
		if s.account != azauth.DevAccount || s.signKey == nil || s.cmac == nil && c.dialect >= dialect300 {
			t.Fatalf("logged on as %q with signing key %x", s.account, s.signKey)
		}
		if (s.seal != nil) != (c.cipher != 0) || (s.unseal != nil) != (c.cipher != 0) {
			t.Fatalf("encryption keys %v/%v with cipher %v", s.seal != nil, s.unseal != nil, c.cipher)
		}
	})
}

// loggedOn is a connection with session 1 logged on to share "s" as
// tree 1 (and IPC$ as tree 2), on SMB 3.1.1 with signing and
// encryption keys.
func loggedOn(t testing.TB) (*conn, *session) {
	t.Helper()
	c := newTestConn(t)
	c.negotiated, c.dialect, c.cipher = true, dialect311, cipherAES128GCM
	s := &session{id: 1, valid: true, account: azauth.DevAccount, trees: map[uint32]*tree{1: {id: 1, share: "s"}, 2: {id: 2, ipc: true}},
		opens: map[uint64]*open{}, ntlm: &ntlmServer{accounts: c.srv.accounts, now: c.srv.now}}
	s.ntlm.sessionKey = []byte("session-key-16-b")
	if err := s.deriveKeys(dialect311, cipherAES128GCM, signAESCMAC); err != nil {
		t.Fatal(err)
	}
	c.sessions[1] = s
	return c, s
}

// FuzzSealed: any messages encrypted with the session's key are
// decrypted and answered, and the answer decrypts with the client's key;
// a frame changed after encryption is refused, closing the connection.
// The seeds include TREE_CONNECT, which the other targets reach only
// by chance.
func FuzzSealed(f *testing.F) {
	f.Add(testRequest(cmdCreate, 1, createBody("d\\f.txt", 0x12019f, 1, 0)), uint16(0))
	f.Add(testRequest(cmdEcho, 0, []byte{4, 0, 0, 0}), uint16(0))
	f.Add(testRequest(cmdQueryDirectory, 1, make([]byte, 33)), uint16(7))
	f.Add(testRequest(cmdCreate, 2, createBody("srvsvc", 0x12019f, 1, 0)), uint16(40))
	f.Add([]byte{0xFD, 'S', 'M', 'B'}, uint16(0))
	for _, share := range []string{`\\127.0.0.1\s`, `\\h\IPC$`, `\\h\missing`, `s`} {
		path := utf16le(share)
		tc := make([]byte, 8, 8+len(path))
		le.PutUint16(tc, 9)
		le.PutUint16(tc[4:], headerSize+8)
		le.PutUint16(tc[6:], uint16(len(path)))
		f.Add(testRequest(cmdTreeConnect, 0, append(tc, path...)), uint16(0))
	}
	f.Fuzz(func(t *testing.T, plain []byte, flip uint16) {
		c, s := loggedOn(t)
		client := &session{id: s.id, seal: s.unseal}
		frame, err := sealFor(client, plain)
		if err != nil {
			t.Fatal(err)
		}
		if flip > 0 {
			frame[4+int(flip-1)%(len(frame)-4)] ^= 0x01
		}
		out, err := c.handleFrame(frame)
		if flip > 0 {
			if err == nil {
				t.Fatalf("a frame changed at %d after encryption was answered", 4+int(flip-1)%(len(frame)-4))
			}
			return
		}
		if err != nil || out == nil {
			if errors.Is(err, errUnsealed) {
				t.Fatalf("a frame sealed with the session's key did not decrypt")
			}
			return
		}
		if len(out) < transformSize || out[0] != 0xFD || le.Uint64(out[44:]) != s.id {
			t.Fatalf("answer is not sealed for the session: %x", out[:min(len(out), transformSize)])
		}
		var tagged []byte
		tagged = append(append(tagged, out[transformSize:]...), out[4:20]...)
		if _, err := s.seal.Open(nil, out[20:32], tagged, out[20:transformSize]); err != nil {
			t.Fatalf("answer does not decrypt: %v", err)
		}
		if c.sealing != nil {
			t.Fatal("the connection stays in sealing mode after the frame")
		}
	})
}

// fileCommands are the commands that address an open file, with the
// offset of the FileId in their body.
var fileCommands = []struct {
	cmd    uint16
	idAt   int
	length int // the fixed body size
}{
	{cmdRead, 16, 49}, {cmdWrite, 16, 49}, {cmdLock, 8, 48}, {cmdIoctl, 8, 57}, {cmdQueryInfo, 24, 41},
	{cmdSetInfo, 16, 33}, {cmdQueryDirectory, 8, 33}, {cmdFlush, 8, 24}, {cmdClose, 8, 24}, {cmdChangeNotify, 8, 32},
}

// FuzzOpenFile opens d/f.txt (or d/) with CREATE, then sends one
// command with a body from the fuzzer and the FileId CREATE answered, so
// READ, WRITE, LOCK, IOCTL, QUERY_INFO, SET_INFO, QUERY_DIRECTORY, FLUSH
// and CLOSE decode their fields against a real open; optionally signed
// with the session's key. Whatever the body, the command is answered (a
// malformed one may close the connection) and the store stays sound.
func FuzzOpenFile(f *testing.F) {
	readBody := make([]byte, 49)
	le.PutUint16(readBody, 49)
	le.PutUint32(readBody[4:], 50)
	writeBody := make([]byte, 48, 53)
	le.PutUint16(writeBody, 49)
	le.PutUint16(writeBody[2:], headerSize+48)
	le.PutUint32(writeBody[4:], 5)
	le.PutUint64(writeBody[8:], 10)
	writeBody = append(writeBody, "hello"...)
	lockBody := make([]byte, 48)
	le.PutUint16(lockBody, 48)
	le.PutUint16(lockBody[2:], 1)
	le.PutUint64(lockBody[24:], 0)
	le.PutUint64(lockBody[32:], 10)
	le.PutUint32(lockBody[40:], 2)
	queryBody := make([]byte, 41)
	le.PutUint16(queryBody, 41)
	queryBody[2], queryBody[3] = 1, 0x22 // FileNetworkOpenInformation
	le.PutUint32(queryBody[4:], 4096)
	setBody := make([]byte, 32, 40)
	le.PutUint16(setBody, 33)
	setBody[2], setBody[3] = 1, 0x14 // FileEndOfFileInformation
	le.PutUint32(setBody[4:], 8)
	le.PutUint16(setBody[8:], headerSize+32)
	setBody = le.AppendUint64(setBody, 4096)
	rename := utf16le("d\\g.txt")
	renameBody := make([]byte, 32, 32+20+len(rename))
	le.PutUint16(renameBody, 33)
	renameBody[2], renameBody[3] = 1, 0x0a // FileRenameInformation
	le.PutUint32(renameBody[4:], uint32(20+len(rename)))
	le.PutUint16(renameBody[8:], headerSize+32)
	renameBody = append(renameBody, make([]byte, 20)...)
	le.PutUint32(renameBody[32+16:], uint32(len(rename)))
	renameBody = append(renameBody, rename...)
	dirBody := make([]byte, 32, 34)
	le.PutUint16(dirBody, 33)
	dirBody[2] = 0x25 // FileIdBothDirectoryInformation
	le.PutUint16(dirBody[24:], headerSize+32)
	le.PutUint16(dirBody[26:], 2)
	le.PutUint32(dirBody[28:], 65536)
	dirBody = append(dirBody, '*', 0)
	ioctlBody := make([]byte, 56)
	le.PutUint16(ioctlBody, 57)
	le.PutUint32(ioctlBody[4:], fsctlValidateNegotiateInfo)
	le.PutUint32(ioctlBody[44:], 24)
	le.PutUint32(ioctlBody[48:], ioctlIsFSCTL)
	for _, seed := range []struct {
		which uint8 // index in fileCommands
		dir   bool
		body  []byte
	}{
		{0, false, readBody}, {1, false, writeBody}, {2, false, lockBody}, {3, false, ioctlBody}, {4, false, queryBody},
		{4, true, queryBody}, {5, false, setBody}, {5, false, renameBody}, {6, true, dirBody}, {7, false, make([]byte, 24)},
		{8, false, make([]byte, 24)}, {9, true, make([]byte, 32)},
	} {
		f.Add(seed.which, seed.dir, false, seed.body)
		f.Add(seed.which, seed.dir, true, seed.body)
	}
	f.Fuzz(func(t *testing.T, which uint8, dir, signed bool, body []byte) {
		c, s := loggedOn(t)
		name, opts, access := "d\\f.txt", uint32(optNonDirectory), uint32(0x12019f|accDelete)
		if dir {
			name, opts, access = "d", optDirectory, 0x1200a9
		}
		out, err := c.handleFrame(testRequest(cmdCreate, 1, createBody(name, access, 1, opts)))
		if err != nil || le.Uint32(out[8:]) != statusSuccess {
			t.Fatalf("create: %v, %x", err, out[:min(len(out), 16)])
		}
		id := out[headerSize+64 : headerSize+80]
		fc := fileCommands[int(which)%len(fileCommands)]
		b := append([]byte(nil), body...)
		if len(b) < fc.idAt+16 {
			b = append(b, make([]byte, fc.idAt+16-len(b))...)
		}
		copy(b[fc.idAt:], id)
		m := testRequest(fc.cmd, 1, b)
		if signed {
			le.PutUint32(m[16:], flagSigned)
			sig := s.signature(m)
			copy(m[48:64], sig[:])
		}
		out, err = c.handleFrame(m)
		for _, fn := range c.afterWrite {
			fn()
		}
		c.afterWrite = nil
		if err == nil && len(out) < headerSize {
			t.Fatalf("%#x: answer of %d bytes", fc.cmd, len(out))
		}
		if err == nil && signed && !c.verify(s, out) {
			t.Fatalf("%#x: the answer to a signed request is not signed with the session's key", fc.cmd)
		}
		// Closing every open through the domain leaves no handle behind.
		c.mu.Lock()
		sessions := c.sessions
		c.mu.Unlock()
		for _, s := range sessions {
			c.closeSession(s)
		}
		if n := c.srv.handles.Load(); n != 0 {
			t.Fatalf("%d handles counted after every session closed", n)
		}
	})
}

// FuzzSecurityDescriptor feeds arbitrary bytes to the security
// descriptor decoder (SET_INFO security) and to the create-context
// reader (the SecD context of CREATE): neither panics, a descriptor that
// parses encodes to one that parses to the same parts, and a permission
// a SecD context yields is an SDDL the file model takes.
func FuzzSecurityDescriptor(f *testing.F) {
	sd, err := file.Descriptor("O:BAG:SYD:(A;OICI;FA;;;BA)(A;;0x1301bf;;;AU)")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sd)
	ctx := make([]byte, 24, 24+len(sd))
	le.PutUint16(ctx[4:], 16)
	le.PutUint16(ctx[6:], 4)
	copy(ctx[16:], "SecD")
	le.PutUint16(ctx[10:], 24)
	le.PutUint32(ctx[12:], uint32(len(sd)))
	f.Add(append(ctx, sd...))
	f.Add([]byte{1, 0, 4, 0x80, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 5})
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, ok := parseDescriptor(b); ok {
			all := uint32(ownerSecurityInformation | groupSecurityInformation | daclSecurityInformation)
			back, ok := parseDescriptor(d.encode(all))
			if !ok || !bytes.Equal(back.owner, d.owner) || !bytes.Equal(back.group, d.group) || !bytes.Equal(back.dacl, d.dacl) || back.daclControl != d.daclControl {
				t.Fatalf("%x re-encodes to %+v, not %+v", b, back, d)
			}
		}
		ctxs, st := parseContexts(b)
		if st != statusSuccess {
			return
		}
		if sddl, st := createPermission(ctxs["SecD"]); st == statusSuccess && sddl != "" {
			if _, err := file.Descriptor(sddl); err != nil {
				t.Fatalf("SecD of %x gives %q, which the file model refuses: %v", b, sddl, err)
			}
		}
	})
}
