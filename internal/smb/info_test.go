package smb

import (
	"encoding/base64"
	"encoding/binary"
	"testing"

	"github.com/cerulean-db/cerulean/internal/file"
)

func queryInfoBody(typ, class uint8, outLen, additional uint32, id fileID) []byte {
	b := make([]byte, 41)
	binary.LittleEndian.PutUint16(b, 41)
	b[2], b[3] = typ, class
	binary.LittleEndian.PutUint32(b[4:], outLen)
	binary.LittleEndian.PutUint32(b[16:], additional)
	binary.LittleEndian.PutUint64(b[24:], id.Persistent)
	binary.LittleEndian.PutUint64(b[32:], id.Volatile)
	return b
}

// queryAfterCreate creates name and queries it in one related compound,
// returning the query's answer.
func queryAfterCreate(t *testing.T, c *conn, name string, typ, class uint8, outLen, additional uint32) []byte {
	t.Helper()
	msgs := handleCompound(t, c, compound(true, false,
		testRequest(cmdCreate, 1, createBody(name, 0x12019f, 3, 0)),
		testRequest(cmdQueryInfo, 1, queryInfoBody(typ, class, outLen, additional, relatedFileID)),
		testRequest(cmdClose, 1, closeBody(relatedFileID))))
	if len(msgs) != 3 || binary.LittleEndian.Uint32(msgs[0][8:]) != statusSuccess {
		t.Fatalf("create %s failed", name)
	}
	return msgs[1]
}

// TestQueryInfoBufferSizes: a buffer smaller than a class's structure is
// STATUS_INFO_LENGTH_MISMATCH, one that holds the structure but not its
// whole variable part is truncated with STATUS_BUFFER_OVERFLOW, as
// Windows answers (smbtorture smb2.getinfo.qfile_buffercheck and
// qfs_buffercheck give these sizes).
func TestQueryInfoBufferSizes(t *testing.T) {
	c := fuzzConn(t)
	for _, tc := range []struct {
		name       string
		typ, class uint8
		outLen     uint32
		want       uint32
	}{
		{"basic short", infoFile, fileBasicInformation, 39, statusInfoLengthMismatch},
		{"basic", infoFile, fileBasicInformation, 40, statusSuccess},
		{"all short", infoFile, fileAllInformation, 103, statusInfoLengthMismatch},
		{"all without the whole name", infoFile, fileAllInformation, 104, statusBufferOverflow},
		{"stream short", infoFile, fileStreamInformation, 31, statusInfoLengthMismatch},
		{"stream without the whole name", infoFile, fileStreamInformation, 32, statusBufferOverflow},
		{"volume short", infoFilesystem, fsVolumeInformation, 23, statusInfoLengthMismatch},
		{"volume", infoFilesystem, fsVolumeInformation, 24, statusSuccess},
		{"attribute short", infoFilesystem, fsAttributeInformation, 15, statusInfoLengthMismatch},
		{"attribute without the whole name", infoFilesystem, fsAttributeInformation, 16, statusBufferOverflow},
		{"control", infoFilesystem, fsControlInformation, 48, statusSuccess},
	} {
		m := queryAfterCreate(t, c, "sizes.txt", tc.typ, tc.class, tc.outLen, 0)
		if got := binary.LittleEndian.Uint32(m[8:]); got != tc.want {
			t.Errorf("%s: status %#x, want %#x", tc.name, got, tc.want)
		}
		if tc.want == statusBufferOverflow {
			if n := binary.LittleEndian.Uint32(m[headerSize+4:]); n != tc.outLen {
				t.Errorf("%s: %d bytes returned, want the %d that fit", tc.name, n, tc.outLen)
			}
		}
	}
}

