package smb

import (
	"encoding/binary"
	"errors"
	"time"
	"unicode/utf16"
)

// The SMB2 header (MS-SMB2 2.2.1) is 64 bytes at the start of every
// message; offsets in message bodies count from its first byte.
const headerSize = 64

var protocolID = [4]byte{0xFE, 'S', 'M', 'B'}

// Commands (MS-SMB2 2.2.1.2).
const (
	cmdNegotiate      uint16 = 0x00
	cmdSessionSetup   uint16 = 0x01
	cmdLogoff         uint16 = 0x02
	cmdTreeConnect    uint16 = 0x03
	cmdTreeDisconnect uint16 = 0x04
	cmdCreate         uint16 = 0x05
	cmdClose          uint16 = 0x06
	cmdFlush          uint16 = 0x07
	cmdRead           uint16 = 0x08
	cmdWrite          uint16 = 0x09
	cmdLock           uint16 = 0x0A
	cmdIoctl          uint16 = 0x0B
	cmdCancel         uint16 = 0x0C
	cmdEcho           uint16 = 0x0D
	cmdQueryDirectory uint16 = 0x0E
	cmdChangeNotify   uint16 = 0x0F
	cmdQueryInfo      uint16 = 0x10
	cmdSetInfo        uint16 = 0x11
	cmdOplockBreak    uint16 = 0x12
)

// Header flags.
const (
	flagResponse uint32 = 0x01
	flagAsync    uint32 = 0x02
	flagRelated  uint32 = 0x04
	flagSigned   uint32 = 0x08
)

// header is a decoded SMB2 header.
type header struct {
	CreditCharge uint16
	Status       uint32
	Command      uint16
	Credits      uint16
	Flags        uint32
	NextCommand  uint32
	MessageID    uint64
	AsyncID      uint64 // when flagAsync
	TreeID       uint32 // when not flagAsync
	SessionID    uint64
	Signature    [16]byte
}

var errMalformed = errors.New("smb: malformed message")

func parseHeader(b []byte) (header, error) {
	var h header
	if len(b) < headerSize || [4]byte(b[0:4]) != protocolID || le.Uint16(b[4:]) != headerSize {
		return h, errMalformed
	}
	h.CreditCharge = le.Uint16(b[6:])
	h.Status = le.Uint32(b[8:])
	h.Command = le.Uint16(b[12:])
	h.Credits = le.Uint16(b[14:])
	h.Flags = le.Uint32(b[16:])
	h.NextCommand = le.Uint32(b[20:])
	h.MessageID = le.Uint64(b[24:])
	if h.Flags&flagAsync != 0 {
		h.AsyncID = le.Uint64(b[32:])
	} else {
		h.TreeID = le.Uint32(b[36:])
	}
	h.SessionID = le.Uint64(b[40:])
	copy(h.Signature[:], b[48:64])
	return h, nil
}

func (h *header) encode(b []byte) {
	copy(b[0:4], protocolID[:])
	le.PutUint16(b[4:], headerSize)
	le.PutUint16(b[6:], h.CreditCharge)
	le.PutUint32(b[8:], h.Status)
	le.PutUint16(b[12:], h.Command)
	le.PutUint16(b[14:], h.Credits)
	le.PutUint32(b[16:], h.Flags)
	le.PutUint32(b[20:], h.NextCommand)
	le.PutUint64(b[24:], h.MessageID)
	if h.Flags&flagAsync != 0 {
		le.PutUint64(b[32:], h.AsyncID)
	} else {
		le.PutUint32(b[32:], 0xFEFF) // Reserved (the process ID clients send)
		le.PutUint32(b[36:], h.TreeID)
	}
	le.PutUint64(b[40:], h.SessionID)
	copy(b[48:64], h.Signature[:])
}

var le = binary.LittleEndian

// body is a request body with bounds-checked little-endian reads: a read
// past its end yields zero and marks it bad, so a handler reads every
// field it needs and checks ok once.
type body struct {
	msg []byte // the whole message, header included (offsets count from it)
	b   []byte // the body: msg[headerSize:]
	bad bool
}

