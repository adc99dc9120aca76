package smb

import (
	"encoding/binary"
	"testing"
)

// compound joins request messages into one frame: each but the last is
// padded to 8 bytes and its NextCommand set; related marks every message
// after the first (and the first too when relatedFirst).
func compound(related, relatedFirst bool, msgs ...[]byte) []byte {
	var out []byte
	for i, m := range msgs {
		m = append([]byte(nil), m...)
		if (related && i > 0) || (relatedFirst && i == 0) {
			binary.LittleEndian.PutUint32(m[16:], binary.LittleEndian.Uint32(m[16:])|flagRelated)
		}
		binary.LittleEndian.PutUint64(m[24:], uint64(i+1)) // MessageId
		if i < len(msgs)-1 {
			for len(m)%8 != 0 {
				m = append(m, 0)
			}
			binary.LittleEndian.PutUint32(m[20:], uint32(len(m)))
		}
		out = append(out, m...)
	}
	return out
}

// responses splits a compound answer by its NextCommand offsets and
// returns each message.
func responses(t *testing.T, frame []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for off := 0; off < len(frame); {
		next := int(binary.LittleEndian.Uint32(frame[off+20:]))
		end := len(frame)
		if next != 0 {
			end = off + next
		}
		if end > len(frame) || end <= off {
			t.Fatalf("NextCommand %d at %d runs past the %d-byte frame", next, off, len(frame))
		}
		out = append(out, frame[off:end])
		off = end
	}
	return out
}

func statuses(msgs [][]byte) []uint32 {
	var out []uint32
	for _, m := range msgs {
		out = append(out, binary.LittleEndian.Uint32(m[8:]))
	}
	return out
}

func closeBody(id fileID) []byte {
	b := make([]byte, 24)
	binary.LittleEndian.PutUint16(b, 24)
	binary.LittleEndian.PutUint64(b[8:], id.Persistent)
	binary.LittleEndian.PutUint64(b[16:], id.Volatile)
	return b
}

func readBody(id fileID, length uint32) []byte {
	b := make([]byte, 49)
	binary.LittleEndian.PutUint16(b, 49)
	binary.LittleEndian.PutUint32(b[4:], length)
	binary.LittleEndian.PutUint64(b[16:], id.Persistent)
	binary.LittleEndian.PutUint64(b[24:], id.Volatile)
	return b
}

func handleCompound(t *testing.T, c *conn, frame []byte) [][]byte {
	t.Helper()
	out, err := c.handleFrame(frame)
	if err != nil {
		t.Fatal(err)
	}
	return responses(t, out)
}

// TestCompoundRules checks the compound rules of MS-SMB2 3.3.5.2.7 the
// way Windows applies them, as Samba's smbtorture smb2.compound suite
// (related*, unrelated1, invalid*, compound-padding) checks them.
func TestCompoundRules(t *testing.T) {
	c := fuzzConn(t)
	create := testRequest(cmdCreate, 1, createBody("c.txt", 0x12019f, 3, 0))
	closeRel := testRequest(cmdClose, 1, closeBody(relatedFileID))
	want := func(name string, got []uint32, want ...uint32) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d answers, want %d", name, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: answer %d is %#x, want %#x", name, i, got[i], want[i])
			}
		}
	}

	// A related CLOSE closes the file the CREATE before it opened.
	want("related", statuses(handleCompound(t, c, compound(true, false, create, closeRel))), statusSuccess, statusSuccess)
	// Unrelated requests with the all-ones FileId name no file.
	want("unrelated", statuses(handleCompound(t, c, compound(false, false, create, closeRel, closeRel))),
		statusSuccess, statusFileClosed, statusFileClosed)
	// A related first request has no session to inherit; the related
	// requests after it fail the same way.
	want("related first", statuses(handleCompound(t, c, compound(true, true, create, closeRel))),
		statusInvalidParameter, statusInvalidParameter)
	// A failed CREATE's status reaches the related requests that name
	// its file.
	missing := testRequest(cmdCreate, 1, createBody("missing.txt", 0x12019f, 1, 0))
	want("failed create", statuses(handleCompound(t, c, compound(true, false, missing,
		testRequest(cmdRead, 1, readBody(relatedFileID, 1)), closeRel))),
		statusObjectNameNotFound, statusObjectNameNotFound, statusObjectNameNotFound)
	// An unknown command is an invalid parameter, not an unsupported one.
	want("unknown command", statuses(handleCompound(t, c, compound(true, false, create, testRequest(0xff, 1, []byte{4, 0, 0, 0}), closeRel))),
		statusSuccess, statusInvalidParameter, statusSuccess)

	// Every answer of a compound, the last too, is padded to 8 bytes.
	msgs := handleCompound(t, c, compound(true, false, create, testRequest(cmdRead, 1, readBody(relatedFileID, 3)), closeRel))
	for i, m := range msgs {
		if len(m)%8 != 0 {
			t.Errorf("answer %d is %d bytes, not a multiple of 8", i, len(m))
		}
	}
}
