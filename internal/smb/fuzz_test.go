package smb

import (
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

// fuzzConn is a connection of a server over an in-memory store whose
// session is already authenticated and connected to share "s", so that
// fuzzed frames reach every command handler, not only NEGOTIATE.
func fuzzConn(t testing.TB) *conn {
	store := memory.Open()
	files := file.New(file.Config{Store: store})
	if _, err := files.CreateShare(context.Background(), file.ShareRef{Account: "acct", Share: "s"}, file.ShareSpec{}); err != nil {
		t.Fatal(err)
	}
	srv := New(Config{Files: files, Accounts: azauth.NewAccounts(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	a, b := net.Pipe()
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	go func() { _, _ = io.Copy(io.Discard, b) }()
	c := newConn(srv, a)
	c.negotiated, c.dialect = true, dialect302
	s := &session{id: 1, valid: true, account: "acct", trees: map[uint32]*tree{1: {id: 1, share: "s"}, 2: {id: 2, ipc: true}},
		opens: map[uint64]*open{}, ntlm: &ntlmServer{accounts: srv.accounts, now: srv.now}}
	s.signKey = make([]byte, 16)
	s.cmac, _ = newCMAC(s.signKey)
	c.sessions[1] = s
	return c
}

// testRequest builds one request message.
func testRequest(cmd uint16, tree uint32, body []byte) []byte {
	m := make([]byte, headerSize, headerSize+len(body))
	h := header{Command: cmd, Credits: 1, SessionID: 1, TreeID: tree}
	h.encode(m)
	return append(m, body...)
}

func createBody(name string, access, disp, opts uint32) []byte {
	n := utf16le(name)
	b := make([]byte, 56, 56+len(n)+1)
	binary.LittleEndian.PutUint16(b, 57)
	binary.LittleEndian.PutUint32(b[4:], 2)
	binary.LittleEndian.PutUint32(b[24:], access)
	binary.LittleEndian.PutUint32(b[32:], 7)
	binary.LittleEndian.PutUint32(b[36:], disp)
	binary.LittleEndian.PutUint32(b[40:], opts)
	binary.LittleEndian.PutUint16(b[44:], headerSize+56)
	binary.LittleEndian.PutUint16(b[46:], uint16(len(n)))
	return append(append(b, n...), 0)
}

// FuzzPacket feeds arbitrary frames to the request parser and every
// handler behind it: whatever arrives, the server answers or closes the
// connection, and never panics.
func FuzzPacket(f *testing.F) {
	neg := make([]byte, 36+4)
	binary.LittleEndian.PutUint16(neg, 36)
	binary.LittleEndian.PutUint16(neg[2:], 2)
	binary.LittleEndian.PutUint16(neg[36:], 0x0210)
	binary.LittleEndian.PutUint16(neg[38:], 0x0311)
	f.Add(testRequest(cmdNegotiate, 0, neg))
	f.Add(testRequest(cmdCreate, 1, createBody("dir\\file.txt", 0x12019f, 3, 0)))
	f.Add(testRequest(cmdCreate, 1, createBody("d", 0x1f01ff, 2, 1)))
	compound := testRequest(cmdCreate, 1, createBody("a.txt", 0x12019f, 3, 0x1000))
	for len(compound)%8 != 0 {
		compound = append(compound, 0)
	}
	binary.LittleEndian.PutUint32(compound[20:], uint32(len(compound)))
	read := make([]byte, 49)
	binary.LittleEndian.PutUint16(read, 49)
	binary.LittleEndian.PutUint32(read[4:], 100)
	for i := 16; i < 32; i++ {
		read[i] = 0xff
	}
	r := testRequest(cmdRead, 1, read)
	binary.LittleEndian.PutUint32(r[16:], flagRelated)
	f.Add(append(compound, r...))
	f.Add(testRequest(cmdQueryDirectory, 1, make([]byte, 33)))
	f.Add(testRequest(cmdLock, 1, make([]byte, 48)))
	f.Add(testRequest(cmdIoctl, 1, make([]byte, 57)))
	f.Add(testRequest(cmdSessionSetup, 0, append(make([]byte, 24), negTokenInitHint()...)))
	f.Add([]byte{0xFF, 'S', 'M', 'B', 0x72})
	f.Fuzz(func(t *testing.T, frame []byte) {
		c := fuzzConn(t)
		_, _ = c.handleFrame(frame)
		for _, fn := range c.afterWrite {
			fn()
		}
		c.cancel()
	})
}

// TestFuzzSeedsAnswer: the fuzz seeds are valid requests the server
// answers (so the fuzzer starts from inside the handlers).
func TestFuzzSeedsAnswer(t *testing.T) {
	c := fuzzConn(t)
	out, err := c.handleFrame(testRequest(cmdCreate, 1, createBody("f.txt", 0x12019f, 3, 0)))
	if err != nil || len(out) < headerSize || binary.LittleEndian.Uint32(out[8:]) != statusSuccess {
		t.Fatalf("create: %v, %x", err, out[:min(len(out), 16)])
	}
	if _, err := c.handleFrame([]byte{1, 2, 3}); err == nil {
		t.Error("a three-byte frame was not refused")
	}
}
