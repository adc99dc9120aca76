// Package smbtest is a minimal SMB 2.1 (or 3.0) client for tests: it
// holds opens with chosen access and share modes, oplocks, leases and
// durable handles, reads, writes, locks (waiting and cancelling),
// acknowledges breaks, reclaims durable handles after a dropped
// connection and closes, which smbclient cannot do from a script. It
// speaks just enough of the protocol for that, unsigned, and is no
// general-purpose client.
package smbtest

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/rc4"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/cerulean-db/cerulean/internal/md4"
)

var le = binary.LittleEndian

// Statuses the tests look for.
const (
	StatusSuccess               uint32 = 0
	StatusPending               uint32 = 0x00000103
	StatusEndOfFile             uint32 = 0xC0000011
	StatusMoreProcessing        uint32 = 0xC0000016
	StatusAccessDenied          uint32 = 0xC0000022
	StatusObjectNameNotFound    uint32 = 0xC0000034
	StatusSharingViolation      uint32 = 0xC0000043
	StatusFileLockConflict      uint32 = 0xC0000054
	StatusLockNotGranted        uint32 = 0xC0000055
	StatusDeletePending         uint32 = 0xC0000056
	StatusLogonFailure          uint32 = 0xC000006D
	StatusRangeNotLocked        uint32 = 0xC000007E
	StatusBadNetworkName        uint32 = 0xC00000CC
	StatusCancelled             uint32 = 0xC0000120
	StatusFileClosed            uint32 = 0xC0000128
	StatusInsufficientResources uint32 = 0xC000009A
	StatusNotifyCleanup         uint32 = 0x0000010B
	StatusNotifyEnumDir         uint32 = 0x0000010C
	StatusInvalidParameter      uint32 = 0xC000000D
)

// Oplock levels and lease states.
const (
	OplockNone      uint8 = 0
	OplockLevelII   uint8 = 1
	OplockExclusive uint8 = 8
	OplockBatch     uint8 = 9
	OplockLease     uint8 = 0xFF

	LeaseRead   uint32 = 1
	LeaseHandle uint32 = 2
	LeaseWrite  uint32 = 4
)

// Access masks, share modes, dispositions and options for Create.
const (
	ReadData   uint32 = 0x1
	WriteData  uint32 = 0x2
	Delete     uint32 = 0x10000
	ReadAttrs  uint32 = 0x80
	ShareRead  uint32 = 1
	ShareWrite uint32 = 2
	ShareDel   uint32 = 4
	ShareAll          = ShareRead | ShareWrite | ShareDel

	Open        uint32 = 1
	CreateNew   uint32 = 2
	OpenIf      uint32 = 3
	OverwriteIf uint32 = 5

	OptDirectory     uint32 = 0x1
	OptNonDirectory  uint32 = 0x40
	OptDeleteOnClose uint32 = 0x1000

	LockShared    uint32 = 1
	LockExclusive uint32 = 2
	Unlock        uint32 = 4
	FailNow       uint32 = 0x10
)

// FileID is an SMB2 FileId.
type FileID [16]byte

// Client is one connection with one session and one tree.
type Client struct {
	nc        net.Conn
	mu        sync.Mutex
	nextID    uint64
	sessionID uint64
	treeID    uint32
	waiting   map[uint64]chan reply
	asyncIDs  map[uint64]uint64
	readErr   error
	done      chan struct{}
	breaks    chan Break
}

// Break is an oplock or lease break notification the server sent.
type Break struct {
	Lease bool
	// Level and FileID: an oplock break.
	Level  uint8
	FileID FileID
	// Key, Current, New, Flags (1: acknowledgement required) and Epoch:
	// a lease break.
	Key          [16]byte
	Current, New uint32
	Flags        uint32
	Epoch        uint16
}

// Options choose the dialect and client GUID of Dial: a client that
// reclaims durable handles keeps its GUID across connections.
type Options struct {
	Dialect    uint16 // 0x0210 when zero
	ClientGUID [16]byte
	// PreviousSession names the session this logon replaces (a client
	// reconnecting): the server ends it.
	PreviousSession uint64
}

type reply struct {
	status uint32
	body   []byte
}

