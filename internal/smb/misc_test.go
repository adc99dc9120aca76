package smb

import (
	"encoding/binary"
	"slices"
	"testing"
)

// call sends one request on c's session and returns its status and body.
func call(t *testing.T, c *conn, cmd uint16, body []byte) (uint32, []byte) {
	t.Helper()
	msgs := handleCompound(t, c, compound(false, false, testRequest(cmd, 1, body)))
	if len(msgs) != 1 {
		t.Fatalf("%d answers to one request", len(msgs))
	}
	return binary.LittleEndian.Uint32(msgs[0][8:]), msgs[0][headerSize:]
}

// openPath opens name with a plain CREATE and returns its file ID.
func openPath(t *testing.T, c *conn, name string, access, disp, opts uint32) fileID {
	t.Helper()
	st, body := call(t, c, cmdCreate, createBody(name, access, disp, opts))
	if st != statusSuccess {
		t.Fatalf("create %q: status %#x", name, st)
	}
	return fileID{Persistent: binary.LittleEndian.Uint64(body[64:]), Volatile: binary.LittleEndian.Uint64(body[72:])}
}

func queryDirectoryBody(class, flags uint8, id fileID, pattern string, outLen uint32) []byte {
	n := utf16le(pattern)
	b := make([]byte, 32, 32+len(n))
	binary.LittleEndian.PutUint16(b, 33)
	b[2], b[3] = class, flags
	binary.LittleEndian.PutUint64(b[8:], id.Persistent)
	binary.LittleEndian.PutUint64(b[16:], id.Volatile)
	binary.LittleEndian.PutUint16(b[24:], headerSize+32)
	binary.LittleEndian.PutUint16(b[26:], uint16(len(n)))
	binary.LittleEndian.PutUint32(b[28:], outLen)
	return append(b, n...)
}

// listNames enumerates the directory open as id (FileNamesInformation).
func listNames(t *testing.T, c *conn, id fileID) []string {
	t.Helper()
	var names []string
	flags := uint8(queryRestart)
	for {
		st, body := call(t, c, cmdQueryDirectory, queryDirectoryBody(fileNamesInformation, flags, id, "*", 65536))
		if st == statusNoMoreFiles {
			return names
		}
		if st != statusSuccess {
			t.Fatalf("QUERY_DIRECTORY: status %#x", st)
		}
		flags = 0
		off, n := int(binary.LittleEndian.Uint16(body[2:])-headerSize), int(binary.LittleEndian.Uint32(body[4:]))
		entries := body[off : off+n]
		for {
			l := int(binary.LittleEndian.Uint32(entries[8:]))
			names = append(names, fromUTF16LE(entries[12:12+l]))
			next := int(binary.LittleEndian.Uint32(entries))
			if next == 0 {
				break
			}
			entries = entries[next:]
		}
	}
}

// TestEnumerationKeepsDeletePending: a file whose delete disposition is
// set stays in its directory's enumeration until its last handle closes,
// as on NTFS (smbtorture smb2.dir.modify lists such a file).
func TestEnumerationKeepsDeletePending(t *testing.T) {
	c := fuzzConn(t)
	f := openPath(t, c, "pending.txt", 0x1f01ff, 2, 0)
	disposition := []byte{1}
	if st, _ := call(t, c, cmdSetInfo, setInfoBody(infoFile, fileDispositionInformation, 0, f, disposition)); st != statusSuccess {
		t.Fatalf("set the delete disposition: status %#x", st)
	}
	root := openPath(t, c, "", 0x120089, 1, 1)
	if names := listNames(t, c, root); !slices.Contains(names, "pending.txt") {
		t.Fatalf("the delete-pending file is not listed: %v", names)
	}
	call(t, c, cmdClose, closeBody(f))
	if names := listNames(t, c, root); slices.Contains(names, "pending.txt") {
		t.Fatalf("the file is listed after its last close: %v", names)
	}
}
