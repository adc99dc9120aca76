package file

import (
	"errors"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/lease"
)

const (
	r, w, d = AccessRead, AccessWrite, AccessDelete
)

func mkFile(t *testing.T, s *Service, path string, size int64) *Node {
	t.Helper()
	n, err := s.CreateFile(t.Context(), Ref{Account: testAcct, Share: "s", Path: path}, CreateFileOptions{Size: size})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func open(t *testing.T, s *Service, path string, o HandleOptions) *Handle {
	t.Helper()
	h, err := s.OpenHandle(t.Context(), Ref{Account: testAcct, Share: "s", Path: path}, o)
	if err != nil {
		t.Fatalf("open %s %+v: %v", path, o, err)
	}
	return h
}

func closeH(t *testing.T, s *Service, h *Handle) {
	t.Helper()
	if err := s.CloseHandle(t.Context(), HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}); err != nil {
		t.Fatalf("close handle %d: %v", h.ID, err)
	}
}

// TestOpenSharingRules: a second open fails when the first handle's share
// mode denies its access, or its share mode denies the first handle's
// access (the examples of Azure's "Manage file locks"), and succeeds once
// the first handle closes.
func TestOpenSharingRules(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		a, aShare, b, bShare Access
		conflict             bool
	}{
		{"read+share write, then write+share read", r, w, w, r, false},
		{"write+share read, then write+share write (access denied)", w, r, w, w, true},
		{"write+share write, then write+share read (share mode denies)", w, w, w, r, true},
		{"no access never conflicts", 0, 0, 0, 0, false},
		{"attribute-only open beside an exclusive one", r | w | d, 0, 0, 0, false},
		{"delete needs share delete", r, r | w, d, AccessAll, true},
		{"all shared", r | w | d, AccessAll, r | w | d, AccessAll, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTestService(t)
			mkFile(t, s, "f", 1)
			first := open(t, s, "f", HandleOptions{Access: tc.a, ShareAccess: tc.aShare})
			_, err := s.OpenHandle(t.Context(), Ref{Account: testAcct, Share: "s", Path: "f"}, HandleOptions{Access: tc.b, ShareAccess: tc.bShare})
			if tc.conflict != errors.Is(err, azerr.ErrSharingViolation) || (!tc.conflict && err != nil) {
				t.Fatalf("second open: %v, want conflict %v", err, tc.conflict)
			}
			closeH(t, s, first)
			if tc.conflict {
				open(t, s, "f", HandleOptions{Access: tc.b, ShareAccess: tc.bShare})
			}
		})
	}
}

// TestRESTAgainstHandles: each FileREST operation needs the access
// Azure's table gives it, deletes need no handle at all, and operations
// that touch no content pass whatever the share mode.
func TestRESTAgainstHandles(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	mkFile(t, s, "f", 4)
	ops := map[string]func() error{
		"get file": func() error {
			return s.GetFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, GetFileOptions{}, func(*Download) error { return nil })
		},
		"list ranges": func() error {
			_, err := s.ListRanges(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, nil, Preconditions{})
			return err
		},
		"put range": func() error {
			_, err := s.PutRange(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, 0, contentOf("ab"), Preconditions{})
			return err
		},
		"set metadata": func() error {
			_, err := s.SetFileMetadata(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, nil, Preconditions{})
			return err
		},
		"get properties": func() error {
			_, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, Preconditions{})
			return err
		},
	}
	// A handle sharing nothing but reads: reads pass, writes fail.
	writes := map[string]bool{"put range": true, "set metadata": true}
	h := open(t, s, "f", HandleOptions{Access: r, ShareAccess: r})
	for name, op := range ops {
		err := op()
		if writes[name] != errors.Is(err, azerr.ErrSharingViolation) || (!writes[name] && err != nil) {
			t.Errorf("%s beside a share-read handle: %v, want SharingViolation %v", name, err, writes[name])
		}
	}
	if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, CreateFileOptions{Size: 4}); !errors.Is(err, azerr.ErrSharingViolation) {
		t.Errorf("create over the file: %v, want SharingViolation", err)
	}
	closeH(t, s, h)
	// Sharing everything: only delete fails.
	h = open(t, s, "f", HandleOptions{Access: r | w, ShareAccess: AccessAll})
	for name, op := range ops {
		if err := op(); err != nil {
			t.Errorf("%s beside a handle sharing everything: %v", name, err)
		}
	}
	if err := s.DeleteFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, Preconditions{}); !errors.Is(err, azerr.ErrSharingViolation) {
		t.Errorf("delete with a handle open: %v, want SharingViolation", err)
	}
	// Create File over the file keeps its ID, so the handle stays open
	// on it and closes by the ID it was opened with.
	n := mkFile(t, s, "f", 8)
	l, err := s.ListHandles(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, ListHandlesOptions{Max: 10})
	if err != nil || len(l.Handles) != 1 || n.ID != h.FileID || l.Handles[0].FileID != h.FileID {
		t.Fatalf("handles after replace: %+v %v, want one on file %d (the file now %d)", l, err, h.FileID, n.ID)
	}
	closeH(t, s, h)
	if err := s.DeleteFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, Preconditions{}); err != nil {
		t.Fatalf("delete once closed: %v", err)
	}
}

