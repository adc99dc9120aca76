package file

import (
	"bytes"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
)

// nfsVersion is the version the azfile recordings of NFS shares use.
const nfsVersion = "2025-05-05"

// nfs sends a request at the NFS recordings' version.
func (w *wire) nfs(method, target string, want int, headers ...string) *httptest.ResponseRecorder {
	w.t.Helper()
	return w.do(method, target, want, append([]string{"x-ms-version", nfsVersion}, headers...)...)
}

// wantHeaders checks an answer's headers by name and value; "" wants the
// header absent.
func wantHeaders(t *testing.T, what string, rec *httptest.ResponseRecorder, pairs ...string) {
	t.Helper()
	for i := 0; i+1 < len(pairs); i += 2 {
		if got, _ := header(rec, pairs[i]); got != pairs[i+1] {
			t.Errorf("%s: %s is %q, want %q", what, pairs[i], got, pairs[i+1])
		}
	}
}

// get is one header of an answer.
func get(rec *httptest.ResponseRecorder, name string) string {
	v, _ := header(rec, name)
	return v
}

// An NFS share's directories and files report POSIX properties, with
// Azure's defaults, and no NTFS attributes or permission key (the azfile
// recordings TestCreateFileNFS, TestDirCreateNfs, TestDirSetPropertiesNfs,
// TestFileSetHTTPHeadersNfs).
func TestNFSProperties(t *testing.T) {
	w := newWire(t)
	w.nfs("PUT", "nfs?restype=share", 201, "x-ms-enabled-protocols", "NFS")
	h := w.nfs("GET", "nfs?restype=share", 200)
	wantHeaders(t, "share", h, "x-ms-enabled-protocols", "NFS", "x-ms-root-squash", "NoRootSquash", "x-ms-enable-snapshot-virtual-directory-access", "true")

	h = w.nfs("PUT", "nfs/d?restype=directory", 201)
	wantHeaders(t, "new directory", h, "x-ms-mode", "0755", "x-ms-owner", "0", "x-ms-group", "0", "x-ms-file-file-type", "Directory",
		"x-ms-file-attributes", "", "x-ms-file-permission-key", "", "x-ms-link-count", "")
	h = w.nfs("PUT", "nfs/d/f", 201, "x-ms-type", "file", "x-ms-content-length", "1024")
	wantHeaders(t, "new file", h, "x-ms-mode", "0664", "x-ms-owner", "0", "x-ms-group", "0", "x-ms-file-file-type", "Regular", "x-ms-link-count", "")
	h = w.nfs("PUT", "nfs/g", 201, "x-ms-type", "file", "x-ms-content-length", "0", "x-ms-mode", "7777", "x-ms-owner", "345", "x-ms-group", "123")
	wantHeaders(t, "file with properties", h, "x-ms-mode", "7777", "x-ms-owner", "345", "x-ms-group", "123")

	h = w.nfs("PUT", "nfs/d/f?comp=properties", 200, "x-ms-mode", "6444", "x-ms-owner", "7")
	wantHeaders(t, "set file properties", h, "x-ms-mode", "6444", "x-ms-owner", "7", "x-ms-group", "0", "x-ms-link-count", "1", "x-ms-file-file-type", "")
	h = w.nfs("HEAD", "nfs/d/f", 200)
	wantHeaders(t, "file properties", h, "x-ms-mode", "6444", "x-ms-owner", "7", "x-ms-link-count", "1", "x-ms-file-file-type", "Regular")
	// Get File reports the link count but not the type (the Python
	// recording test_download_and_copy_file_nfs).
	wantHeaders(t, "get file", w.nfs("GET", "nfs/d/f", 200), "x-ms-mode", "6444", "x-ms-link-count", "1", "x-ms-file-file-type", "")
	h = w.nfs("PUT", "nfs/d?comp=properties&restype=directory", 200, "x-ms-mode", "1777", "x-ms-group", "5")
	wantHeaders(t, "set directory properties", h, "x-ms-mode", "1777", "x-ms-group", "5", "x-ms-link-count", "")
	h = w.nfs("GET", "nfs/d?restype=directory", 200)
	wantHeaders(t, "directory properties", h, "x-ms-mode", "1777", "x-ms-group", "5", "x-ms-file-file-type", "Directory")

	// Malformed values are refused; so are NTFS attributes and
	// permissions, which an NFS share has none of, while the values an
	// SDK sends for "nothing" pass.
	for _, bad := range [][]string{{"x-ms-mode", "0778"}, {"x-ms-mode", "755"}, {"x-ms-owner", "root"}, {"x-ms-group", "-1"},
		{"x-ms-file-attributes", "Hidden"}, {"x-ms-file-permission", "O:BAG:BAD:(A;;FA;;;BA)"}} {
		rec := w.do("PUT", "nfs/bad", 400, "x-ms-version", nfsVersion, "x-ms-type", "file", "x-ms-content-length", "0", bad[0], bad[1])
		if !strings.Contains(rec.Body.String(), "<HeaderName>"+bad[0]+"</HeaderName>") {
			t.Errorf("%s: %s: %s", bad[0], bad[1], rec.Body.String())
		}
	}
	w.nfs("PUT", "nfs/ok", 201, "x-ms-type", "file", "x-ms-content-length", "0", "x-ms-file-attributes", "None", "x-ms-file-permission", "inherit",
		"x-ms-file-creation-time", "now", "x-ms-file-file-type", "Regular")
	w.nfs("PUT", "nfs/ok2", 400, "x-ms-type", "file", "x-ms-content-length", "0", "x-ms-file-file-type", "Directory")
}

