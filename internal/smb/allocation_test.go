package smb

import (
	"testing"

	"github.com/cerulean-db/cerulean/internal/smb/smbtest"
)

// TestAllocationKeptWhileOpen: the allocation size a CREATE or
// FileAllocationInformation sets is reported (in whole clusters) while
// the file is open, through a write that fits it, and given back when
// the last handle closes, as NTFS does; one below the size cuts the file.
func TestAllocationKeptWhileOpen(t *testing.T) {
	_, addr := serve(t, Limits{})
	c := dial(t, addr)
	sizes := func(id smbtest.FileID) (alloc, eof uint64) {
		t.Helper()
		b, st, err := c.QueryInfo(id, infoFile, fileStandardInformation, 0, 24)
		if err != nil || st != 0 || len(b) < 16 {
			t.Fatalf("standard information: %#x %v", st, err)
		}
		return le.Uint64(b), le.Uint64(b[8:])
	}
	check := func(what string, id smbtest.FileID, alloc, eof uint64) {
		t.Helper()
		if a, e := sizes(id); a != alloc || e != eof {
			t.Errorf("%s: allocation %#x, end of file %#x; want %#x, %#x", what, a, e, alloc, eof)
		}
	}
	rw := smbtest.ReadData | smbtest.WriteData
	first, st, err := c.CreateWith("alloc.txt", smbtest.OpenSpec{Access: rw, Share: smbtest.ShareAll, Disposition: smbtest.OverwriteIf, Allocation: 10000})
	if err != nil || st != 0 {
		t.Fatalf("create: %#x %v", st, err)
	}
	check("created with 10000 reserved", first.FileID, 0x3000, 0)
	if st, err := c.Write(first.FileID, 0, []byte("x")); err != nil || st != 0 {
		t.Fatalf("write: %#x %v", st, err)
	}
	check("after a write within it", first.FileID, 0x3000, 1)
	set := func(id smbtest.FileID, n uint64) {
		t.Helper()
		if st, err := c.SetInfo(id, infoFile, fileAllocationInformation, 0, le.AppendUint64(nil, n)); err != nil || st != 0 {
			t.Fatalf("set allocation %d: %#x %v", n, st, err)
		}
	}
	set(first.FileID, 20000)
	check("set to 20000", first.FileID, 0x5000, 1)

	second, st, err := c.CreateWith("alloc.txt", smbtest.OpenSpec{Access: rw, Share: smbtest.ShareAll, Disposition: smbtest.Open})
	if err != nil || st != 0 {
		t.Fatalf("second open: %#x %v", st, err)
	}
	if st, err := c.CloseFile(first.FileID); err != nil || st != 0 {
		t.Fatal(st, err)
	}
	check("another handle still open", second.FileID, 0x5000, 1)
	if st, err := c.CloseFile(second.FileID); err != nil || st != 0 {
		t.Fatal(st, err)
	}
	again, st, err := c.CreateWith("alloc.txt", smbtest.OpenSpec{Access: rw, Share: smbtest.ShareAll, Disposition: smbtest.Open, Allocation: 40000})
	if err != nil || st != 0 {
		t.Fatalf("reopen: %#x %v", st, err)
	}
	check("after the last close (an open of an existing file reserves nothing)", again.FileID, 0x1000, 1)
	set(again.FileID, 20000)
	set(again.FileID, 0)
	check("set below the size", again.FileID, 0, 0)
}