func contentOf(s string) Content {
	return Content{Body: strings.NewReader(s), Length: int64(len(s))}
}

// TestReadOnlyAttribute: a ReadOnly file refuses writes with 412
// ReadOnlyAttribute but may be read and deleted.
func TestReadOnlyAttribute(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, CreateFileOptions{Size: 4, SMB: SMBChange{Attributes: "ReadOnly | Archive"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetFileMetadata(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, nil, Preconditions{}); !errors.Is(err, azerr.ErrReadOnlyAttribute) {
		t.Errorf("set metadata: %v", err)
	}
	if _, err := s.PutRange(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, 0, contentOf("x"), Preconditions{}); !errors.Is(err, azerr.ErrReadOnlyAttribute) {
		t.Errorf("put range: %v", err)
	}
	if _, err := s.ClearRange(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, 0, 1, Preconditions{}); !errors.Is(err, azerr.ErrReadOnlyAttribute) {
		t.Errorf("clear range: %v", err)
	}
	if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, CreateFileOptions{Size: 4}); !errors.Is(err, azerr.ErrReadOnlyAttribute) {
		t.Errorf("create over it: %v", err)
	}
	if azerr.ErrReadOnlyAttribute.Status != 412 {
		t.Errorf("ReadOnlyAttribute status %d, want 412", azerr.ErrReadOnlyAttribute.Status)
	}
	read(t, s, "f", nil)
	h := open(t, s, "f", HandleOptions{Access: d, ShareAccess: AccessAll})
	if err := s.SetDeleteOnClose(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, DeleteOnCloseOptions{DeleteOnClose: true}); !errors.Is(err, azerr.ErrReadOnlyAttribute) {
		t.Errorf("delete-on-close of a read-only file: %v", err)
	}
	closeH(t, s, h)
	if err := s.DeleteFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, Preconditions{}); err != nil {
		t.Errorf("delete: %v", err)
	}
}

// TestDeleteOnClose: a delete-pending file answers DeletePending to
// FileREST and new opens, is left out of listings, and goes, content and
// all, when its last handle closes; clearing the disposition keeps it.
func TestDeleteOnClose(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	f := mkFile(t, s, "f", 8)
	put(t, s, "f", 0, []byte("content!"))
	mkFile(t, s, "g", 1)
	other := open(t, s, "f", HandleOptions{Access: r, ShareAccess: AccessAll})
	del := open(t, s, "f", HandleOptions{Access: d, ShareAccess: AccessAll, DeleteOnClose: true})
	if _, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, Preconditions{}); !errors.Is(err, azerr.ErrDeletePending) {
		t.Fatalf("get properties: %v, want DeletePending", err)
	}
	if _, err := s.OpenHandle(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, HandleOptions{ShareAccess: AccessAll}); !errors.Is(err, azerr.ErrDeletePending) {
		t.Fatalf("open: %v, want DeletePending", err)
	}
	if _, err := s.LeaseFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, lease.Request{Action: lease.Acquire}); !errors.Is(err, azerr.ErrDeletePending) {
		t.Fatalf("lease: %v, want DeletePending", err)
	}
	l, err := s.ListDirectory(ctx, Ref{Account: testAcct, Share: "s"}, ListDirectoryOptions{Max: 10})
	if err != nil || len(l.Entries) != 1 || l.Entries[0].Name != "g" {
		t.Fatalf("listing: %+v %v, want only g", l, err)
	}
	closeH(t, s, del)
	if _, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, Preconditions{}); !errors.Is(err, azerr.ErrDeletePending) {
		t.Fatalf("after closing the delete handle, one still open: %v, want DeletePending", err)
	}
	closeH(t, s, other)
	if _, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, Preconditions{}); !errors.Is(err, azerr.ErrResourceNotFound) {
		t.Fatalf("after the last close: %v, want ResourceNotFound", err)
	}
	if n := countKeys(t, store, filePayloadPrefix(testAcct, "s", f.ID)) + countKeys(t, store, extentsPrefix(testAcct, "s", f.ID)); n != 0 {
		t.Fatalf("%d content keys outlive the file", n)
	}

	// A disposition cleared before the close keeps the file.
	g := open(t, s, "g", HandleOptions{Access: d, ShareAccess: AccessAll, DeleteOnClose: true})
	if err := s.SetDeleteOnClose(ctx, HandleRef{Account: testAcct, Share: "s", FileID: g.FileID, HandleID: g.ID}, DeleteOnCloseOptions{}); err != nil {
		t.Fatal(err)
	}
	closeH(t, s, g)
	if _, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "g"}, Preconditions{}); err != nil {
		t.Fatalf("g after a cleared disposition: %v", err)
	}
	if err := s.CloseHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: g.FileID, HandleID: g.ID}); !errors.Is(err, ErrHandleClosed) {
		t.Fatalf("second close: %v, want ErrHandleClosed", err)
	}
	// Delete-on-close needs Delete access.
	if _, err := s.OpenHandle(ctx, Ref{Account: testAcct, Share: "s", Path: "g"}, HandleOptions{Access: r, ShareAccess: AccessAll, DeleteOnClose: true}); !errors.Is(err, azerr.ErrInvalidInput) {
		t.Fatalf("delete-on-close without Delete access: %v, want InvalidInput", err)
	}
}