func newBody(msg []byte) *body { return &body{msg: msg, b: msg[headerSize:]} }

func (r *body) u8(off int) uint8 {
	if off < 0 || off+1 > len(r.b) {
		r.bad = true
		return 0
	}
	return r.b[off]
}

func (r *body) u16(off int) uint16 {
	if off < 0 || off+2 > len(r.b) {
		r.bad = true
		return 0
	}
	return le.Uint16(r.b[off:])
}

func (r *body) u32(off int) uint32 {
	if off < 0 || off+4 > len(r.b) {
		r.bad = true
		return 0
	}
	return le.Uint32(r.b[off:])
}

func (r *body) u64(off int) uint64 {
	if off < 0 || off+8 > len(r.b) {
		r.bad = true
		return 0
	}
	return le.Uint64(r.b[off:])
}

func (r *body) bytes(off, n int) []byte {
	if off < 0 || n < 0 || off+n > len(r.b) || off+n < off {
		r.bad = true
		return nil
	}
	return r.b[off : off+n]
}

// buffer returns n bytes at offset off counted from the header's start,
// as message offsets are; an empty buffer may have any offset.
func (r *body) buffer(off, n uint32) []byte {
	if n == 0 {
		return nil
	}
	o, l := int64(off), int64(n)
	if o < headerSize || o+l > int64(len(r.msg)) {
		r.bad = true
		return nil
	}
	return r.msg[o : o+l]
}

// fileID is an SMB2_FILEID: Persistent is the node's ID, Volatile the
// handle's ID in the file model.
type fileID struct{ Persistent, Volatile uint64 }

func (r *body) fileID(off int) fileID {
	return fileID{r.u64(off), r.u64(off + 8)}
}

// relatedFileID is the FileId a related compound request sends to mean
// "the file the previous request opened".
var relatedFileID = fileID{^uint64(0), ^uint64(0)}

// buf builds a response body.
type buf struct{ b []byte }

func (w *buf) u8(v uint8)   { w.b = append(w.b, v) }
func (w *buf) u16(v uint16) { w.b = le.AppendUint16(w.b, v) }
func (w *buf) u32(v uint32) { w.b = le.AppendUint32(w.b, v) }
func (w *buf) u64(v uint64) { w.b = le.AppendUint64(w.b, v) }
func (w *buf) raw(p []byte) { w.b = append(w.b, p...) }
func (w *buf) zero(n int)   { w.b = append(w.b, make([]byte, n)...) }
func (w *buf) fileID(id fileID) {
	w.u64(id.Persistent)
	w.u64(id.Volatile)
}
func (w *buf) align(n int) {
	for len(w.b)%n != 0 {
		w.b = append(w.b, 0)
	}
}

// utf16le encodes s as UTF-16LE, as every SMB2 string is.
func utf16le(s string) []byte {
	u := utf16.Encode([]rune(s))
	out := make([]byte, 2*len(u))
	for i, c := range u {
		le.PutUint16(out[2*i:], c)
	}
	return out
}

// fromUTF16LE decodes UTF-16LE; an odd trailing byte is dropped.
func fromUTF16LE(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = le.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}

// filetimeEpoch is 1601-01-01 in Unix 100 ns units, negated.
const filetimeEpoch = 116444736000000000

// filetime converts a time to Windows FILETIME (100 ns since 1601).
// filetimeEpochSeconds is 1601-01-01 in Unix seconds, negated.
const filetimeEpochSeconds = filetimeEpoch / 1e7

// filetime converts in seconds and 100 ns units apart: UnixNano is
// undefined outside 1678–2262, and FileREST sets times up to 9999. A time
// before 1601 has no FILETIME and reads as 0.
func filetime(t time.Time) uint64 {
	secs := t.Unix() + filetimeEpochSeconds
	if t.IsZero() || secs < 0 {
		return 0
	}
	return uint64(secs)*1e7 + uint64(t.Nanosecond()/100)
}

func fromFiletime(v uint64) time.Time {
	return time.Unix(int64(v/1e7)-filetimeEpochSeconds, int64(v%1e7)*100).UTC()
}
