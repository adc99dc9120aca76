package smbclient_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/cerulean-db/cerulean/internal/smb/smbtest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// statusObjectNameCollision is STATUS_OBJECT_NAME_COLLISION: a create
// that must make a new entry found one of that name.
const statusObjectNameCollision uint32 = 0xC0000035

// restNames lists a directory's entries over REST, as stored.
func (f *fixture) restNames(t *testing.T, dir string) []string {
	t.Helper()
	dc := f.share.NewRootDirectoryClient()
	if dir != "" {
		dc = f.share.NewDirectoryClient(dir)
	}
	return testkit.DirectoryNames(t, dc)
}

// renameInfo is a FILE_RENAME_INFORMATION (SMB2 form) naming dest from
// the share's root.
func renameInfo(dest string, replace bool) []byte {
	name := utf16.Encode([]rune(dest))
	b := make([]byte, 20+2*len(name))
	if replace {
		b[0] = 1
	}
	binary.LittleEndian.PutUint32(b[16:], uint32(2*len(name)))
	for i, u := range name {
		binary.LittleEndian.PutUint16(b[20+2*i:], u)
	}
	return b
}

// TestSMBNamesIgnoreCase: over SMB as over REST, names are
// case-insensitive and case-preserving: a CREATE naming a file in another
// case opens the same file, so share modes and byte-range locks apply
// across cases; a CREATE that must make a new entry meets one differing
// only in case as a collision; a rename changing only case stores the
// new case, which REST then lists.
func TestSMBNamesIgnoreCase(t *testing.T) {
	f := restFixture(t)
	a, b := f.dial(t), f.dial(t)
	f.restWrite(t, "Case.bin", []byte("0123456789"))

	ida := f.open(t, a, "CASE.BIN", smbtest.ReadData|smbtest.WriteData, smbtest.ShareRead|smbtest.ShareWrite, smbtest.Open, 0)
	if data, st, err := a.Read(ida, 0, 10); err != nil || st != 0 || string(data) != "0123456789" {
		t.Fatalf("read through an open in another case: %q %#x %v", data, st, err)
	}
	// The open shares no delete: an open for delete in a third case is a
	// sharing violation, as it would be by the same name.
	if _, st, err := b.Create("case.BIN", smbtest.Delete, smbtest.ShareAll, smbtest.Open, 0); err != nil || st != smbtest.StatusSharingViolation {
		t.Errorf("an open for delete in another case: %#x %v, want STATUS_SHARING_VIOLATION", st, err)
	}
	idb := f.open(t, b, "case.bin", smbtest.ReadData|smbtest.WriteData, smbtest.ShareRead|smbtest.ShareWrite, smbtest.Open, 0)
	if st, _ := a.Lock(ida, 0, 4, smbtest.LockExclusive|smbtest.FailNow); st != 0 {
		t.Fatalf("lock: %#x", st)
	}
	if _, st, _ := b.Read(idb, 0, 4); st != smbtest.StatusFileLockConflict {
		t.Errorf("read under a lock taken through another case: %#x, want STATUS_FILE_LOCK_CONFLICT", st)
	}
	if st, _ := b.Lock(idb, 2, 4, smbtest.LockShared|smbtest.FailNow); st != smbtest.StatusLockNotGranted {
		t.Errorf("lock over a lock taken through another case: %#x, want STATUS_LOCK_NOT_GRANTED", st)
	}
	for _, c := range []*smbtest.Client{a, b} {
		id := ida
		if c == b {
			id = idb
		}
		if st, _ := c.CloseFile(id); st != 0 {
			t.Fatalf("close: %#x", st)
		}
	}

	if _, st, err := a.Create("case.bin", smbtest.ReadData, smbtest.ShareAll, smbtest.CreateNew, 0); err != nil || st != statusObjectNameCollision {
		t.Errorf("create-new in another case: %#x %v, want STATUS_OBJECT_NAME_COLLISION", st, err)
	}
	if _, err := f.share.NewDirectoryClient("Sub").Create(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if _, st, err := a.Create("SUB", smbtest.ReadData, smbtest.ShareAll, smbtest.CreateNew, smbtest.OptDirectory); err != nil || st != statusObjectNameCollision {
		t.Errorf("mkdir in another case: %#x %v, want STATUS_OBJECT_NAME_COLLISION", st, err)
	}

	// A rename changing only case.
	id := f.open(t, a, "case.bin", smbtest.Delete|smbtest.ReadAttrs, smbtest.ShareAll, smbtest.Open, 0)
	if st, err := a.SetInfo(id, 1, 10, 0, renameInfo("CASE.bin", false)); err != nil || st != 0 {
		t.Fatalf("rename to another case: %#x %v", st, err)
	}
	if st, _ := a.CloseFile(id); st != 0 {
		t.Fatalf("close: %#x", st)
	}
	if got := f.restNames(t, ""); !slices.Equal(got, []string{"Sub", "CASE.bin"}) {
		t.Errorf("REST lists %v after the SMB rename to CASE.bin", got)
	}
	if got := string(f.restRead(t, "case.BIN")); got != "0123456789" {
		t.Errorf("REST reads %q in another case after the rename", got)
	}
}

// TestSmbclientNamesIgnoreCase: Samba's smbclient finds a file REST
// created in another case, lists the stored case, cannot make a
// directory beside one differing only in case, and renames changing only
// case.
func TestSmbclientNamesIgnoreCase(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	if _, err := f.share.NewDirectoryClient("Docs").Create(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	f.restWrite(t, "Docs/Readme.TXT", []byte("read me"))
	f.smb(t, "SMB3", dir, "cd DOCS; get README.txt got.txt")
	if got, err := os.ReadFile(filepath.Join(dir, "got.txt")); err != nil || string(got) != "read me" {
		t.Fatalf("smbclient got %q through another case: %v", got, err)
	}
	if out := f.smb(t, "SMB3", dir, "cd docs; ls"); !strings.Contains(out, "Readme.TXT") {
		t.Errorf("ls does not show the stored case Readme.TXT:\n%s", out)
	}
	out, _ := f.smbAs(t, "SMB3", f.env.Account, f.env.Key, dir, "mkdir DOCS")
	if !strings.Contains(out, "NT_STATUS_OBJECT_NAME_COLLISION") {
		t.Errorf("mkdir DOCS beside Docs:\n%s\nwant NT_STATUS_OBJECT_NAME_COLLISION", out)
	}
	f.smb(t, "SMB3", dir, "rename Docs docs")
	if got := f.restNames(t, ""); !slices.Equal(got, []string{"docs"}) {
		t.Errorf("REST lists %v after smbclient renamed Docs to docs", got)
	}
}
