package smb

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/file"
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

// queryFile answers a QUERY_INFO of a file information class on id.
func queryFile(t *testing.T, c *conn, id fileID, class uint8) []byte {
	t.Helper()
	st, body := call(t, c, cmdQueryInfo, queryInfoBody(infoFile, class, 4096, 0, id))
	if st != statusSuccess {
		t.Fatalf("QUERY_INFO class %d: status %#x", class, st)
	}
	off, n := int(binary.LittleEndian.Uint16(body[2:])-headerSize), int(binary.LittleEndian.Uint32(body[4:]))
	return body[off : off+n]
}

func setFile(t *testing.T, c *conn, id fileID, class uint8, data []byte) uint32 {
	t.Helper()
	st, _ := call(t, c, cmdSetInfo, setInfoBody(infoFile, class, 0, id, data))
	return st
}

// basicInfo is a FILE_BASIC_INFORMATION of the four times and attributes.
func basicInfo(create, access, write, change uint64, attrs uint32) []byte {
	b := make([]byte, 40)
	for i, v := range []uint64{create, access, write, change} {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	binary.LittleEndian.PutUint32(b[32:], attrs)
	return b
}

// TestChangeTimeHeldByHandle: once a handle sets the change time (or
// gives -1), its later changes leave it, until it gives -2 (MS-FSA
// Open.UserSetChangeTime; smbtorture smb2.setinfo.setinfo changes the
// attributes after setting the times and expects them all kept).
func TestChangeTimeHeldByHandle(t *testing.T) {
	c := fuzzConn(t)
	f := openPath(t, c, "times.txt", 0x1f01ff, 2, 0)
	changeOf := func(id fileID) uint64 {
		return binary.LittleEndian.Uint64(queryFile(t, c, id, fileBasicInformation)[24:])
	}
	const set = 130000000000000000 // 2012-12-15
	if st := setFile(t, c, f, fileBasicInformation, basicInfo(set-3, set-2, set-1, set, 0x1)); st != statusSuccess {
		t.Fatalf("set the times: status %#x", st)
	}
	if st := setFile(t, c, f, fileBasicInformation, basicInfo(0, 0, 0, 0, attrNormal)); st != statusSuccess {
		t.Fatalf("change the attributes: status %#x", st)
	}
	if got := changeOf(f); got != set {
		t.Fatalf("change time after an attribute change through the handle that set it: %d, want %d", got, set)
	}
	// Another handle's changes advance it.
	g := openPath(t, c, "times.txt", 0x1f01ff, 1, 0)
	if st := setFile(t, c, g, fileBasicInformation, basicInfo(0, 0, 0, 0, 0x2)); st != statusSuccess {
		t.Fatalf("change the attributes through another handle: status %#x", st)
	}
	if got := changeOf(g); got == set {
		t.Fatal("another handle's attribute change left the change time")
	}
	// -2 lets the first handle's changes advance it again.
	if st := setFile(t, c, f, fileBasicInformation, basicInfo(0, 0, 0, set, 0)); st != statusSuccess {
		t.Fatalf("set the change time again: status %#x", st)
	}
	if st := setFile(t, c, f, fileBasicInformation, basicInfo(0, 0, 0, math.MaxUint64-1, attrNormal)); st != statusSuccess {
		t.Fatalf("resume change time updates: status %#x", st)
	}
	if got := changeOf(f); got == set {
		t.Fatal("after -2 an attribute change left the change time")
	}
	// -1 holds it without setting it.
	if st := setFile(t, c, g, fileBasicInformation, basicInfo(0, 0, 0, math.MaxUint64, 0x2)); st != statusSuccess {
		t.Fatalf("stop change time updates: status %#x", st)
	}
	held := changeOf(g)
	if st := setFile(t, c, g, fileEndOfFileInformation, binary.LittleEndian.AppendUint64(nil, 10)); st != statusSuccess {
		t.Fatalf("resize: status %#x", st)
	}
	if got := changeOf(g); got != held {
		t.Fatalf("change time after a resize through a handle that gave -1: %d, want %d", got, held)
	}
}

// TestHandleState: FilePositionInformation and FileModeInformation are
// the open's own, FileAllocationInformation's allocation is what the open
// then reports, and a delete-pending file counts no link (smbtorture
// smb2.setinfo.setinfo).
func TestHandleState(t *testing.T) {
	c := fuzzConn(t)
	f := openPath(t, c, "state.txt", 0x1f01ff, 2, 0)
	all := func() []byte { return queryFile(t, c, f, fileAllInformation) }
	if st := setFile(t, c, f, fileDispositionInformation, []byte{1}); st != statusSuccess {
		t.Fatalf("set the delete disposition: status %#x", st)
	}
	if a := all(); a[60] != 1 || binary.LittleEndian.Uint32(a[56:]) != 0 {
		t.Fatalf("delete pending %d with %d links, want 1 with 0", a[60], binary.LittleEndian.Uint32(a[56:]))
	}
	if st := setFile(t, c, f, fileDispositionInformation, []byte{0}); st != statusSuccess {
		t.Fatalf("clear the delete disposition: status %#x", st)
	}
	if a := all(); a[60] != 0 || binary.LittleEndian.Uint32(a[56:]) != 1 {
		t.Fatalf("delete pending %d with %d links, want 0 with 1", a[60], binary.LittleEndian.Uint32(a[56:]))
	}

	if st := setFile(t, c, f, fileAllocationInformation, binary.LittleEndian.AppendUint64(nil, 4096)); st != statusSuccess {
		t.Fatalf("set the allocation: status %#x", st)
	}
	if a := all(); binary.LittleEndian.Uint64(a[40:]) != 4096 || binary.LittleEndian.Uint64(a[48:]) != 0 {
		t.Fatalf("allocation %d, size %d, want 4096 and 0", binary.LittleEndian.Uint64(a[40:]), binary.LittleEndian.Uint64(a[48:]))
	}

	if st := setFile(t, c, f, filePositionInformation, binary.LittleEndian.AppendUint64(nil, 123456)); st != statusSuccess {
		t.Fatalf("set the position: status %#x", st)
	}
	if got := binary.LittleEndian.Uint64(queryFile(t, c, f, filePositionInformation)); got != 123456 {
		t.Fatalf("position %d, want 123456", got)
	}
	if got := binary.LittleEndian.Uint64(all()[80:]); got != 123456 {
		t.Fatalf("FileAllInformation position %d, want 123456", got)
	}

	for _, tc := range []struct {
		mode, want uint32
	}{{modeWriteThrough, statusSuccess}, {1, statusInvalidParameter}, {modeNoBuffering, statusInvalidParameter}, {modeSynchronousNoAlert, statusInvalidParameter}} {
		if st := setFile(t, c, f, fileModeInformation, binary.LittleEndian.AppendUint32(nil, tc.mode)); st != tc.want {
			t.Fatalf("mode %#x: status %#x, want %#x", tc.mode, st, tc.want)
		}
	}
	if got := binary.LittleEndian.Uint32(queryFile(t, c, f, fileModeInformation)); got != modeWriteThrough {
		t.Fatalf("mode %#x, want write-through", got)
	}
	if got := binary.LittleEndian.Uint32(all()[88:]); got != modeWriteThrough {
		t.Fatalf("FileAllInformation mode %#x, want write-through", got)
	}
	// Another open of the file has its own position and mode.
	g := openPath(t, c, "state.txt", 0x12019f, 1, 0x2) // FILE_WRITE_THROUGH
	if got := binary.LittleEndian.Uint64(queryFile(t, c, g, filePositionInformation)); got != 0 {
		t.Fatalf("another open's position %d, want 0", got)
	}
	if got := binary.LittleEndian.Uint32(queryFile(t, c, g, fileModeInformation)); got != modeWriteThrough {
		t.Fatalf("an open with FILE_WRITE_THROUGH has mode %#x", got)
	}
}

// authenticateWith builds an AUTHENTICATE_MESSAGE for user with nt as its
// NT response.
func authenticateWith(user string, nt []byte) []byte {
	u := utf16le(user)
	auth := make([]byte, 88, 88+len(nt)+len(u))
	copy(auth, "NTLMSSP\x00\x03")
	field := func(at int, data []byte) {
		binary.LittleEndian.PutUint16(auth[at:], uint16(len(data)))
		binary.LittleEndian.PutUint16(auth[at+2:], uint16(len(data)))
		binary.LittleEndian.PutUint32(auth[at+4:], uint32(len(auth)))
		auth = append(auth, data...)
	}
	field(20, nt)
	field(36, u)
	return auth
}

// TestNTLMMalformedAVPairs: an NTLMv2 response whose AV pairs run past it
// is malformed (STATUS_INVALID_PARAMETER, as Windows answers smbtorture
// smb2.session.ntlmssp_bug14932), checked before the proof; one that
// parses but proves nothing is a logon failure.
func TestNTLMMalformedAVPairs(t *testing.T) {
	accounts, err := azauth.LoadAccounts(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s := &ntlmServer{accounts: accounts, now: time.Now}
	if _, err := s.challengeFor([]byte("NTLMSSP\x00\x01\x00\x00\x00\x00\x00\x00\x00")); err != nil {
		t.Fatal(err)
	}
	header := make([]byte, 16+28) // proof, then the client challenge's fixed part
	header[16], header[17] = 1, 1
	for _, tc := range []struct {
		name string
		av   []byte
		want error
	}{
		{"a pair longer than the response", []byte{0x11, 0xa2, 0x08, 0x81, 0x50, 0x38}, errMalformed},
		{"no MsvAvEOL", []byte{2, 0, 2, 0, 'a', 0}, errMalformed},
		{"a short pair header", []byte{2, 0}, errMalformed},
		{"well formed", []byte{2, 0, 2, 0, 'a', 0, 0, 0, 0, 0}, errLogon},
		{"well formed with padding", []byte{0, 0, 0, 0, 0, 0, 0, 0}, errLogon},
	} {
		nt := append(append([]byte(nil), header...), tc.av...)
		if err := s.authenticate(authenticateWith(azauth.DevAccount, nt)); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func lockRequest(id fileID, elems ...lockElem) []byte {
	b := make([]byte, 24, 24+24*len(elems))
	binary.LittleEndian.PutUint16(b, 48)
	binary.LittleEndian.PutUint16(b[2:], uint16(len(elems)))
	binary.LittleEndian.PutUint64(b[8:], id.Persistent)
	binary.LittleEndian.PutUint64(b[16:], id.Volatile)
	for _, e := range elems {
		b = binary.LittleEndian.AppendUint64(b, e.offset)
		b = binary.LittleEndian.AppendUint64(b, e.length)
		b = binary.LittleEndian.AppendUint32(b, e.flags)
		b = binary.LittleEndian.AppendUint32(b, 0)
	}
	return b
}

// TestLockSeveralMayNotWait: a LOCK of several elements where one would
// wait is STATUS_INVALID_PARAMETER (MS-SMB2 3.3.5.14.2; smbtorture
// smb2.lock.valid-request); several that fail at once are granted.
func TestLockSeveralMayNotWait(t *testing.T) {
	c := fuzzConn(t)
	f := openPath(t, c, "locks.txt", 0x1f01ff, 2, 0)
	for _, tc := range []struct {
		name  string
		elems []lockElem
		want  uint32
	}{
		{"the second would wait", []lockElem{{9999, 1, lockShared | lockFailImmediately}, {9999, 1, lockShared}}, statusInvalidParameter},
		{"the first would wait", []lockElem{{10, 1, lockExclusive}, {20, 1, lockExclusive | lockFailImmediately}}, statusInvalidParameter},
		{"none waits", []lockElem{{9999, 1, lockShared | lockFailImmediately}, {9999, 1, lockShared | lockFailImmediately}}, statusSuccess},
		{"one alone may wait", []lockElem{{30, 1, lockExclusive}}, statusSuccess},
	} {
		if st, _ := call(t, c, cmdLock, lockRequest(f, tc.elems...)); st != tc.want {
			t.Errorf("%s: status %#x, want %#x", tc.name, st, tc.want)
		}
	}
	// A refused request took none of its locks.
	if st, _ := call(t, c, cmdLock, lockRequest(f, lockElem{10, 1, lockUnlock})); st != statusRangeNotLocked {
		t.Errorf("unlocking a range a refused request named: status %#x, want STATUS_RANGE_NOT_LOCKED", st)
	}
}

// querySecurity answers the owner, group and DACL of id as SDDL.
func querySecurity(t *testing.T, c *conn, id fileID) (string, []byte) {
	t.Helper()
	st, body := call(t, c, cmdQueryInfo, queryInfoBody(infoSecurity, 0, 4096, ownerSecurityInformation|groupSecurityInformation|daclSecurityInformation, id))
	if st != statusSuccess {
		t.Fatalf("security query: status %#x", st)
	}
	off, n := int(binary.LittleEndian.Uint16(body[2:])-headerSize), int(binary.LittleEndian.Uint32(body[4:]))
	sd := body[off : off+n]
	sddl, err := file.BinaryToSDDL(b64(sd))
	if err != nil {
		t.Fatalf("the queried descriptor: %v", err)
	}
	return sddl, sd
}

// TestNullDACL: a DACL set from a descriptor with none is a null DACL
// (present, no ACL: no access control), kept as SDDL NO_ACCESS_CONTROL
// and answered as such; an empty DACL is not a null one (smbtorture
// smb2.create.nulldacl).
func TestNullDACL(t *testing.T) {
	c := fuzzConn(t)
	f := openPath(t, c, "null.txt", 0x1f01ff, 2, 0)
	bare := []byte{1, 0, 0x04, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} // self-relative, DACL present, no ACL
	for _, sd := range [][]byte{bare, append([]byte{1, 0, 0, 0x80}, make([]byte, 16)...)} {
		if st, _ := call(t, c, cmdSetInfo, setInfoBody(infoSecurity, 0, daclSecurityInformation, f, sd)); st != statusSuccess {
			t.Fatalf("set a null DACL: status %#x", st)
		}
		sddl, raw := querySecurity(t, c, f)
		if sddl != "O:SYG:SYD:NO_ACCESS_CONTROL" {
			t.Errorf("after setting a null DACL: %s", sddl)
		}
		if control := binary.LittleEndian.Uint16(raw[2:]); control&0x0004 == 0 || binary.LittleEndian.Uint32(raw[16:]) != 0 {
			t.Errorf("a null DACL answers control %#x, DACL offset %d", control, binary.LittleEndian.Uint32(raw[16:]))
		}
	}
	empty, err := file.Descriptor("O:SYG:SYD:")
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := call(t, c, cmdSetInfo, setInfoBody(infoSecurity, 0, daclSecurityInformation, f, empty)); st != statusSuccess {
		t.Fatalf("set an empty DACL: status %#x", st)
	}
	if sddl, _ := querySecurity(t, c, f); sddl != "O:SYG:SYD:" {
		t.Errorf("after setting an empty DACL: %s", sddl)
	}
	// A CREATE whose descriptor has a null DACL creates the file with it.
	if sddl, st := createPermission(bare); st != statusSuccess || sddl != "O:SYG:SYD:NO_ACCESS_CONTROL" {
		t.Errorf("a created null DACL: %q, status %#x", sddl, st)
	}
}

// TestCreateFieldChecks: a CREATE's desired access, options and
// attributes are checked bit by bit as Windows checks them (the masks
// smbtorture smb2.create.gentest records), access first.
func TestCreateFieldChecks(t *testing.T) {
	c := fuzzConn(t)
	create := func(desired, attrs, opts, disp uint32) uint32 {
		b := createBody("gen.txt", desired, disp, opts)
		binary.LittleEndian.PutUint32(b[28:], attrs)
		st, body := call(t, c, cmdCreate, b)
		if st == statusSuccess {
			call(t, c, cmdClose, closeBody(fileID{binary.LittleEndian.Uint64(body[64:]), binary.LittleEndian.Uint64(body[72:])}))
		}
		return st
	}
	const maxAllowed, openIf, create_ = 0x02000000, 3, 2
	if st := create(maxAllowed, 0x80, 0, 5); st != statusSuccess {
		t.Fatalf("a plain create: status %#x", st)
	}
	var okOpts, invalidOpts, unsupportedOpts uint32
	for i := range 32 {
		opt := uint32(1) << i
		if opt == optDeleteOnClose || opt == optDirectory {
			continue
		}
		switch st := create(maxAllowed, 0, opt, openIf); st {
		case statusSuccess:
			okOpts |= opt
		case statusInvalidParameter:
			invalidOpts |= opt
		case statusNotSupported:
			unsupportedOpts |= opt
		default:
			t.Errorf("option %#x: status %#x", opt, st)
		}
	}
	if okOpts != 0x00efcf7e || invalidOpts != 0xff000000 || unsupportedOpts != 0x00102080 {
		t.Errorf("options: ok %#x, invalid %#x, not supported %#x", okOpts, invalidOpts, unsupportedOpts)
	}
	var refused uint32
	for i := range 32 {
		access := uint32(1) << i
		switch st := create(access, 0, 0, openIf); st {
		case statusSuccess:
		case statusAccessDenied, statusPrivilegeNotHeld:
			refused |= access
		default:
			t.Errorf("access %#x: status %#x", access, st)
		}
	}
	// As Windows 7 answers: SYNCHRONIZE alone opens (a stat open,
	// smbtorture smb2.oplock.statopen1), where later Windows refuse it to
	// gentest's OPEN_IF.
	if refused != 0x0de0fe00 {
		t.Errorf("refused access bits %#x, want 0x0de0fe00", refused)
	}
	if st := create(0, 0, 0, openIf); st != statusAccessDenied {
		t.Errorf("no access at all: status %#x, want access denied", st)
	}
	var invalidAttrs uint32
	for i := range 32 {
		attr := uint32(1) << i
		if attr == attrEncrypted {
			continue
		}
		switch st := create(maxAllowed, attr, 0, openIf); st {
		case statusSuccess:
		case statusInvalidParameter:
			invalidAttrs |= attr
		default:
			t.Errorf("attribute %#x: status %#x", attr, st)
		}
	}
	if invalidAttrs != 0xffff8048 {
		t.Errorf("invalid attributes %#x, want 0xffff8048", invalidAttrs)
	}
	// Access is checked before the attributes.
	if st := create(0x08000000, 0x8, 0, create_); st != statusAccessDenied {
		t.Errorf("a reserved access bit with the volume attribute: status %#x, want access denied", st)
	}
	if st := create(maxAllowed, attrEncrypted, 0, openIf); st != statusAccessDenied {
		t.Errorf("an encrypted file: status %#x, want access denied", st)
	}
}

// withContexts gives a CREATE body create contexts, named and with data.
func withContexts(body []byte, ctxs ...createContext) []byte {
	for len(body)%8 != 0 {
		body = append(body, 0)
	}
	start := len(body)
	for i, cc := range ctxs {
		c := make([]byte, 16)
		binary.LittleEndian.PutUint16(c[4:], 16)
		binary.LittleEndian.PutUint16(c[6:], uint16(len(cc.name)))
		c = append(c, cc.name...)
		for len(c)%8 != 0 {
			c = append(c, 0)
		}
		if len(cc.data) > 0 {
			binary.LittleEndian.PutUint16(c[10:], uint16(len(c)))
			binary.LittleEndian.PutUint32(c[12:], uint32(len(cc.data)))
			c = append(c, cc.data...)
		}
		if i < len(ctxs)-1 {
			for len(c)%8 != 0 {
				c = append(c, 0)
			}
			binary.LittleEndian.PutUint32(c, uint32(len(c)))
		}
		body = append(body, c...)
	}
	binary.LittleEndian.PutUint32(body[48:], uint32(headerSize+start))
	binary.LittleEndian.PutUint32(body[52:], uint32(len(body)-start))
	return body
}

// responseContexts reads a CREATE response's contexts by name.
func responseContexts(t *testing.T, body []byte) map[string][]byte {
	t.Helper()
	off, n := binary.LittleEndian.Uint32(body[80:]), binary.LittleEndian.Uint32(body[84:])
	if n == 0 {
		return map[string][]byte{}
	}
	ctxs, st := parseContexts(body[off-headerSize : off-headerSize+n])
	if st != statusSuccess {
		t.Fatalf("the response's contexts: status %#x", st)
	}
	return ctxs
}

// TestCreateBlobs: a CREATE's allocation size is what the open then
// reports, maximal access and on-disk ID queries are answered, a
// timewarp token names a share snapshot (none: STATUS_OBJECT_NAME_NOT_
// FOUND), unknown contexts are ignored and a name shorter than four bytes
// is STATUS_INVALID_PARAMETER (smbtorture smb2.create.blob).
func TestCreateBlobs(t *testing.T) {
	c := fuzzConn(t)
	const overwriteIf = 5
	st, body := call(t, c, cmdCreate, withContexts(createBody("blob.txt", 0x02000000, overwriteIf, 0),
		createContext{"AlSi", binary.LittleEndian.AppendUint64(nil, 1<<20)}, createContext{"MxAc", nil}, createContext{"QFid", nil}, createContext{"FooO", nil}))
	if st != statusSuccess {
		t.Fatalf("create with contexts: status %#x", st)
	}
	if got := binary.LittleEndian.Uint64(body[40:]); got != 1<<20 {
		t.Errorf("allocation %#x, want 1 MiB", got)
	}
	f := fileID{binary.LittleEndian.Uint64(body[64:]), binary.LittleEndian.Uint64(body[72:])}
	if got := binary.LittleEndian.Uint64(queryFile(t, c, f, fileStandardInformation)); got != 1<<20 {
		t.Errorf("the open's standard information: allocation %#x, want 1 MiB", got)
	}
	ctxs := responseContexts(t, body)
	if mx := ctxs["MxAc"]; len(mx) != 8 || binary.LittleEndian.Uint32(mx) != 0 || binary.LittleEndian.Uint32(mx[4:]) != accAll {
		t.Errorf("maximal access answer %x", mx)
	}
	if q := ctxs["QFid"]; len(q) != 32 || binary.LittleEndian.Uint64(q) != f.Persistent {
		t.Errorf("on-disk ID answer %x, want the file ID %d", q, f.Persistent)
	}
	call(t, c, cmdClose, closeBody(f))

	for _, name := range []string{"x", "xx", "xxx"} {
		if st, _ := call(t, c, cmdCreate, withContexts(createBody("blob.txt", 0x02000000, overwriteIf, 0), createContext{name, nil})); st != statusInvalidParameter {
			t.Errorf("a context named %q: status %#x, want STATUS_INVALID_PARAMETER", name, st)
		}
	}

	timewarp := func(at time.Time) uint32 {
		st, _ := call(t, c, cmdCreate, withContexts(createBody("blob.txt", 0x02000000, 1, 0), createContext{"TWrp", binary.LittleEndian.AppendUint64(nil, filetime(at))}))
		return st
	}
	if st := timewarp(fromFiletime(10000)); st != statusObjectNameNotFound {
		t.Errorf("a timewarp to no snapshot: status %#x, want STATUS_OBJECT_NAME_NOT_FOUND", st)
	}
	snap, _, err := c.srv.files.SnapshotShare(t.Context(), file.ShareRef{Account: "acct", Share: "s"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse(file.SnapshotLayout, snap)
	if err != nil {
		t.Fatal(err)
	}
	if st := timewarp(at); st != statusNotSupported {
		t.Errorf("a timewarp to a snapshot: status %#x, want STATUS_NOT_SUPPORTED", st)
	}
}