// An SMB share refuses NFS properties, naming x-ms-mode first (the azfile
// recording TestFileCreateFileNFS), and its shares and nodes carry none.
func TestNFSPropertiesOnSMBShare(t *testing.T) {
	w := newWire(t)
	w.nfs("PUT", "smb?restype=share", 201)
	h := w.nfs("GET", "smb?restype=share", 200)
	wantHeaders(t, "share", h, "x-ms-enabled-protocols", "SMB", "x-ms-root-squash", "")
	rec := w.do("PUT", "smb/f", 400, "x-ms-version", nfsVersion, "x-ms-type", "file", "x-ms-content-length", "1024",
		"x-ms-owner", "345", "x-ms-group", "123", "x-ms-mode", "0664", "x-ms-file-file-type", "Regular")
	if !strings.Contains(rec.Body.String(), "<HeaderName>x-ms-mode</HeaderName><HeaderValue>0664</HeaderValue>") {
		t.Errorf("refusal: %s", rec.Body.String())
	}
	w.nfs("PUT", "smb/f", 201, "x-ms-type", "file", "x-ms-content-length", "0")
	w.nfs("PUT", "smb/f?comp=properties", 400, "x-ms-owner", "1")
	h = w.nfs("HEAD", "smb/f", 200)
	wantHeaders(t, "SMB file", h, "x-ms-mode", "", "x-ms-link-count", "", "x-ms-file-attributes", "Archive")
	w.nfs("PUT", "smb2?restype=share", 400, "x-ms-root-squash", "RootSquash")
	w.nfs("PUT", "smb?restype=share&comp=properties", 400, "x-ms-root-squash", "RootSquash")
	w.nfs("PUT", "smb/l?restype=symboliclink", 400, "x-ms-link-text", "f")
	w.nfs("PUT", "smb/l?restype=hardlink", 400, "x-ms-type", "file", "x-ms-file-target-file", "f")
	w.nfs("GET", "smb/f?restype=symboliclink", 400)
}

// Root squash and the snapshot directory are set at creation and by Set
// Share Properties, and List Shares shows them.
func TestNFSShareSettings(t *testing.T) {
	w := newWire(t)
	w.nfs("PUT", "nfs?restype=share", 201, "x-ms-enabled-protocols", "NFS", "x-ms-root-squash", "AllSquash",
		"x-ms-enable-snapshot-virtual-directory-access", "false")
	wantHeaders(t, "created", w.nfs("GET", "nfs?restype=share", 200), "x-ms-root-squash", "AllSquash", "x-ms-enable-snapshot-virtual-directory-access", "false")
	w.nfs("PUT", "nfs?restype=share&comp=properties", 200, "x-ms-root-squash", "RootSquash", "x-ms-enable-snapshot-virtual-directory-access", "true")
	wantHeaders(t, "set", w.nfs("GET", "nfs?restype=share", 200), "x-ms-root-squash", "RootSquash", "x-ms-enable-snapshot-virtual-directory-access", "true")
	w.nfs("PUT", "nfs?restype=share&comp=properties", 400, "x-ms-root-squash", "Squash")
	w.nfs("PUT", "mmm?restype=share", 400, "x-ms-enabled-protocols", "CIFS")
	body := w.do("GET", "?comp=list", 200, "x-ms-version", nfsVersion).Body.String()
	if !strings.Contains(body, "<EnabledProtocols>NFS</EnabledProtocols><RootSquash>RootSquash</RootSquash><EnableSnapshotVirtualDirectoryAccess>true</EnableSnapshotVirtualDirectoryAccess>") {
		t.Errorf("listing: %s", body)
	}
}