// TestDirectoryDeleteOnClose: a non-empty directory cannot be marked; an
// empty one goes on its last close, and nothing may be created in it
// while it is pending.
func TestDirectoryDeleteOnClose(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "dir"}, SMBChange{}, nil); err != nil {
		t.Fatal(err)
	}
	mkFile(t, s, "dir/f", 1)
	if _, err := s.OpenHandle(ctx, Ref{Account: testAcct, Share: "s", Path: "dir"}, HandleOptions{Dir: true, Access: d, ShareAccess: AccessAll, DeleteOnClose: true}); !errors.Is(err, azerr.ErrDirectoryNotEmpty) {
		t.Fatalf("mark a non-empty directory: %v, want DirectoryNotEmpty", err)
	}
	if err := s.DeleteFile(ctx, Ref{Account: testAcct, Share: "s", Path: "dir/f"}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenHandle(ctx, Ref{Account: testAcct, Share: "s"}, HandleOptions{Dir: true, Access: d, ShareAccess: AccessAll, DeleteOnClose: true}); !errors.Is(err, azerr.ErrInvalidInput) {
		t.Fatalf("mark the root: %v, want InvalidInput", err)
	}
	if _, err := s.OpenHandle(ctx, Ref{Account: testAcct, Share: "s", Path: "dir"}, HandleOptions{Access: r}); !errors.Is(err, azerr.ErrResourceNotFound) {
		t.Fatalf("open a directory as a file: %v, want ResourceNotFound", err)
	}
	h := open(t, s, "dir", HandleOptions{Dir: true, Access: d, ShareAccess: AccessAll, DeleteOnClose: true})
	if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "dir/g"}, CreateFileOptions{Size: 1}); !errors.Is(err, azerr.ErrDeletePending) {
		t.Fatalf("create inside a pending directory: %v, want DeletePending", err)
	}
	if err := s.DeleteDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "dir"}, Preconditions{}); !errors.Is(err, azerr.ErrDeletePending) {
		t.Fatalf("REST delete of a pending directory: %v, want DeletePending", err)
	}
	closeH(t, s, h)
	if _, err := s.GetDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "dir"}, Preconditions{}); !errors.Is(err, azerr.ErrResourceNotFound) {
		t.Fatalf("directory after the last close: %v, want ResourceNotFound", err)
	}
}

// TestLeaseAndHandles: an active lease refuses opens for write or delete,
// and a write handle refuses a lease.
func TestLeaseAndHandles(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	mkFile(t, s, "f", 1)
	h := open(t, s, "f", HandleOptions{Access: w, ShareAccess: AccessAll})
	if _, err := s.LeaseFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, lease.Request{Action: lease.Acquire, ProposedID: leaseA}); !errors.Is(err, azerr.ErrSharingViolation) {
		t.Fatalf("acquire beside a write handle: %v, want SharingViolation", err)
	}
	closeH(t, s, h)
	h = open(t, s, "f", HandleOptions{Access: r, ShareAccess: AccessAll})
	if _, err := s.LeaseFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, lease.Request{Action: lease.Acquire, ProposedID: leaseA}); err != nil {
		t.Fatalf("acquire beside a read handle: %v", err)
	}
	if _, err := s.OpenHandle(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, HandleOptions{Access: w, ShareAccess: AccessAll}); !errors.Is(err, azerr.ErrSharingViolation) {
		t.Fatalf("write open of a leased file: %v, want SharingViolation", err)
	}
	closeH(t, s, open(t, s, "f", HandleOptions{Access: r, ShareAccess: AccessAll}))
	closeH(t, s, h)
}

