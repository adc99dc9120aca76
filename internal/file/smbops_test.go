package file

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

func smbOpen(t *testing.T, s *Service, path string, o OpenRequest) *OpenResult {
	t.Helper()
	res, err := s.Open(t.Context(), Ref{Account: testAcct, Share: "s", Path: path}, o)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return res
}

// TestOpenDispositions: each disposition creates, opens or overwrites
// as SMB says, in one transaction with the handle.
func TestOpenDispositions(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	rw := HandleOptions{Access: AccessRead | AccessWrite, ShareAccess: AccessAll}
	if _, err := s.Open(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, OpenRequest{HandleOptions: rw, Disposition: OpenExisting}); !errors.Is(err, azerr.ErrResourceNotFound) {
		t.Fatalf("open a missing file: %v", err)
	}
	res := smbOpen(t, s, "f", OpenRequest{HandleOptions: rw, Disposition: CreateNew})
	if res.Action != Created || res.Node.Dir || res.Handle.FileID != res.Node.ID {
		t.Fatalf("create: %+v", res)
	}
	if _, err := s.Open(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, OpenRequest{HandleOptions: rw, Disposition: CreateNew}); !errors.Is(err, azerr.ErrResourceAlreadyExists) {
		t.Fatalf("create over a file: %v", err)
	}
	if _, err := s.WriteHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: res.Handle.FileID, HandleID: res.Handle.ID}, 0, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	again := smbOpen(t, s, "f", OpenRequest{HandleOptions: rw, Disposition: OpenOrCreate})
	if again.Action != Opened || again.Node.Size != 5 {
		t.Fatalf("open-if of an existing file: %+v", again)
	}
	over := smbOpen(t, s, "f", OpenRequest{HandleOptions: rw, Disposition: OverwriteOrCreate})
	if over.Action != Overwritten || over.Node.Size != 0 || len(read(t, s, "f", nil)) != 0 {
		t.Fatalf("overwrite: %+v", over)
	}
	if _, err := s.Open(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, OpenRequest{HandleOptions: HandleOptions{Dir: true, ShareAccess: AccessAll}, Disposition: OpenExisting}); !errors.Is(err, ErrNotDirectory) {
		t.Fatalf("a file opened as a directory: %v", err)
	}
	d := smbOpen(t, s, "d", OpenRequest{HandleOptions: HandleOptions{Dir: true, ShareAccess: AccessAll}, Disposition: OpenOrCreate})
	if !d.Node.Dir || d.Action != Created {
		t.Fatalf("mkdir: %+v", d)
	}
	if _, err := s.Open(ctx, Ref{Account: testAcct, Share: "s", Path: "d"}, OpenRequest{HandleOptions: rw, NonDir: true, Disposition: OpenExisting}); !errors.Is(err, ErrIsDirectory) {
		t.Fatalf("a directory opened as a file: %v", err)
	}
	for _, h := range []*Handle{res.Handle, again.Handle, over.Handle, d.Handle} {
		closeH(t, s, h)
	}
}