// Symbolic links store their text as given and return it URL-encoded,
// on a snapshot too (the azfile recording TestGetSymbolicLinkNFS).
func TestSymbolicLinks(t *testing.T) {
	w := newWire(t)
	w.nfs("PUT", "nfs?restype=share", 201, "x-ms-enabled-protocols", "NFS")
	h := w.nfs("PUT", "nfs/l?restype=symboliclink", 201, "x-ms-link-text", "/d/target file", "x-ms-owner", "345")
	wantHeaders(t, "link", h, "x-ms-file-file-type", "SymLink", "x-ms-mode", "0777", "x-ms-owner", "345", "x-ms-group", "0",
		"x-ms-request-server-encrypted", "false")
	w.nfs("PUT", "nfs/l?restype=symboliclink", 409, "x-ms-link-text", "other")
	w.nfs("PUT", "nfs/m?restype=symboliclink", 400, "x-ms-link-text", "x", "x-ms-mode", "0700")
	snap := get(w.nfs("PUT", "nfs?restype=share&comp=snapshot", 201), "x-ms-snapshot")
	for _, target := range []string{"nfs/l?restype=symboliclink", "nfs/l?restype=symboliclink&sharesnapshot=" + snap} {
		wantHeaders(t, target, w.nfs("GET", target, 200), "x-ms-link-text", "%2Fd%2Ftarget%20file")
	}
	wantHeaders(t, "link properties", w.nfs("HEAD", "nfs/l", 200), "x-ms-file-file-type", "SymLink")
	w.nfs("PUT", "nfs/f", 201, "x-ms-type", "file", "x-ms-content-length", "0")
	w.nfs("GET", "nfs/f?restype=symboliclink", 404)
	w.nfs("DELETE", "nfs?restype=share", 202, "x-ms-delete-snapshots", "include")
}

// A hard link is a second name of one file: one ID, one content, one set
// of properties, a link count (the azfile recordings TestCreateHardLinkNFS,
// TestCreateHardLinkNFSNiloptions, TestCreateHardLinkNFSWithLease).
func TestHardLinks(t *testing.T) {
	w := newWire(t)
	w.nfs("PUT", "nfs?restype=share", 201, "x-ms-enabled-protocols", "NFS")
	w.nfs("PUT", "nfs/d?restype=directory", 201)
	f := w.nfs("PUT", "nfs/d/f", 201, "x-ms-type", "file", "x-ms-content-length", "1024")
	w.nfs("PUT", "nfs/d/g?restype=hardlink", 400, "x-ms-type", "file", "x-ms-file-target-file", "")
	w.nfs("PUT", "nfs/d/g?restype=hardlink", 404, "x-ms-type", "file", "x-ms-file-target-file", "/d/missing")
	h := w.nfs("PUT", "nfs/d/g?restype=hardlink", 201, "x-ms-type", "file", "x-ms-file-target-file", "/d/f")
	wantHeaders(t, "hard link", h, "x-ms-file-id", get(f, "x-ms-file-id"), "x-ms-link-count", "2", "x-ms-file-file-type", "Regular",
		"x-ms-file-creation-time", get(f, "x-ms-file-creation-time"), "x-ms-request-server-encrypted", "false")
	if get(h, "ETag") == get(f, "ETag") {
		t.Error("a hard link leaves the file's ETag")
	}
	w.nfs("PUT", "nfs/d/g?restype=hardlink", 409, "x-ms-type", "file", "x-ms-file-target-file", "/d/f")
	w.nfs("PUT", "nfs/h?restype=hardlink", 201, "x-ms-type", "file", "x-ms-file-target-file", "d/g")
	wantHeaders(t, "third name", w.nfs("HEAD", "nfs/d/f", 200), "x-ms-link-count", "3", "Content-Length", "1024")

	// A property set through one name shows through the others; a
	// listing shows every name with the file's size.
	w.nfs("PUT", "nfs/h?comp=properties", 200, "x-ms-mode", "0600", "x-ms-content-length", "10")
	wantHeaders(t, "other name", w.nfs("HEAD", "nfs/d/g", 200), "x-ms-mode", "0600", "Content-Length", "10", "x-ms-link-count", "3")
	body := w.do("GET", "nfs/d?restype=directory&comp=list", 200, "x-ms-version", nfsVersion).Body.String()
	if strings.Count(body, "<Content-Length>10</Content-Length>") != 2 {
		t.Errorf("listing: %s", body)
	}

	// Renaming and deleting a name leave the others.
	w.nfs("PUT", "nfs/d/g2?comp=rename", 200, "x-ms-file-rename-source", "/"+azauth.DevAccount+"/nfs/d/g")
	w.nfs("DELETE", "nfs/d/f", 202)
	wantHeaders(t, "after a delete", w.nfs("HEAD", "nfs/d/g2", 200), "x-ms-link-count", "2", "x-ms-mode", "0600")
	w.nfs("DELETE", "nfs/h", 202)
	wantHeaders(t, "last name", w.nfs("HEAD", "nfs/d/g2", 200), "x-ms-link-count", "1")
	w.nfs("DELETE", "nfs/d/g2", 202)
	w.nfs("HEAD", "nfs/d/g2", 404)
	w.nfs("DELETE", "nfs/d?restype=directory", 202)
}