// Dial connects, negotiates SMB 2.1 and logs on as account with key.
func Dial(addr, account, key string) (*Client, error) {
	return DialWith(addr, account, key, Options{})
}

// DialWith is Dial with a chosen dialect and client GUID.
func DialWith(addr, account, key string, o Options) (*Client, error) {
	if o.Dialect == 0 {
		o.Dialect = 0x0210
	}
	nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	c := &Client{nc: nc, waiting: map[uint64]chan reply{}, asyncIDs: map[uint64]uint64{}, done: make(chan struct{}), breaks: make(chan Break, 64)}
	go c.readLoop()
	var neg []byte
	neg = le.AppendUint16(neg, 36)
	neg = le.AppendUint16(neg, 1)
	neg = le.AppendUint16(neg, 1) // signing enabled
	neg = le.AppendUint16(neg, 0)
	neg = le.AppendUint32(neg, 0x2) // leasing
	neg = append(neg, o.ClientGUID[:]...)
	neg = append(neg, make([]byte, 8)...)
	neg = le.AppendUint16(neg, o.Dialect)
	if st, _, err := c.call(0, neg); err != nil || st != StatusSuccess {
		return nil, errors.Join(fmt.Errorf("negotiate: status %#x", st), err, c.Close())
	}
	if err := c.logon(account, key, o.PreviousSession); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return c, nil
}

// Close drops the connection.
func (c *Client) Close() error { return c.nc.Close() }

// Hangup closes the client's sending side only: the server reads what
// was sent, then the end, while the answers can still be read.
func (c *Client) Hangup() error {
	if tc, ok := c.nc.(*net.TCPConn); ok {
		return tc.CloseWrite()
	}
	return c.nc.Close()
}

func (c *Client) readLoop() {
	defer close(c.done)
	for {
		var hdr [4]byte
		if _, err := io.ReadFull(c.nc, hdr[:]); err != nil {
			c.fail(err)
			return
		}
		n := int(hdr[1])<<16 | int(hdr[2])<<8 | int(hdr[3])
		msg := make([]byte, n)
		if _, err := io.ReadFull(c.nc, msg); err != nil {
			c.fail(err)
			return
		}
		for len(msg) >= 64 {
			next := int(le.Uint32(msg[20:]))
			m := msg
			if next > 0 && next <= len(msg) {
				m = msg[:next]
			}
			status, flags, id := le.Uint32(m[8:]), le.Uint32(m[16:]), le.Uint64(m[24:])
			if id == ^uint64(0) && le.Uint16(m[12:]) == 0x12 {
				c.noteBreak(m[64:])
				if next == 0 || next > len(msg) {
					break
				}
				msg = msg[next:]
				continue
			}
			c.mu.Lock()
			if status == StatusPending && flags&2 != 0 {
				c.asyncIDs[id] = le.Uint64(m[32:])
			} else if ch, ok := c.waiting[id]; ok {
				delete(c.waiting, id)
				ch <- reply{status, append([]byte(nil), m[64:]...)}
			}
			if le.Uint64(m[40:]) != 0 && c.sessionID == 0 {
				c.sessionID = le.Uint64(m[40:])
			}
			if le.Uint16(m[12:]) == 3 && status == StatusSuccess {
				c.treeID = le.Uint32(m[36:])
			}
			c.mu.Unlock()
			if next == 0 || next > len(msg) {
				break
			}
			msg = msg[next:]
		}
	}
}

func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readErr = err
	for id, ch := range c.waiting {
		close(ch)
		delete(c.waiting, id)
	}
}

// send sends one request and returns its message ID and reply channel.
func (c *Client) send(cmd uint16, body []byte) (uint64, chan reply, error) {
	c.mu.Lock()
	if c.readErr != nil {
		c.mu.Unlock()
		return 0, nil, c.readErr
	}
	id := c.nextID
	c.nextID++
	ch := make(chan reply, 1)
	c.waiting[id] = ch
	h := make([]byte, 64)
	copy(h, []byte{0xFE, 'S', 'M', 'B'})
	le.PutUint16(h[4:], 64)
	le.PutUint16(h[6:], 1)
	le.PutUint16(h[12:], cmd)
	le.PutUint16(h[14:], 64)
	le.PutUint64(h[24:], id)
	le.PutUint32(h[36:], c.treeID)
	le.PutUint64(h[40:], c.sessionID)
	c.mu.Unlock()
	msg := append(h, body...)
	frame := []byte{0, byte(len(msg) >> 16), byte(len(msg) >> 8), byte(len(msg))}
	if _, err := c.nc.Write(append(frame, msg...)); err != nil {
		return 0, nil, err
	}
	return id, ch, nil
}