// TestOpenRespectsSharingAndReadOnly: an open that a handle's share mode
// denies fails, and so does its overwrite (which must leave the content);
// a ReadOnly file refuses write opens.
func TestOpenRespectsSharingAndReadOnly(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	mkFile(t, s, "f", 0)
	holder := smbOpen(t, s, "f", OpenRequest{HandleOptions: HandleOptions{Access: AccessRead, ShareAccess: AccessRead}, Disposition: OpenExisting})
	h, err := s.WriteHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: holder.Handle.FileID, HandleID: holder.Handle.ID}, 0, []byte("data"))
	if err != nil || h.Size != 4 {
		t.Fatalf("write through a read handle at the model level: %v", err)
	}
	if _, err := s.Open(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, OpenRequest{HandleOptions: HandleOptions{Access: AccessWrite, ShareAccess: AccessAll}, Disposition: OverwriteOrCreate}); !errors.Is(err, azerr.ErrSharingViolation) {
		t.Fatalf("overwrite beside a deny-write handle: %v", err)
	}
	if got := read(t, s, "f", nil); string(got) != "data" {
		t.Fatalf("a refused overwrite changed the file: %q", got)
	}
	closeH(t, s, holder.Handle)
	ro := "ReadOnly"
	if _, err := s.SetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, FileProperties{SMB: SMBUpdate{Attributes: ro}}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, OpenRequest{HandleOptions: HandleOptions{Access: AccessWrite, ShareAccess: AccessAll}, Disposition: OpenExisting}); !errors.Is(err, azerr.ErrReadOnlyAttribute) {
		t.Fatalf("a write open of a ReadOnly file: %v", err)
	}
	smbOpen(t, s, "f", OpenRequest{HandleOptions: HandleOptions{Access: AccessRead, ShareAccess: AccessAll}, Disposition: OpenExisting})
}

// TestHandleIO: reads and writes through a handle grow the file, read
// zeros where nothing was written, give the file a new ETag each time
// and are what REST reads; a closed handle is ErrHandleClosed.
func TestHandleIO(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	res := smbOpen(t, s, "f", OpenRequest{HandleOptions: HandleOptions{Access: AccessRead | AccessWrite, ShareAccess: AccessAll}, Disposition: OpenOrCreate})
	h := res.Handle
	n1, err := s.WriteHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, 10, []byte("world"))
	if err != nil || n1.Size != 15 || n1.Version == res.Node.Version {
		t.Fatalf("write past the end: %+v %v", n1, err)
	}
	n2, err := s.WriteHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, 0, []byte("hello"))
	if err != nil || n2.Version == n1.Version || n2.Size != 15 {
		t.Fatalf("write: %+v %v", n2, err)
	}
	want := append(append([]byte("hello"), make([]byte, 5)...), "world"...)
	if got := read(t, s, "f", nil); !bytes.Equal(got, want) {
		t.Fatalf("REST reads %q", got)
	}
	got, _, err := s.ReadHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, 3, 100)
	if err != nil || !bytes.Equal(got, want[3:]) {
		t.Fatalf("read through the handle: %q %v", got, err)
	}
	if got, _, _ := s.ReadHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, 15, 10); len(got) != 0 {
		t.Fatalf("read at the end: %q", got)
	}
	n3, err := s.TruncateHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, 4)
	if err != nil || n3.Size != 4 || string(read(t, s, "f", nil)) != "hell" {
		t.Fatalf("truncate: %v", err)
	}
	closeH(t, s, h)
	if _, err := s.WriteHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, 0, []byte("x")); !IsHandleClosed(err) {
		t.Fatalf("write through a closed handle: %v", err)
	}
	if _, _, err := s.ReadHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, 0, 1); !IsHandleClosed(err) {
		t.Fatalf("read through a closed handle: %v", err)
	}
}