// TestQuerySecurity: a security query answers the owner, group and DACL
// of the permission kept with the file, the default one here, and a
// buffer too small for it STATUS_BUFFER_TOO_SMALL with the size needed
// (smbtorture smb2.getinfo.qsec_buffercheck).
func TestQuerySecurity(t *testing.T) {
	c := fuzzConn(t)
	full, err := file.Descriptor("")
	if err != nil {
		t.Fatal(err)
	}
	m := queryAfterCreate(t, c, "sec.txt", infoSecurity, 0, 4096, ownerSecurityInformation|groupSecurityInformation|daclSecurityInformation)
	if st := binary.LittleEndian.Uint32(m[8:]); st != statusSuccess {
		t.Fatalf("status %#x", st)
	}
	n := binary.LittleEndian.Uint32(m[headerSize+4:])
	sd := m[headerSize+8 : headerSize+8+int(n)]
	got, err := file.BinaryToSDDL(b64(sd))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := file.BinaryToSDDL(b64(full))
	if got != want {
		t.Errorf("descriptor %s, want %s", got, want)
	}

	// The owner alone: no group, no DACL.
	m = queryAfterCreate(t, c, "sec.txt", infoSecurity, 0, 4096, ownerSecurityInformation)
	sd = m[headerSize+8:]
	if binary.LittleEndian.Uint32(sd[4:]) == 0 || binary.LittleEndian.Uint32(sd[8:]) != 0 || binary.LittleEndian.Uint32(sd[16:]) != 0 {
		t.Errorf("owner query gave offsets owner %d group %d dacl %d", binary.LittleEndian.Uint32(sd[4:]), binary.LittleEndian.Uint32(sd[8:]), binary.LittleEndian.Uint32(sd[16:]))
	}

	m = queryAfterCreate(t, c, "sec.txt", infoSecurity, 0, 1, ownerSecurityInformation|groupSecurityInformation|daclSecurityInformation)
	if st := binary.LittleEndian.Uint32(m[8:]); st != statusBufferTooSmall {
		t.Fatalf("small buffer: status %#x", st)
	}
	if need := binary.LittleEndian.Uint32(m[headerSize+8:]); need != n {
		t.Errorf("small buffer: needs %d, want %d", need, n)
	}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func setInfoBody(typ, class uint8, additional uint32, id fileID, data []byte) []byte {
	b := make([]byte, 32, 32+len(data))
	binary.LittleEndian.PutUint16(b, 33)
	b[2], b[3] = typ, class
	binary.LittleEndian.PutUint32(b[4:], uint32(len(data)))
	binary.LittleEndian.PutUint16(b[8:], headerSize+32)
	binary.LittleEndian.PutUint32(b[12:], additional)
	binary.LittleEndian.PutUint64(b[16:], id.Persistent)
	binary.LittleEndian.PutUint64(b[24:], id.Volatile)
	return append(b, data...)
}

// TestSetSecurity: a security SET_INFO replaces the parts it names of the
// permission kept with the file, which a query (and Files REST) then
// reads; without WRITE_DAC access it is refused (smbtorture
// smb2.compound.related4 sets a DACL this way).
func TestSetSecurity(t *testing.T) {
	c := fuzzConn(t)
	sd, err := file.Descriptor("O:BAG:BAD:(A;;FA;;;WD)")
	if err != nil {
		t.Fatal(err)
	}
	all := uint32(ownerSecurityInformation | groupSecurityInformation | daclSecurityInformation)
	set := func(access uint32, parts uint32) []uint32 {
		return statuses(handleCompound(t, c, compound(true, false,
			testRequest(cmdCreate, 1, createBody("acl.txt", access, 3, 0)),
			testRequest(cmdSetInfo, 1, setInfoBody(infoSecurity, 0, parts, relatedFileID, sd)),
			testRequest(cmdClose, 1, closeBody(relatedFileID)))))
	}
	if st := set(0x12019f, daclSecurityInformation); st[1] != statusAccessDenied {
		t.Errorf("without WRITE_DAC: status %#x, want access denied", st[1])
	}
	// The DACL alone: the owner and group stay the default's (SYSTEM).
	if st := set(0x1f01ff, daclSecurityInformation); st[1] != statusSuccess {
		t.Fatalf("set DACL: status %#x", st[1])
	}
	m := queryAfterCreate(t, c, "acl.txt", infoSecurity, 0, 4096, all)
	n := binary.LittleEndian.Uint32(m[headerSize+4:])
	got, err := file.BinaryToSDDL(b64(m[headerSize+8 : headerSize+8+int(n)]))
	if err != nil {
		t.Fatal(err)
	}
	if got != "O:SYG:SYD:(A;;FA;;;WD)" {
		t.Errorf("after setting the DACL: %s", got)
	}
	if st := set(0x1f01ff, all); st[1] != statusSuccess {
		t.Fatalf("set all: status %#x", st[1])
	}
	m = queryAfterCreate(t, c, "acl.txt", infoSecurity, 0, 4096, all)
	n = binary.LittleEndian.Uint32(m[headerSize+4:])
	if got, _ = file.BinaryToSDDL(b64(m[headerSize+8 : headerSize+8+int(n)])); got != "O:BAG:BAD:(A;;FA;;;WD)" {
		t.Errorf("after setting all: %s", got)
	}
}

// TestCreateSecurityContext: a CREATE's security descriptor create
// context ("SecD") is the permission the created file gets (smbtorture
// smb2.create.aclfile and acldir create with one and read it back).
func TestCreateSecurityContext(t *testing.T) {
	c := fuzzConn(t)
	sd, err := file.Descriptor("O:BAG:BAD:(A;;FA;;;AU)")
	if err != nil {
		t.Fatal(err)
	}
	body := createBody("secd.txt", 0x12019f, 2, 0)
	for len(body)%8 != 0 {
		body = append(body, 0)
	}
	ctxOff := headerSize + len(body)
	ctx := make([]byte, 24, 24+len(sd))
	binary.LittleEndian.PutUint16(ctx[4:], 16) // name offset
	binary.LittleEndian.PutUint16(ctx[6:], 4)
	copy(ctx[16:], "SecD")
	binary.LittleEndian.PutUint16(ctx[10:], 24) // data offset
	binary.LittleEndian.PutUint32(ctx[12:], uint32(len(sd)))
	ctx = append(ctx, sd...)
	binary.LittleEndian.PutUint32(body[48:], uint32(ctxOff))
	binary.LittleEndian.PutUint32(body[52:], uint32(len(ctx)))
	msgs := handleCompound(t, c, compound(true, false,
		testRequest(cmdCreate, 1, append(body, ctx...)),
		testRequest(cmdQueryInfo, 1, queryInfoBody(infoSecurity, 0, 4096, ownerSecurityInformation|groupSecurityInformation|daclSecurityInformation, relatedFileID)),
		testRequest(cmdClose, 1, closeBody(relatedFileID))))
	if st := statuses(msgs); st[0] != statusSuccess || st[1] != statusSuccess {
		t.Fatalf("statuses %#x", st)
	}
	n := binary.LittleEndian.Uint32(msgs[1][headerSize+4:])
	if got, _ := file.BinaryToSDDL(b64(msgs[1][headerSize+8 : headerSize+8+int(n)])); got != "O:BAG:BAD:(A;;FA;;;AU)" {
		t.Errorf("created with %s", got)
	}
}