func (c *Client) call(cmd uint16, body []byte) (uint32, []byte, error) {
	_, ch, err := c.send(cmd, body)
	if err != nil {
		return 0, nil, err
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return 0, nil, errors.New("smbtest: connection closed")
		}
		return r.status, r.body, nil
	case <-time.After(30 * time.Second):
		return 0, nil, errors.New("smbtest: no reply")
	}
}

func utf16le(s string) []byte {
	var out []byte
	for _, u := range utf16.Encode([]rune(s)) {
		out = le.AppendUint16(out, u)
	}
	return out
}

func hmacMD5(key []byte, parts ...[]byte) []byte {
	h := hmac.New(md5.New, key)
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

func setupBody(token []byte, previous uint64) []byte {
	var b []byte
	b = le.AppendUint16(b, 25)
	b = append(b, 0, 1)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint16(b, 64+24)
	b = le.AppendUint16(b, uint16(len(token)))
	b = le.AppendUint64(b, previous)
	return append(b, token...)
}

// logon runs NTLMv2 over bare NTLMSSP tokens.
func (c *Client) logon(account, key string, previous uint64) error {
	const flags = 0x00000001 | 0x00000004 | 0x00000200 | 0x00008000 | 0x00080000 | 0x00800000 | 0x02000000 | 0x20000000 | 0x40000000 | 0x80000000
	neg := append([]byte("NTLMSSP\x00"), 1, 0, 0, 0)
	neg = le.AppendUint32(neg, flags)
	neg = append(neg, make([]byte, 24)...)
	st, body, err := c.call(1, setupBody(neg, previous))
	if err != nil {
		return err
	}
	if st != StatusMoreProcessing || len(body) < 8 {
		return fmt.Errorf("session setup: %#x", st)
	}
	off, n := int(le.Uint16(body[4:]))-64, int(le.Uint16(body[6:]))
	if off < 0 || off+n > len(body) {
		return errors.New("bad security buffer")
	}
	ch := body[off : off+n]
	if len(ch) < 48 {
		return errors.New("short challenge")
	}
	nonce := ch[24:32]
	tiLen, tiOff := int(le.Uint16(ch[40:])), int(le.Uint32(ch[44:]))
	if tiOff+tiLen > len(ch) {
		return errors.New("bad target info")
	}
	info := ch[tiOff : tiOff+tiLen]
	hash := md4.Sum(utf16le(key))
	respKey := hmacMD5(hash[:], utf16le(strings.ToUpper(account)))
	var cc [8]byte
	_, _ = rand.Read(cc[:])
	blob := []byte{1, 1, 0, 0, 0, 0, 0, 0}
	blob = le.AppendUint64(blob, uint64(time.Now().UnixNano()/100+116444736000000000))
	blob = append(blob, cc[:]...)
	blob = append(blob, 0, 0, 0, 0)
	blob = append(blob, info...)
	blob = append(blob, 0, 0, 0, 0)
	proof := hmacMD5(respKey, nonce, blob)
	baseKey := hmacMD5(respKey, proof)
	var exported [16]byte
	_, _ = rand.Read(exported[:])
	enc := make([]byte, 16)
	r, _ := rc4.NewCipher(baseKey)
	r.XORKeyStream(enc, exported[:])
	nt := append(proof, blob...)
	user := utf16le(account)
	payload := [][]byte{make([]byte, 24), nt, nil, user, nil, enc}
	auth := append([]byte("NTLMSSP\x00"), 3, 0, 0, 0)
	off = 88
	fields := make([]byte, 0, 48)
	for _, p := range payload {
		fields = le.AppendUint16(fields, uint16(len(p)))
		fields = le.AppendUint16(fields, uint16(len(p)))
		fields = le.AppendUint32(fields, uint32(off))
		off += len(p)
	}
	auth = append(auth, fields...)
	auth = le.AppendUint32(auth, flags)
	auth = append(auth, make([]byte, 8+16)...)
	for _, p := range payload {
		auth = append(auth, p...)
	}
	st, _, err = c.call(1, setupBody(auth, previous))
	if err != nil {
		return err
	}
	if st == StatusLogonFailure {
		return ErrLogon
	}
	if st != StatusSuccess {
		return fmt.Errorf("session setup: %#x", st)
	}
	return nil
}

// ErrLogon is a refused logon.
var ErrLogon = errors.New("smbtest: logon failure")

// TreeConnect connects to \\host\share; it returns the status.
func (c *Client) TreeConnect(share string) (uint32, error) {
	path := utf16le(`\\127.0.0.1\` + share)
	var b []byte
	b = le.AppendUint16(b, 9)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint16(b, 64+8)
	b = le.AppendUint16(b, uint16(len(path)))
	b = append(b, path...)
	_, ch, err := c.send(3, b)
	if err != nil {
		return 0, err
	}
	r, ok := <-ch
	if !ok {
		return 0, errors.New("smbtest: connection closed")
	}
	return r.status, nil
}

// ConnectTree connects to share, failing unless it succeeds.
func (c *Client) ConnectTree(share string) error {
	st, err := c.TreeConnect(share)
	if err != nil {
		return err
	}
	if st != StatusSuccess {
		return fmt.Errorf("tree connect %s: %#x", share, st)
	}
	return nil
}

// Create opens path ("dir\\file") with the given access, share mode,
// disposition and options.
func (c *Client) Create(path string, access, share, disposition, options uint32) (FileID, uint32, error) {
	name := utf16le(path)
	var b []byte
	b = le.AppendUint16(b, 57)
	b = append(b, 0, 0)
	b = le.AppendUint32(b, 2)
	b = append(b, make([]byte, 16)...)
	b = le.AppendUint32(b, access)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, share)
	b = le.AppendUint32(b, disposition)
	b = le.AppendUint32(b, options)
	b = le.AppendUint16(b, 64+56)
	b = le.AppendUint16(b, uint16(len(name)))
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, 0)
	b = append(b, name...)
	if len(name) == 0 {
		b = append(b, 0)
	}
	st, body, err := c.call(5, b)
	var id FileID
	if err == nil && st == StatusSuccess && len(body) >= 80 {
		copy(id[:], body[64:80])
	}
	return id, st, err
}

// WriteFile creates the file at path (overwriting one that exists),
// writes data at its start and closes it: the first step that fails, by
// error or status, is the error.
func (c *Client) WriteFile(path string, data []byte) error {
	failed := func(step string, st uint32, err error) error {
		if err != nil {
			return fmt.Errorf("%s %s: %w", step, path, err)
		}
		if st != 0 {
			return fmt.Errorf("%s %s: status %#x", step, path, st)
		}
		return nil
	}
	id, st, err := c.Create(path, ReadData|WriteData, ShareAll, OverwriteIf, 0)
	if err := failed("create", st, err); err != nil {
		return err
	}
	st, err = c.Write(id, 0, data)
	if err := failed("write", st, err); err != nil {
		return err
	}
	st, err = c.CloseFile(id)
	return failed("close", st, err)
}

// CloseFile closes an open.
func (c *Client) CloseFile(id FileID) (uint32, error) {
	var b []byte
	b = le.AppendUint16(b, 24)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, 0)
	b = append(b, id[:]...)
	st, _, err := c.call(6, b)
	return st, err
}

// QueryInfo queries an info type and class of an open (additional is the
// security information for a security query) with an output buffer of
// outLen bytes, and returns what the server answers.
func (c *Client) QueryInfo(id FileID, typ, class uint8, additional, outLen uint32) ([]byte, uint32, error) {
	var b []byte
	b = le.AppendUint16(b, 41)
	b = append(b, typ, class)
	b = le.AppendUint32(b, outLen)
	b = le.AppendUint16(b, 0) // no input buffer
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, additional)
	b = le.AppendUint32(b, 0)
	b = append(b, id[:]...)
	b = append(b, 0)
	st, body, err := c.call(0x10, b)
	if err != nil || st != StatusSuccess || len(body) < 8 {
		return nil, st, err
	}
	dOff, dLen := int(le.Uint16(body[2:]))-64, int(le.Uint32(body[4:]))
	if dOff < 0 || dOff+dLen > len(body) {
		return nil, st, errors.New("smbtest: bad query info response")
	}
	return body[dOff : dOff+dLen], st, nil
}

// SetInfo sets an info type and class of an open from data (additional
// is the security information for a security descriptor).
func (c *Client) SetInfo(id FileID, typ, class uint8, additional uint32, data []byte) (uint32, error) {
	st, _, err := c.call(0x11, setInfoBody(id, typ, class, additional, data))
	return st, err
}

// setInfoBody is a SET_INFO request's body.
func setInfoBody(id FileID, typ, class uint8, additional uint32, data []byte) []byte {
	var b []byte
	b = le.AppendUint16(b, 33)
	b = append(b, typ, class)
	b = le.AppendUint32(b, uint32(len(data)))
	b = le.AppendUint16(b, 64+32)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, additional)
	b = append(b, id[:]...)
	return append(b, data...)
}

// SetInfoAsync sends SET_INFO for a change that may wait (a rename
// waiting on lease breaks); Wait collects its answer.
func (c *Client) SetInfoAsync(id FileID, typ, class uint8, data []byte) (*Pending, error) {
	mid, ch, err := c.send(0x11, setInfoBody(id, typ, class, 0, data))
	if err != nil {
		return nil, err
	}
	return &Pending{c, mid, ch}, nil
}

// RenameInfo is FILE_RENAME_INFORMATION for SET_INFO naming target from
// the share's root.
func RenameInfo(target string, replace bool) []byte {
	name := utf16le(target)
	b := make([]byte, 20)
	if replace {
		b[0] = 1
	}
	le.PutUint32(b[16:], uint32(len(name)))
	return append(b, name...)
}

// Read reads up to n bytes at off.
func (c *Client) Read(id FileID, off uint64, n uint32) ([]byte, uint32, error) {
	var b []byte
	b = le.AppendUint16(b, 49)
	b = append(b, 0, 0)
	b = le.AppendUint32(b, n)
	b = le.AppendUint64(b, off)
	b = append(b, id[:]...)
	b = append(b, make([]byte, 16)...)
	b = append(b, 0)
	st, body, err := c.call(8, b)
	if err != nil || st != StatusSuccess || len(body) < 16 {
		return nil, st, err
	}
	dOff, dLen := int(body[2])-64, int(le.Uint32(body[4:]))
	if dOff < 0 || dOff+dLen > len(body) {
		return nil, st, errors.New("smbtest: bad read response")
	}
	return body[dOff : dOff+dLen], st, nil
}

// Write writes data at off.
func (c *Client) Write(id FileID, off uint64, data []byte) (uint32, error) {
	st, _, err := c.call(9, writeBody(id, off, data))
	return st, err
}

// WriteAsync sends a write without waiting; Wait collects its answer.
func (c *Client) WriteAsync(id FileID, off uint64, data []byte) (*Pending, error) {
	mid, ch, err := c.send(9, writeBody(id, off, data))
	if err != nil {
		return nil, err
	}
	return &Pending{c, mid, ch}, nil
}

func writeBody(id FileID, off uint64, data []byte) []byte {
	var b []byte
	b = le.AppendUint16(b, 49)
	b = le.AppendUint16(b, 64+48)
	b = le.AppendUint32(b, uint32(len(data)))
	b = le.AppendUint64(b, off)
	b = append(b, id[:]...)
	b = append(b, make([]byte, 16)...)
	return append(b, data...)
}

func lockBody(id FileID, off, n uint64, flags uint32) []byte {
	var b []byte
	b = le.AppendUint16(b, 48)
	b = le.AppendUint16(b, 1)
	b = le.AppendUint32(b, 0)
	b = append(b, id[:]...)
	b = le.AppendUint64(b, off)
	b = le.AppendUint64(b, n)
	b = le.AppendUint32(b, flags)
	return le.AppendUint32(b, 0)
}

// Lock sends one lock element and waits for the final answer.
func (c *Client) Lock(id FileID, off, n uint64, flags uint32) (uint32, error) {
	st, _, err := c.call(0x0A, lockBody(id, off, n, flags))
	return st, err
}

// Pending is a request whose answer comes later.
type Pending struct {
	c  *Client
	id uint64
	ch chan reply
}

// LockAsync sends a lock that may wait; Wait collects its answer.
func (c *Client) LockAsync(id FileID, off, n uint64, flags uint32) (*Pending, error) {
	mid, ch, err := c.send(0x0A, lockBody(id, off, n, flags))
	if err != nil {
		return nil, err
	}
	return &Pending{c, mid, ch}, nil
}

// NotifyAsync sends CHANGE_NOTIFY on an open directory (tree: watch
// the subtree too); WaitBody collects its answer.
func (c *Client) NotifyAsync(id FileID, filter, outLen uint32, tree bool) (*Pending, error) {
	b := make([]byte, 32)
	le.PutUint16(b, 32)
	if tree {
		le.PutUint16(b[2:], 1)
	}
	le.PutUint32(b[4:], outLen)
	copy(b[8:], id[:])
	le.PutUint32(b[24:], filter)
	mid, ch, err := c.send(0x0F, b)
	if err != nil {
		return nil, err
	}
	return &Pending{c, mid, ch}, nil
}

// WaitBody returns the final status and body, or false after d.
func (p *Pending) WaitBody(d time.Duration) (uint32, []byte, bool) {
	select {
	case r, ok := <-p.ch:
		return r.status, r.body, ok
	case <-time.After(d):
		return 0, nil, false
	}
}

// Wait returns the final status, or 0 and false after d.
func (p *Pending) Wait(d time.Duration) (uint32, bool) {
	select {
	case r, ok := <-p.ch:
		return r.status, ok
	case <-time.After(d):
		return 0, false
	}
}

// Cancel sends CANCEL for the pending request (by its async ID once the
// interim answer came, else by message ID).
func (p *Pending) Cancel() error {
	c := p.c
	c.mu.Lock()
	async, ok := c.asyncIDs[p.id]
	c.mu.Unlock()
	h := make([]byte, 64)
	copy(h, []byte{0xFE, 'S', 'M', 'B'})
	le.PutUint16(h[4:], 64)
	le.PutUint16(h[12:], 0x0C)
	le.PutUint64(h[24:], p.id)
	if ok {
		le.PutUint32(h[16:], 2)
		le.PutUint64(h[32:], async)
	}
	le.PutUint64(h[40:], c.sessionID)
	msg := append(h, 4, 0, 0, 0)
	_, err := c.nc.Write(append([]byte{0, 0, 0, byte(len(msg))}, msg...))
	return err
}

// Raw sends a frame as is and returns what comes back first, or an
// error when the server closes the connection.
func (c *Client) Raw(frame []byte) error {
	_, err := c.nc.Write(frame)
	return err
}

// Closed reports whether the server has closed the connection within d.
func (c *Client) Closed(d time.Duration) bool {
	select {
	case <-c.done:
		return true
	case <-time.After(d):
		return false
	}
}

// noteBreak queues a break notification for NextBreak.
func (c *Client) noteBreak(b []byte) {
	var br Break
	switch {
	case len(b) >= 24 && le.Uint16(b) == 24:
		br.Level = b[2]
		copy(br.FileID[:], b[8:24])
	case len(b) >= 44 && le.Uint16(b) == 44:
		br.Lease = true
		br.Epoch = le.Uint16(b[2:])
		br.Flags = le.Uint32(b[4:])
		copy(br.Key[:], b[8:24])
		br.Current, br.New = le.Uint32(b[24:]), le.Uint32(b[28:])
	default:
		return
	}
	select {
	case c.breaks <- br:
	default:
	}
}

// NextBreak returns the next break notification, or false after d.
func (c *Client) NextBreak(d time.Duration) (Break, bool) {
	select {
	case b := <-c.breaks:
		return b, true
	case <-time.After(d):
		return Break{}, false
	}
}

// AckOplock acknowledges an oplock break with the level kept.
func (c *Client) AckOplock(id FileID, level uint8) (uint32, error) {
	var b []byte
	b = le.AppendUint16(b, 24)
	b = append(b, level, 0)
	b = le.AppendUint32(b, 0)
	b = append(b, id[:]...)
	st, _, err := c.call(0x12, b)
	return st, err
}

// AckLease acknowledges a lease break with the state kept.
func (c *Client) AckLease(key [16]byte, state uint32) (uint32, error) {
	var b []byte
	b = le.AppendUint16(b, 36)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, 0)
	b = append(b, key[:]...)
	b = le.AppendUint32(b, state)
	b = le.AppendUint64(b, 0)
	st, _, err := c.call(0x12, b)
	return st, err
}

// Lease is a lease to ask for: v2 (SMB 3.x) when V2 is set.
type Lease struct {
	Key   [16]byte
	State uint32
	V2    bool
	Epoch uint16
}

// OpenSpec describes a CREATE with caching and durability.
type OpenSpec struct {
	Access, Share, Disposition, Options uint32
	// Oplock is the level asked for; with Lease set it is the lease
	// level.
	Oplock uint8
	Lease  *Lease
	// Durable asks for a v1 durable handle; DurableV2 for a v2 one
	// with CreateGUID and Timeout (milliseconds).
	Durable, DurableV2 bool
	CreateGUID         [16]byte
	Timeout            uint32
	// Reconnect reclaims a disconnected durable handle: v1, or v2 with
	// ReconnectV2 and CreateGUID.
	Reconnect   *FileID
	ReconnectV2 bool
	// AppInstance sends SMB2_CREATE_APP_INSTANCE_ID with this ID.
	AppInstance *[16]byte
	// Allocation sends SMB2_CREATE_ALLOCATION_SIZE when not zero.
	Allocation uint64
}

// Opened is what a CREATE answered.
type Opened struct {
	FileID     FileID
	Oplock     uint8
	LeaseState uint32
	LeaseEpoch uint16
	LeaseFlags uint32
	// Durable: a DHnQ or DH2Q context came back; Timeout is DH2Q's.
	Durable bool
	Timeout uint32
}

func createContext(name string, data []byte) []byte {
	var b []byte
	b = le.AppendUint32(b, 0)
	b = le.AppendUint16(b, 16)
	b = le.AppendUint16(b, uint16(len(name)))
	b = le.AppendUint16(b, 0)
	b = le.AppendUint16(b, uint16(16+len(name)+7)&^7) // data after the name, 8-aligned
	b = le.AppendUint32(b, uint32(len(data)))
	b = append(b, name...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return append(b, data...)
}

func (o OpenSpec) contexts() []byte {
	var cs [][]byte
	if o.Lease != nil {
		var d []byte
		d = append(d, o.Lease.Key[:]...)
		d = le.AppendUint32(d, o.Lease.State)
		d = le.AppendUint32(d, 0)
		d = le.AppendUint64(d, 0)
		if o.Lease.V2 {
			d = append(d, make([]byte, 16)...)
			d = le.AppendUint16(d, o.Lease.Epoch)
			d = le.AppendUint16(d, 0)
		}
		cs = append(cs, createContext("RqLs", d))
	}
	if o.Durable {
		cs = append(cs, createContext("DHnQ", make([]byte, 16)))
	}
	if o.DurableV2 {
		var d []byte
		d = le.AppendUint32(d, o.Timeout)
		d = le.AppendUint32(d, 0)
		d = append(d, make([]byte, 8)...)
		d = append(d, o.CreateGUID[:]...)
		cs = append(cs, createContext("DH2Q", d))
	}
	if o.Reconnect != nil && o.ReconnectV2 {
		d := append([]byte(nil), o.Reconnect[:]...)
		d = append(d, o.CreateGUID[:]...)
		d = le.AppendUint32(d, 0)
		cs = append(cs, createContext("DH2C", d))
	} else if o.Reconnect != nil {
		cs = append(cs, createContext("DHnC", o.Reconnect[:]))
	}
	if o.Allocation != 0 {
		cs = append(cs, createContext("AlSi", le.AppendUint64(nil, o.Allocation)))
	}
	if o.AppInstance != nil {
		d := []byte{20, 0, 0, 0}
		cs = append(cs, createContext(appInstanceContext, append(d, o.AppInstance[:]...)))
	}
	var out []byte
	for i, c := range cs {
		if i < len(cs)-1 {
			for len(c)%8 != 0 {
				c = append(c, 0)
			}
			le.PutUint32(c, uint32(len(c)))
		}
		out = append(out, c...)
	}
	return out
}

func (o OpenSpec) body(path string) []byte {
	name := utf16le(path)
	ctx := o.contexts()
	var b []byte
	b = le.AppendUint16(b, 57)
	b = append(b, 0, o.Oplock)
	b = le.AppendUint32(b, 2)
	b = append(b, make([]byte, 16)...)
	b = le.AppendUint32(b, o.Access)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, o.Share)
	b = le.AppendUint32(b, o.Disposition)
	b = le.AppendUint32(b, o.Options)
	b = le.AppendUint16(b, 64+56)
	b = le.AppendUint16(b, uint16(len(name)))
	ctxOff := 0
	if len(ctx) > 0 {
		ctxOff = 64 + 56 + (len(name)+7)&^7
	}
	b = le.AppendUint32(b, uint32(ctxOff))
	b = le.AppendUint32(b, uint32(len(ctx)))
	b = append(b, name...)
	if len(name) == 0 && len(ctx) == 0 {
		b = append(b, 0)
	}
	if len(ctx) > 0 {
		for len(b) < ctxOff-64 {
			b = append(b, 0)
		}
		b = append(b, ctx...)
	}
	return b
}

// parseOpened reads a CREATE response body.
func parseOpened(body []byte) (Opened, error) {
	var r Opened
	if len(body) < 88 {
		return r, errors.New("smbtest: short create response")
	}
	r.Oplock = body[2]
	copy(r.FileID[:], body[64:80])
	off, n := int(le.Uint32(body[80:]))-64, int(le.Uint32(body[84:]))
	if n == 0 {
		return r, nil
	}
	if off < 0 || off+n > len(body) {
		return r, errors.New("smbtest: bad create contexts")
	}
	cs := body[off : off+n]
	for len(cs) >= 16 {
		next := int(le.Uint32(cs))
		nOff, nLen := int(le.Uint16(cs[4:])), int(le.Uint16(cs[6:]))
		dOff, dLen := int(le.Uint16(cs[10:])), int(le.Uint32(cs[12:]))
		if nOff+nLen > len(cs) || dOff+dLen > len(cs) {
			return r, errors.New("smbtest: bad create context")
		}
		data := cs[dOff : dOff+dLen]
		switch string(cs[nOff : nOff+nLen]) {
		case "RqLs":
			if len(data) >= 32 {
				r.LeaseState, r.LeaseFlags = le.Uint32(data[16:]), le.Uint32(data[20:])
			}
			if len(data) >= 52 {
				r.LeaseEpoch = le.Uint16(data[48:])
			}
		case "DHnQ":
			r.Durable = true
		case "DH2Q":
			r.Durable = true
			if len(data) >= 4 {
				r.Timeout = le.Uint32(data)
			}
		}
		if next == 0 || next > len(cs) {
			break
		}
		cs = cs[next:]
	}
	return r, nil
}

// CreateWith opens path as o describes and returns what came back.
func (c *Client) CreateWith(path string, o OpenSpec) (Opened, uint32, error) {
	st, body, err := c.call(5, o.body(path))
	if err != nil || st != StatusSuccess {
		return Opened{}, st, err
	}
	r, err := parseOpened(body)
	return r, st, err
}

// CreateAsync sends a CREATE that may wait (on a break); Opened
// collects its answer.
func (c *Client) CreateAsync(path string, o OpenSpec) (*Pending, error) {
	mid, ch, err := c.send(5, o.body(path))
	if err != nil {
		return nil, err
	}
	return &Pending{c, mid, ch}, nil
}

// Opened returns the final answer of a CREATE sent with CreateAsync, or
// false after d.
func (p *Pending) Opened(d time.Duration) (Opened, uint32, bool) {
	select {
	case r, ok := <-p.ch:
		if !ok {
			return Opened{}, 0, false
		}
		if r.status != StatusSuccess {
			return Opened{}, r.status, true
		}
		o, err := parseOpened(r.body)
		return o, r.status, err == nil
	case <-time.After(d):
		return Opened{}, 0, false
	}
}