// TestListAndForceClose: listings walk depth first in name order, pages
// resume from their marker even when the handle it names has closed, and
// force-closing the last handle of a pending file keeps it.
func TestListAndForceClose(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "a"}, SMBChange{}, nil); err != nil {
		t.Fatal(err)
	}
	mkFile(t, s, "a/x", 1)
	mkFile(t, s, "b", 1)
	all := HandleOptions{Access: r, ShareAccess: AccessAll, SessionID: 7, ClientIP: "10.0.0.1", ClientName: "pc"}
	dirAll := all
	dirAll.Dir = true
	var want []string
	for _, p := range []string{"", "a", "a/x", "a/x", "b"} {
		o := all
		if p == "" || p == "a" {
			o = dirAll
		}
		open(t, s, p, o)
		want = append(want, p)
	}
	var got []string
	marker := ""
	for pages := 0; ; pages++ {
		l, err := s.ListHandles(ctx, Ref{Account: testAcct, Share: "s"}, ListHandlesOptions{Recursive: true, Marker: marker, Max: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range l.Handles {
			got = append(got, h.Path)
		}
		if l.NextMarker == "" {
			break
		}
		if pages == 0 {
			// Close the handle the marker names: the next page still
			// starts where it would have been.
			if _, err := s.ForceCloseHandles(ctx, Ref{Account: testAcct, Share: "s", Path: "a/x"}, ForceCloseOptions{}); err != nil {
				t.Fatal(err)
			}
			want = []string{"", "a", "b"}
		}
		marker = l.NextMarker
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("listed %q, want %q", got, want)
	}
	l, err := s.ListHandles(ctx, Ref{Account: testAcct, Share: "s"}, ListHandlesOptions{Max: 10})
	if err != nil || len(l.Handles) != 1 || l.Handles[0].Path != "" {
		t.Fatalf("non-recursive root listing: %+v %v, want the root's handle", l, err)
	}
	if _, err := s.ListHandles(ctx, Ref{Account: testAcct, Share: "s"}, ListHandlesOptions{Marker: "junk", Max: 10}); !errors.Is(err, azerr.ErrInvalidQueryParameterValue) {
		t.Fatalf("bad marker: %v", err)
	}
	// A pending file whose handles are force-closed stays, not pending.
	h := open(t, s, "a/x", HandleOptions{Access: d, ShareAccess: AccessAll, DeleteOnClose: true})
	missing := uint64(1)
	if out, err := s.ForceCloseHandles(ctx, Ref{Account: testAcct, Share: "s", Path: "a"}, ForceCloseOptions{HandleID: &missing, Recursive: true}); err != nil || out.Closed != 0 {
		t.Fatalf("force close of a handle ID not open: %+v %v", out, err)
	}
	if out, err := s.ForceCloseHandles(ctx, Ref{Account: testAcct, Share: "s", Path: "a"}, ForceCloseOptions{HandleID: &h.ID, Recursive: true}); err != nil || out.Closed != 1 {
		t.Fatalf("force close by ID: %+v %v", out, err)
	}
	if _, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "a/x"}, Preconditions{}); err != nil {
		t.Fatalf("file after force close: %v", err)
	}
	if _, err := s.ForceCloseHandles(ctx, Ref{Account: testAcct, Share: "s", Path: "b"}, ForceCloseOptions{Recursive: true}); !errors.Is(err, azerr.ErrInvalidHeaderValue) {
		t.Fatalf("recursive force close on a file: %v, want InvalidHeaderValue", err)
	}
	out, err := s.ForceCloseHandles(ctx, Ref{Account: testAcct, Share: "s"}, ForceCloseOptions{Recursive: true})
	if err != nil || out.Closed != 3 || out.NextMarker != "" {
		t.Fatalf("force close all: %+v %v, want 3", out, err)
	}
	if n := countKeys(t, store, accountKey(testAcct).Raw("h")); n != 0 {
		t.Fatalf("%d handle keys left", n)
	}
}

