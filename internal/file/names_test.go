package file

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

func TestNameKey(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"file name.txt", "FILE NAME.TXT"},
		{"FILE NAME.TXT", "FILE NAME.TXT"},
		{"a_b", "A_B"},
		{"straße", "STRAßE"},         // ß has no one-character uppercase
		{"ıi", "II"},                 // dotless and dotted i upcase alike
		{"σς", "ΣΣ"},                 // both sigmas
		{"\u212a", "\u212a"},         // the Kelvin sign is its own uppercase
		{"ÿ", "Ÿ"},                   // outside Latin-1 once upcased
		{"\U00010428", "\U00010428"}, // beyond the BMP NTFS upcases nothing
		{"dir/sub", "DIR/SUB"},
	} {
		if got := nameKey(tc.name); got != tc.want {
			t.Errorf("nameKey(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func listNames(t *testing.T, s *Service, path string, o ListDirectoryOptions) []string {
	t.Helper()
	if o.Max == 0 {
		o.Max = 5000
	}
	var names []string
	for {
		l, err := s.ListDirectory(t.Context(), Ref{Account: testAcct, Share: "s", Path: path}, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range l.Entries {
			names = append(names, e.Name)
		}
		if o.Marker = l.NextMarker; o.Marker == "" {
			return names
		}
	}
}

func mkdir(t *testing.T, s *Service, path string) *Node {
	t.Helper()
	n, err := s.CreateDirectory(t.Context(), Ref{Account: testAcct, Share: "s", Path: path}, SMBChange{}, nil)
	if err != nil {
		t.Fatalf("create directory %s: %v", path, err)
	}
	return n
}

// TestNamesAreCaseInsensitive: a name in any case finds the entry stored
// in another; a directory cannot be created beside (or over) an entry
// whose name differs only in case; a file created in another case
// replaces the file's content and keeps its stored name, as Azure Files
// does (microsoft/AzureStorageExplorer issue 5211: uploading TEST.txt
// over test.txt leaves test.txt, with the new content).
func TestNamesAreCaseInsensitive(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	ref := func(p string) Ref { return Ref{Account: testAcct, Share: "s", Path: p} }
	dir := mkdir(t, s, "SubDir")
	f := mkFile(t, s, "subdir/file name.txt", 3)
	put(t, s, "SUBDIR/FILE NAME.TXT", 0, []byte("abc"))
	if got := string(read(t, s, "Subdir/File Name.Txt", nil)); got != "abc" {
		t.Fatalf("read in another case: %q", got)
	}
	if n, err := s.GetDirectory(ctx, ref("SUBDIR"), Preconditions{}); err != nil || n.ID != dir.ID || n.Name != "SubDir" {
		t.Fatalf("directory in another case: %+v, %v", n, err)
	}
	for _, p := range []string{"subdir", "SUBDIR"} {
		if _, err := s.CreateDirectory(ctx, ref(p), SMBChange{}, nil); !errors.Is(err, azerr.ErrResourceAlreadyExists) {
			t.Fatalf("create directory %s: %v, want ResourceAlreadyExists", p, err)
		}
	}
	// Over a file it is another type of resource.
	if _, err := s.CreateDirectory(ctx, ref("subdir/FILE NAME.TXT"), SMBChange{}, nil); !errors.Is(err, azerr.ErrResourceTypeMismatch) {
		t.Fatalf("create directory over a file in another case: %v, want ResourceTypeMismatch", err)
	}
	if _, err := s.CreateFile(ctx, ref("SUBDIR"), CreateFileOptions{}); !errors.Is(err, azerr.ErrResourceAlreadyExists) {
		t.Fatalf("create a file over a directory in another case: %v, want ResourceAlreadyExists", err)
	}
	g, err := s.CreateFile(ctx, ref("SUBDIR/File Name.TXT"), CreateFileOptions{Size: 5})
	if err != nil {
		t.Fatal(err)
	}
	if g.ID != f.ID || g.Name != "file name.txt" || g.Size != 5 {
		t.Fatalf("file created over another case: %+v, want ID %d named %q sized 5", g, f.ID, "file name.txt")
	}
	if got := listNames(t, s, "subdir", ListDirectoryOptions{}); !slices.Equal(got, []string{"file name.txt"}) {
		t.Fatalf("listing %v", got)
	}
	if got := listNames(t, s, "", ListDirectoryOptions{}); !slices.Equal(got, []string{"SubDir"}) {
		t.Fatalf("root listing %v", got)
	}
	if err := s.DeleteFile(ctx, ref("SubDir/FILE NAME.txt"), Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDirectory(ctx, ref("subDIR"), Preconditions{}); err != nil {
		t.Fatal(err)
	}
}

// TestListingOrderIgnoresCase: entries list in the order of their
// uppercase names (the Go SDK recording TestListDirsAndFiles lists
// lol.file before SomeDirectory), prefixes match in any case, and a
// page's next marker is the next entry's stored name.
func TestListingOrderIgnoresCase(t *testing.T) {
	s, _ := newTestService(t)
	mkdir(t, s, "SomeDirectory")
	for _, n := range []string{"lol.file", "b", "AAB", "A_B"} {
		mkFile(t, s, n, 0)
	}
	want := []string{"AAB", "A_B", "b", "lol.file", "SomeDirectory"}
	if got := listNames(t, s, "", ListDirectoryOptions{}); !slices.Equal(got, want) {
		t.Fatalf("listed %v, want %v", got, want)
	}
	if got := listNames(t, s, "", ListDirectoryOptions{Max: 2}); !slices.Equal(got, want) {
		t.Fatalf("listed by pages %v, want %v", got, want)
	}
	l, err := s.ListDirectory(t.Context(), Ref{Account: testAcct, Share: "s"}, ListDirectoryOptions{Max: 3})
	if err != nil || l.NextMarker != "lol.file" {
		t.Fatalf("next marker %q, %v", l.NextMarker, err)
	}
	if got := listNames(t, s, "", ListDirectoryOptions{Marker: "LOL.FILE"}); !slices.Equal(got, want[3:]) {
		t.Fatalf("from a marker in another case: %v", got)
	}
	for prefix, want := range map[string][]string{"some": {"SomeDirectory"}, "A": {"AAB", "A_B"}, "a_": {"A_B"}, "LOL": {"lol.file"}} {
		if got := listNames(t, s, "", ListDirectoryOptions{Prefix: prefix}); !slices.Equal(got, want) {
			t.Errorf("prefix %q: %v, want %v", prefix, got, want)
		}
	}
}

// TestRenameChangesCase: renaming an entry to its own name in another
// case stores the new case, and either case finds it afterwards.
func TestRenameChangesCase(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	ref := func(p string) Ref { return Ref{Account: testAcct, Share: "s", Path: p} }
	dir := mkdir(t, s, "SUBDIRA")
	f := mkFile(t, s, "SUBDIRA/hello.txt", 1)
	n, err := s.Rename(ctx, ShareRef{Account: testAcct, Share: "s"}, Rename{Source: "SUBDIRA", Dest: "subdira", Dir: true})
	if err != nil || n.ID != dir.ID || n.Name != "subdira" {
		t.Fatalf("rename to another case: %+v, %v", n, err)
	}
	if got := listNames(t, s, "", ListDirectoryOptions{}); !slices.Equal(got, []string{"subdira"}) {
		t.Fatalf("listing after the rename: %v", got)
	}
	for _, p := range []string{"SUBDIRA/HELLO.TXT", "subdira/hello.txt"} {
		if g, err := s.GetFileProperties(ctx, ref(p), Preconditions{}); err != nil || g.ID != f.ID {
			t.Fatalf("%s after the rename: %+v, %v", p, g, err)
		}
	}
	// A file too, without being told it may replace (it replaces nothing).
	if n, err := s.Rename(ctx, ShareRef{Account: testAcct, Share: "s"}, Rename{Source: "subdira/hello.txt", Dest: "SubDirA/Hello.TXT"}); err != nil || n.ID != f.ID {
		t.Fatalf("rename a file to another case: %+v, %v", n, err)
	}
	if got := listNames(t, s, "SUBDIRA", ListDirectoryOptions{}); !slices.Equal(got, []string{"Hello.TXT"}) {
		t.Fatalf("listing after the file's rename: %v", got)
	}
	if _, err := s.Rename(ctx, ShareRef{Account: testAcct, Share: "s"}, Rename{Source: "subdira", Dest: "SUBDIRA/inner", Dir: true}); !errors.Is(err, azerr.ErrInvalidInput) {
		t.Fatalf("move into its own subtree named in another case: %v, want InvalidInput", err)
	}
	// Another entry whose name differs only in case is in the way as
	// the same name would be.
	mkFile(t, s, "other.txt", 0)
	if _, err := s.Rename(ctx, ShareRef{Account: testAcct, Share: "s"}, Rename{Source: "other.txt", Dest: "SUBDIRA/HELLO.txt"}); !errors.Is(err, azerr.ErrResourceAlreadyExists) {
		t.Fatalf("rename onto another file in another case: %v, want ResourceAlreadyExists", err)
	}
}

// TestHandleRenameChangesCase: an SMB rename changing only case stores
// the new case, and the handles open on the node follow its name (the
// invariant check at the end compares them).
func TestHandleRenameChangesCase(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	f := mkFile(t, s, "f.txt", 0)
	h := open(t, s, "F.TXT", HandleOptions{Access: AccessAll, ShareAccess: AccessAll})
	other := open(t, s, "f.TXT", HandleOptions{Access: AccessRead, ShareAccess: AccessAll})
	if h.FileID != f.ID || other.FileID != f.ID {
		t.Fatalf("opens in other cases opened %d and %d, want %d", h.FileID, other.FileID, f.ID)
	}
	if _, err := s.OpenHandle(ctx, Ref{Account: testAcct, Share: "s", Path: "F.txt"}, HandleOptions{Access: AccessWrite, ShareAccess: AccessAll &^ AccessWrite}); err == nil {
		t.Fatal("an open denying write beside a handle that writes, in another case, succeeded")
	}
	n, err := s.RenameHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, "F.Txt", RenameHandleOptions{})
	if err != nil || n.Name != "F.Txt" || n.Path != "F.Txt" {
		t.Fatalf("rename through a handle: %+v, %v", n, err)
	}
	if got := listNames(t, s, "", ListDirectoryOptions{}); !slices.Equal(got, []string{"F.Txt"}) {
		t.Fatalf("listing %v", got)
	}
	closeH(t, s, other)
	closeH(t, s, h)

	// An open reports the path as stored (FileNormalizedNameInformation),
	// and a rename into a directory named in another case keeps the
	// directory's stored case.
	mkdir(t, s, "Dir")
	res := smbOpen(t, s, "f.txt", OpenRequest{HandleOptions: HandleOptions{Access: AccessAll, ShareAccess: AccessAll}, Disposition: OpenExisting})
	if res.Path != "F.Txt" {
		t.Errorf("open of f.txt reports %q, want the stored F.Txt", res.Path)
	}
	moved, err := s.RenameHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: res.Handle.FileID, HandleID: res.Handle.ID}, "dIR/g.txt", RenameHandleOptions{})
	if err != nil || moved.Path != "Dir/g.txt" {
		t.Fatalf("rename into dIR: %+v, %v", moved, err)
	}
	if again := smbOpen(t, s, "DIR/G.TXT", OpenRequest{HandleOptions: HandleOptions{Access: AccessRead, ShareAccess: AccessAll}, Disposition: OpenExisting}); again.Path != "Dir/g.txt" {
		t.Errorf("open of DIR/G.TXT reports %q, want Dir/g.txt", again.Path)
	}
}

// legacyNodeKey is where a release before case-insensitive names kept a
// directory entry.
func legacyNodeKey(share string, parent uint64, name string) tuple.Key {
	return accountKey(testAcct).Raw(legacyNodesTag).Str(share).Uint(parent).Str(name)
}

// TestUpgradeLegacyNames: entries of the layout before case-insensitive
// names move to folded keys with their names recorded; of two whose
// names differ only in case, the second in byte order is renamed, its
// handles following; one transaction per entry stands for a crash
// between any two, and a second run changes nothing.
func TestUpgradeLegacyNames(t *testing.T) {
	_, store := newTestService(t)
	ctx := t.Context()
	const docs, first, second = 100, 101, 102
	err := store.Update(ctx, func(tx kv.Txn) error {
		for _, e := range []struct {
			parent uint64
			name   string
			n      Node
		}{
			{rootID, "Docs", Node{ID: docs, Dir: true, SMB: SMB{Attributes: "Directory"}}},
			{docs, "Readme.md", Node{ID: first, ParentID: docs, SMB: SMB{Attributes: "Archive"}}},
			{docs, "readme.md", Node{ID: second, ParentID: docs, SMB: SMB{Attributes: "Archive"}}},
		} {
			if err := record.Store(tx, legacyNodeKey("s", e.parent, e.name), &e.n); err != nil {
				return err
			}
		}
		return record.Store(tx, handleKey(testAcct, "s", second, 7), &Handle{ID: 7, FileID: second, ParentID: docs, Name: "readme.md", Access: AccessRead, ShareAccess: AccessAll})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckInvariants(ctx, store); err == nil || !strings.Contains(err.Error(), "upgrade to case-insensitive names") {
		t.Fatalf("invariants before the upgrade: %v, want legacy entries named", err)
	}

	defer func(b int) { upgradeBatchBytes = b }(upgradeBatchBytes)
	upgradeBatchBytes = 1
	// One entry moved, then the process stops.
	if err := store.Update(ctx, func(tx kv.Txn) error {
		m, _, err := upgradeBatch(tx, testAcct)
		if err == nil && m != 1 {
			t.Errorf("one batch moved %d entries, want 1", m)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	s := New(Config{Store: store})
	if got := listNames(t, s, "DOCS", ListDirectoryOptions{}); !slices.Equal(got, []string{"Readme.md", "readme.md (case conflict 1)"}) {
		t.Fatalf("upgraded listing %v", got)
	}
	if n, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "docs/README.MD"}, Preconditions{}); err != nil || n.ID != first {
		t.Fatalf("lookup in another case after the upgrade: %+v, %v", n, err)
	}
	if err := CheckInvariants(ctx, store); err != nil {
		t.Fatalf("after the upgrade: %v", err)
	}
	if moved, renamed, err := upgradeNames(ctx, store); moved != 0 || renamed != 0 || err != nil {
		t.Fatalf("second upgrade moved %d, renamed %d: %v", moved, renamed, err)
	}
	if err := s.CloseHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: second, HandleID: 7}); err != nil {
		t.Fatalf("closing the renamed file's handle: %v", err)
	}
}

// TestListHandlesPagesInFoldOrder: List Handles walks a directory in its
// entries' fold order, and its markers resume in that order, where byte
// order would put "Zed" before "apple" and list a handle twice or never.
func TestListHandlesPagesInFoldOrder(t *testing.T) {
	s, _ := newTestService(t)
	for _, n := range []string{"Zed", "apple", "Mid"} {
		mkFile(t, s, n, 0)
		open(t, s, n, HandleOptions{Access: AccessRead, ShareAccess: AccessAll})
	}
	var paths []string
	marker := ""
	for page := 0; ; page++ {
		if page > 5 {
			t.Fatalf("still paging after %v", paths)
		}
		l, err := s.ListHandles(t.Context(), Ref{Account: testAcct, Share: "s"}, ListHandlesOptions{Recursive: true, Marker: marker, Max: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range l.Handles {
			paths = append(paths, h.Path)
		}
		if marker = l.NextMarker; marker == "" {
			break
		}
	}
	if want := []string{"apple", "Mid", "Zed"}; !slices.Equal(paths, want) {
		t.Fatalf("handles listed on %v, want %v", paths, want)
	}
}