// linkedPair makes the NFS share "nfs" with the file "a" and its hard
// link "b", "linked!!" written through b; ref names a path of the share.
func linkedPair(t *testing.T, s *Service) (nfs ShareRef, ref func(string) Ref) {
	t.Helper()
	ctx := t.Context()
	nfs = ShareRef{Account: testAcct, Share: "nfs"}
	if _, err := s.CreateShare(ctx, nfs, ShareSpec{Protocol: ProtocolNFS}); err != nil {
		t.Fatal(err)
	}
	ref = func(p string) Ref { return Ref{Account: testAcct, Share: "nfs", Path: p} }
	if _, err := s.CreateFile(ctx, ref("a"), CreateFileOptions{Size: 8}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateHardLink(ctx, ref("b"), HardLinkOptions{Target: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutRange(ctx, ref("b"), 0, Content{Body: bytes.NewReader([]byte("linked!!")), Length: 8}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	return nfs, ref
}

// wantContent fails t unless the file ref reads want.
func wantContent(t *testing.T, s *Service, ref Ref, want string) {
	t.Helper()
	var buf bytes.Buffer
	if err := s.GetFile(t.Context(), ref, GetFileOptions{}, func(d *Download) error { return d.Stream(&buf) }); err != nil {
		t.Fatal(err)
	}
	if buf.String() != want {
		t.Fatalf("%s reads %q, want %q", ref.Path, buf.String(), want)
	}
}

// Content written through one name is read through another, and lives
// until the last name goes (CheckInvariants, run after the test, finds
// no inode, stub, extent or data object left behind).
func TestHardLinkContent(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	nfs, ref := linkedPair(t, s)
	wantContent(t, s, ref("a"), "linked!!")
	// A snapshot keeps both names.
	snap, _, err := s.SnapshotShare(ctx, nfs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: SnapshotNamespace("nfs", snap), Path: "a"}, Preconditions{}); err != nil || n.Links != 2 {
		t.Fatalf("snapshot: %+v, %v", n, err)
	}
	// Create File over one name replaces the content both show.
	if _, err := s.CreateFile(ctx, ref("a"), CreateFileOptions{Size: 3}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.GetFileProperties(ctx, ref("b"), Preconditions{}); err != nil || n.Size != 3 || n.Links != 2 {
		t.Fatalf("after a create over the other name: %+v, %v", n, err)
	}
	for _, p := range []string{"a", "b"} {
		if err := s.DeleteFile(ctx, ref(p), Preconditions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.GetFileProperties(ctx, ref("b"), Preconditions{}); !errors.Is(err, azerr.ErrResourceNotFound) {
		t.Fatalf("after both deletes: %v", err)
	}
	if err := s.DeleteShareAndSnapshots(ctx, nfs, ""); err != nil {
		t.Fatal(err)
	}
}