// TestDeleteShareDropsHandles: deleting a share removes its handles.
func TestDeleteShareDropsHandles(t *testing.T) {
	s, store := newTestService(t)
	mkFile(t, s, "f", 1)
	h := open(t, s, "f", HandleOptions{Access: r})
	if err := s.DeleteShare(t.Context(), ShareRef{Account: testAcct, Share: "s"}, ""); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, store, accountKey(testAcct).Raw("h")); n != 0 {
		t.Fatalf("%d handle keys outlive the share", n)
	}
	if err := s.CloseHandle(t.Context(), HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}); !errors.Is(err, ErrHandleClosed) {
		t.Fatalf("close after the share went: %v, want ErrHandleClosed", err)
	}
}

// TestCheckInvariantsCatchesHandleDamage: dangling handles, handles that
// misname their node, handles that deny each other and pending nodes with
// no handle are all reported.
func TestCheckInvariantsCatchesHandleDamage(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		damage     func(tx kv.Txn, h *Handle) error
	}{
		{"dangling", "does not exist", func(tx kv.Txn, h *Handle) error {
			h.FileID = 12345
			return record.Store(tx, handleKey(testAcct, "s", h.FileID, h.ID), h)
		}},
		{"misnamed", "names node", func(tx kv.Txn, h *Handle) error {
			h.Name = "other"
			return record.Store(tx, handleKey(testAcct, "s", h.FileID, h.ID), h)
		}},
		{"conflicting", "deny each other", func(tx kv.Txn, h *Handle) error {
			h2 := *h
			h2.ID++
			return record.Store(tx, handleKey(testAcct, "s", h.FileID, h2.ID), &h2)
		}},
		{"pending without handle", "delete-pending with no handle", func(tx kv.Txn, h *Handle) error {
			if err := tx.Delete(handleKey(testAcct, "s", h.FileID, h.ID)); err != nil {
				return err
			}
			n, err := loadNode(tx, nodeKey(testAcct, "s", rootID, "f"))
			if err != nil {
				return err
			}
			n.DeletePending = true
			return record.Store(tx, nodeKey(testAcct, "s", rootID, "f"), n)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, store := newTestService(t)
			mkFile(t, s, "f", 1)
			h := open(t, s, "f", HandleOptions{Access: w})
			wantViolation(t, store, func(tx kv.Txn) error { return tc.damage(tx, h) }, tc.want)
		})
	}
}

// TestConcurrentOpensAreExclusive: opens racing for exclusive access to
// one file leave exactly one handle, and the others see a sharing
// violation, never two handles that deny each other (which the invariant
// check after the test would report).
func TestConcurrentOpensAreExclusive(t *testing.T) {
	s, _ := newTestService(t)
	mkFile(t, s, "f", 1)
	const n = 16
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := s.OpenHandle(t.Context(), Ref{Account: testAcct, Share: "s", Path: "f"}, HandleOptions{Access: r | w})
			errs <- err
		}()
	}
	won := 0
	for range n {
		switch err := <-errs; {
		case err == nil:
			won++
		case !errors.Is(err, azerr.ErrSharingViolation):
			t.Errorf("open: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d exclusive opens succeeded, want 1", won)
	}
}

// TestForceCloseInBatches: Force Close Handles closes at most
// forceCloseBatch handles a call and hands back a marker for the rest.
func TestForceCloseInBatches(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	f := mkFile(t, s, "f", 1)
	// Stored directly: opening them one by one rescans every open handle.
	err := store.Update(ctx, func(tx kv.Txn) error {
		for id := range uint64(forceCloseBatch + 1) {
			h := &Handle{ID: id + 1, FileID: f.ID, ParentID: rootID, Name: "f", Access: r, ShareAccess: AccessAll}
			if err := record.Store(tx, handleKey(testAcct, "s", f.ID, h.ID), h); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.ForceCloseHandles(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, ForceCloseOptions{})
	if err != nil || first.Closed != forceCloseBatch || first.NextMarker == "" {
		t.Fatalf("first batch: %+v %v", first, err)
	}
	rest, err := s.ForceCloseHandles(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, ForceCloseOptions{Marker: first.NextMarker})
	if err != nil || rest.Closed != 1 || rest.NextMarker != "" {
		t.Fatalf("second batch: %+v %v", rest, err)
	}
	if n := countKeys(t, store, accountKey(testAcct).Raw("h")); n != 0 {
		t.Fatalf("%d handle keys left", n)
	}
}