// TestRenameHandle: a handle with Delete access renames its node (which
// keeps its ID and content; the handle follows it); the rename is
// refused while another handle does not share delete, while a parent
// is open denying writes, and for a directory with something open
// beneath it.
func TestRenameHandle(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	dirOpts := OpenRequest{HandleOptions: HandleOptions{Dir: true, ShareAccess: AccessAll}, Disposition: OpenOrCreate}
	closeH(t, s, smbOpen(t, s, "d", dirOpts).Handle)
	del := HandleOptions{Access: AccessDelete | AccessRead, ShareAccess: AccessAll}
	res := smbOpen(t, s, "d/a", OpenRequest{HandleOptions: del, Disposition: OpenOrCreate})
	h := res.Handle
	if _, err := s.WriteHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, 0, []byte("abc")); err != nil {
		t.Fatal(err)
	}
	// An attribute-only open that does not share delete blocks it.
	other := open(t, s, "d/a", HandleOptions{})
	if _, err := s.RenameHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, "d/b", RenameHandleOptions{}); !errors.Is(err, azerr.ErrSharingViolation) {
		t.Fatalf("rename beside a handle not sharing delete: %v", err)
	}
	closeH(t, s, other)
	parent := open(t, s, "d", HandleOptions{Dir: true, Access: AccessRead, ShareAccess: AccessRead | AccessDelete})
	if _, err := s.RenameHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, "d/b", RenameHandleOptions{}); !errors.Is(err, azerr.ErrSharingViolation) {
		t.Fatalf("rename while the parent is open denying writes: %v", err)
	}
	closeH(t, s, parent)
	n, err := s.RenameHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, "b", RenameHandleOptions{})
	if err != nil || n.ID != h.FileID {
		t.Fatalf("rename: %v", err)
	}
	if string(read(t, s, "b", nil)) != "abc" {
		t.Fatal("content lost in the rename")
	}
	if _, err := s.WriteHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, 3, []byte("d")); err != nil || string(read(t, s, "b", nil)) != "abcd" {
		t.Fatalf("the handle does not follow its node: %v", err)
	}
	// A directory with an open file beneath it does not move.
	dh := smbOpen(t, s, "d", OpenRequest{HandleOptions: HandleOptions{Dir: true, Access: AccessDelete, ShareAccess: AccessAll}, Disposition: OpenExisting}).Handle
	inner := smbOpen(t, s, "d/x", OpenRequest{HandleOptions: HandleOptions{Access: AccessRead, ShareAccess: AccessAll}, Disposition: OpenOrCreate}).Handle
	if _, err := s.RenameHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: dh.FileID, HandleID: dh.ID}, "e", RenameHandleOptions{}); !errors.Is(err, ErrOpenBeneath) {
		t.Fatalf("rename of a directory with an open file beneath: %v", err)
	}
	if _, err := s.RenameHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: dh.FileID, HandleID: dh.ID}, "d/sub", RenameHandleOptions{}); err == nil {
		t.Fatal("a directory moved into itself")
	}
	closeH(t, s, inner)
	if _, err := s.RenameHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: dh.FileID, HandleID: dh.ID}, "b", RenameHandleOptions{}); !errors.Is(err, azerr.ErrResourceAlreadyExists) {
		t.Fatalf("rename onto an existing name without replace: %v", err)
	}
	if _, err := s.RenameHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: dh.FileID, HandleID: dh.ID}, "e", RenameHandleOptions{}); err != nil {
		t.Fatal(err)
	}
	closeH(t, s, dh)
	closeH(t, s, h)
	if _, err := s.GetDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "e"}, Preconditions{}); err != nil {
		t.Fatalf("the renamed directory: %v", err)
	}
}

// TestListHandleDirectory pages a directory through a handle, keeping
// delete-pending entries (as NTFS does until their last close).
func TestListHandleDirectory(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	for _, name := range []string{"a", "b", "c"} {
		mkFile(t, s, name, 1)
	}
	pending := open(t, s, "b", HandleOptions{Access: AccessDelete, ShareAccess: AccessAll, DeleteOnClose: true})
	root := open(t, s, "", HandleOptions{Dir: true, Access: AccessRead, ShareAccess: AccessAll})
	var names []string
	marker := ""
	for {
		_, entries, next, err := s.ListHandleDirectory(ctx, HandleRef{Account: testAcct, Share: "s", FileID: root.FileID, HandleID: root.ID}, marker, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			names = append(names, e.Name)
		}
		if next == "" {
			break
		}
		marker = next
	}
	if len(names) != 3 || names[0] != "a" || names[1] != "b" || names[2] != "c" {
		t.Fatalf("listed %v, want [a b c]", names)
	}
	closeH(t, s, pending)
	closeH(t, s, root)
	if _, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "b"}, Preconditions{}); !errors.Is(err, azerr.ErrResourceNotFound) {
		t.Fatalf("the delete-pending file after its close: %v", err)
	}
}
