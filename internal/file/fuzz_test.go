package file

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// The fuzz targets here hold the Files REST parsers to one contract:
// whatever a parser accepts applies to a share without a panic or a
// server error, whatever it refuses is an Azure 4xx, and what the server
// writes back in a header is accepted when a client sends it back.

// checkRefusal fails unless err is an Azure client error.
func checkRefusal(t *testing.T, what string, err error) {
	t.Helper()
	var e *azerr.Error
	if !errors.As(err, &e) || e.Status < 400 || e.Status > 499 {
		t.Fatalf("%s: %v (%T), want an Azure 4xx", what, err, err)
	}
}

// fuzzFile is the file every applying target changes: "d/f" in share "s"
// of testAcct, with 1 KiB of content.
func fuzzFile(t *testing.T) *Service {
	t.Helper()
	s, _ := newTestService(t)
	if _, err := s.CreateDirectory(t.Context(), Ref{Account: testAcct, Share: "s", Path: "d"}, SMBChange{}, nil); err != nil {
		t.Fatal(err)
	}
	mkFile(t, s, "d/f", 1024)
	put(t, s, "d/f", 0, bytes.Repeat([]byte("x"), 1024))
	return s
}

// smbHeaders builds the SMB property headers of a request.
func smbHeaders(attrs, creation, lastWrite, change, permission, permissionKey, format string) http.Header {
	h := http.Header{}
	for name, v := range map[string]string{
		"x-ms-file-attributes": attrs, "x-ms-file-creation-time": creation, "x-ms-file-last-write-time": lastWrite,
		"x-ms-file-change-time": change, "x-ms-file-permission": permission, "x-ms-file-permission-key": permissionKey,
		"x-ms-file-permission-format": format,
	} {
		if v != "" {
			h.Set(name, v)
		}
	}
	return h
}

// FuzzSMBPropertyHeaders: any x-ms-file-* SMB property headers either are
// refused with a 4xx or create a file and a directory and set a file's
// properties (Create, Set Properties); the properties the server then
// reports are accepted unchanged when sent back, as an SDK's
// read-modify-write does.
func FuzzSMBPropertyHeaders(f *testing.F) {
	owner := "O:BAG:SYD:(A;;FA;;;BA)"
	bin, err := SDDLToBinary(owner)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][7]string{
		{"ReadOnly | Hidden", "2024-01-02T03:04:05.1234567Z", "now", "preserve", "", "", ""},
		{"None", "", "", "", "inherit", "", ""},
		{"Archive|Temporary|NotContentIndexed|NoScrubData|Offline|System", "2024-01-02T03:04:05Z", "2024-01-02T03:04:05+02:00", "now", owner, "", "sddl"},
		{"preserve", "preserve", "preserve", "preserve", "preserve", "", ""},
		{"Directory", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.9999999Z", "", bin, "", "binary"},
		{"", "", "", "", "", "12345*1", ""},
		{"readonly|ReadOnly", "1601-01-01T00:00:00Z", "", "", "O:BA", "", "SDDL"},
		{" | ", "2024-13-01T00:00:00Z", "", "", "", "", ""},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3], seed[4], seed[5], seed[6], false)
		f.Add(seed[0], seed[1], seed[2], seed[3], seed[4], seed[5], seed[6], true)
	}
	f.Fuzz(func(t *testing.T, attrs, creation, lastWrite, change, permission, permissionKey, format string, dir bool) {
		h := smbHeaders(attrs, creation, lastWrite, change, permission, permissionKey, format)
		c, err := parseSMB(h, dir)
		if err != nil {
			checkRefusal(t, "parseSMB", err)
		}
		u, uerr := parseSMBUpdate(h, dir, true)
		if (err == nil) != (uerr == nil) {
			t.Fatalf("parseSMB says %v, parseSMBUpdate %v", err, uerr)
		}
		if err != nil {
			return
		}
		if c.Attributes != "" {
			again, err := parseAttributes(http.Header{"X-Ms-File-Attributes": {c.Attributes}}, dir)
			if err != nil || again != c.Attributes {
				t.Fatalf("attributes %q read back as %q, %v", c.Attributes, again, err)
			}
		}
		s := fuzzFile(t)
		ctx := t.Context()
		var n *Node
		if dir {
			n, err = s.CreateDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "d/new"}, c, nil)
		} else {
			n, err = s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "d/new"}, CreateFileOptions{SMB: c})
		}
		if err != nil {
			checkRefusal(t, "create", err)
			return
		}
		// A new file gets Archive too (Azure answers "Hidden | Archive" to a
		// create asking for Hidden).
		wantAttrs := c.Attributes
		if !dir {
			wantAttrs = addAttribute(wantAttrs, "Archive")
		}
		if c.Attributes != "" && n.SMB.Attributes != wantAttrs {
			t.Fatalf("created with attributes %q, has %q", c.Attributes, n.SMB.Attributes)
		}
		for _, tm := range []struct {
			given *time.Time
			has   time.Time
		}{{c.CreationTime, n.SMB.CreationTime}, {c.LastWriteTime, n.SMB.LastWriteTime}, {c.ChangeTime, n.SMB.ChangeTime}} {
			if tm.given != nil && !tm.has.Equal(*tm.given) && !tm.has.Equal(tm.given.Truncate(100*time.Nanosecond)) {
				t.Fatalf("created with time %v, has %v", *tm.given, tm.has)
			}
		}
		if dir {
			n, err = s.SetDirectoryProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "d"}, u, Preconditions{})
		} else {
			n, err = s.SetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "d/f"}, FileProperties{SMB: u}, Preconditions{})
		}
		if err != nil {
			checkRefusal(t, "set properties", err)
			return
		}
		// What the server reports is what a client sends back.
		back := http.Header{}
		writeSMB(back, n)
		back.Del("x-ms-file-permission-key") // a key is sent back only to name a stored permission
		again, err := parseSMBUpdate(back, dir, false)
		if err != nil {
			t.Fatalf("reported properties %v refused: %v", back, err)
		}
		want := n.SMB
		again.apply(&n.SMB, time.Time{})
		if n.SMB != want {
			t.Fatalf("properties sent back change them:\n%+v\n%+v", want, n.SMB)
		}
	})
}

// FuzzCopyAndWriteHeaders: Copy File's SMB headers, a range write's
// x-ms-file-last-write-time and the rename and recursive flags parse or
// are refused with a 4xx, and a copy that parses runs on a share.
func FuzzCopyAndWriteHeaders(f *testing.F) {
	for _, seed := range [][6]string{
		{"source", "source", "source", "source", "", "source"},
		{"ReadOnly", "now", "preserve", "2024-01-02T03:04:05Z", "O:BAG:SY", "override"},
		{"", "", "", "", "", "override"},
		{"", "", "", "", "O:BA", ""},
		{"Source ", "", "", "", "", "Source"},
		{"", "", "", "", "", "bogus"},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3], seed[4], seed[5], "true", "now")
		f.Add(seed[0], seed[1], seed[2], seed[3], seed[4], seed[5], "False", "preserve")
	}
	f.Fuzz(func(t *testing.T, attrs, creation, lastWrite, change, permission, mode, flag, writeMode string) {
		h := smbHeaders(attrs, creation, lastWrite, change, permission, "", "")
		if mode != "" {
			h.Set("x-ms-file-permission-copy-mode", mode)
		}
		h.Set("x-ms-file-copy-set-archive", flag)
		h.Set("x-ms-file-copy-ignore-readonly", flag)
		h.Set("x-ms-recursive", flag)
		for _, parse := range []func() error{
			func() error { _, err := renameBool(h, "x-ms-file-copy-ignore-readonly"); return err },
			func() error { _, err := parseRecursive(h); return err },
			func() error {
				_, err := parseLastWriteMode(http.Header{"X-Ms-File-Last-Write-Time": {writeMode}})
				return err
			},
		} {
			if err := parse(); err != nil {
				checkRefusal(t, "flag", err)
			}
		}
		c, err := parseCopySMB(h)
		if err != nil {
			checkRefusal(t, "parseCopySMB", err)
			return
		}
		if c.PermissionFromSource && c.Permission != "" {
			t.Fatalf("a permission both from the source and given: %+v", c)
		}
		s := fuzzFile(t)
		_, err = s.CopyFile(t.Context(), CopyRequest{SourceURL: "http://127.0.0.1/acct/s/d/f", SrcAcct: testAcct, SrcShare: "s", SrcPath: "d/f",
			Acct: testAcct, Share: "s", Path: "d/copy", SMB: c, IgnoreReadOnly: flag == "true"})
		if err != nil {
			checkRefusal(t, "copy", err)
		}
	})
}

// FuzzPathsAndMarkers: any URL path splits into an account, a share and a
// path; a path checkNames accepts has no empty, "." or ".." element (it
// never leaves its share, and a trailing slash left after the split is
// refused) and creates a directory or is refused with a
// 4xx; a handle-list marker that parses is written back as one that
// parses to the same position, and resumes a listing and a force close
// of handles; a share snapshot
// time that parses is written as one that parses to itself.
func FuzzPathsAndMarkers(f *testing.F) {
	for _, seed := range [][3]string{
		{"/acct/s/d/f", "7:d/f", "2024-01-02T03:04:05.1234567Z"},
		{"/acct/s/d", "2:d", "2024-01-02T03:04:05.1234567Z"},
		{"/acct/s/../x", "18446744073709551615:", "2024-01-02T03:04:05Z"},
		{"/acct/s/a//b/", ":", "2024-01-02T03:04:05+14:00"},
		{"acct/s%2F../x", "007:a:b", "now"},
		{"/acct/sh-are/d\\e", "-1:x", ""},
		{"/acct/s/./é/\x01", "1", "0000-01-01T00:00:00Z"},
		{"0////", "", ""}, // a path of "/": two empty names, refused
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, urlPath, marker, snapshot string) {
		acct, share, path := splitPath(urlPath)
		if strings.Contains(acct, "/") || strings.Contains(share, "/") {
			t.Fatalf("%q split as %q %q %q", urlPath, acct, share, path)
		}
		if err := checkNames(share, path); err != nil {
			checkRefusal(t, "checkNames", err)
		} else if path != "" {
			for _, el := range strings.Split(path, "/") {
				if el == "" || el == "." || el == ".." || strings.ContainsAny(el, "\\\x00") {
					t.Fatalf("path %q accepted with element %q", path, el)
				}
			}
			s, _ := newTestService(t)
			if _, err := s.CreateDirectory(t.Context(), Ref{Account: testAcct, Share: "s", Path: path}, SMBChange{}, nil); err != nil {
				checkRefusal(t, "create directory", err)
			}
		}
		pos, err := parseHandleMarker(marker)
		if err != nil {
			checkRefusal(t, "parseHandleMarker", err)
		} else if pos != nil {
			again, err := parseHandleMarker(pos.marker())
			if err != nil || again == nil || *again != *pos {
				t.Fatalf("marker %q: %+v written as %q reads %+v, %v", marker, pos, pos.marker(), again, err)
			}
			s := fuzzFile(t)
			all := AccessRead | AccessWrite | AccessDelete
			open(t, s, "d/f", HandleOptions{Access: AccessRead, ShareAccess: all})
			open(t, s, "d", HandleOptions{Dir: true, Access: AccessRead, ShareAccess: all})
			if _, err := s.ListHandles(t.Context(), Ref{Account: testAcct, Share: "s"}, ListHandlesOptions{Recursive: true, Marker: marker, Max: 1}); err != nil {
				checkRefusal(t, "list handles", err)
			}
			if _, err := s.ForceCloseHandles(t.Context(), Ref{Account: testAcct, Share: "s"}, ForceCloseOptions{Recursive: true, Marker: marker}); err != nil {
				checkRefusal(t, "force close handles", err)
			}
		}
		if snap, ok := ParseSnapshot(snapshot); ok {
			again, ok := ParseSnapshot(snap)
			if !ok || again != snap {
				t.Fatalf("snapshot %q written as %q reads %q (%v)", snapshot, snap, again, ok)
			}
		}
	})
}

// FuzzRESTRequest sends any method, path, query, headers and body, under
// an account SAS allowing everything, to the File service's handler over
// a share ("share") holding a directory and a file: every answer is a success or an
// Azure error (501 for an operation not served), never a 500, and the
// store's invariants hold afterwards.
func FuzzRESTRequest(f *testing.F) {
	const v = "x-ms-version: 2025-05-05\n"
	for _, seed := range []struct {
		method  uint8
		target  string
		headers string
		body    string
	}{
		{0, "share/d/f", v + "x-ms-range: bytes=0-99\nx-ms-range-get-content-md5: true", ""},
		{0, "share/d/f?comp=rangelist", v + "Range: bytes=512-", ""},
		{0, "share/d/f?comp=rangelist&prevsharesnapshot=2024-01-02T03:04:05.0000000Z", v, ""},
		{1, "share/d/f?comp=range", v + "x-ms-range: bytes=0-3\nx-ms-write: update\nx-ms-file-last-write-time: preserve", "abcd"},
		{1, "share/d/f?comp=range", v + "x-ms-range: bytes=0-1023\nx-ms-write: clear", ""},
		{1, "share/d/g", v + "x-ms-type: file\nx-ms-content-length: 4096\nx-ms-file-attributes: ReadOnly|Archive\nx-ms-file-creation-time: 2024-01-02T03:04:05.1234567Z\nx-ms-file-permission: O:BAG:SYD:(A;;FA;;;BA)", ""},
		{1, "share/d/e?restype=directory", v + "x-ms-file-attributes: Hidden\nx-ms-file-change-time: now", ""},
		{1, "share/d/f?comp=properties", v + "x-ms-content-length: 10\nx-ms-file-attributes: None\nx-ms-file-permission-key: 1*1", ""},
		{1, "share/d?restype=directory&comp=properties", v + "x-ms-file-attributes: Directory|System", ""},
		{1, "share?restype=share&comp=filepermission", v + "Content-Type: application/json", `{"permission":"O:BAG:SYD:(A;;FA;;;BA)","format":"sddl"}`},
		{0, "share?restype=share&comp=filepermission", v + "x-ms-file-permission-key: 123*1\nx-ms-file-permission-format: binary", ""},
		{1, "share/d/h", v + "x-ms-copy-source: http://127.0.0.1/devstoreaccount1/share/d/f\nx-ms-file-permission-copy-mode: source\nx-ms-file-attributes: source", ""},
		{1, "share/d/f?comp=rename", v + "x-ms-file-rename-source: share/d/g\nx-ms-file-rename-replace-if-exists: true", ""},
		{0, "share/d?restype=directory&comp=list&include=Timestamps,ETag,Attributes,PermissionKey&marker=f&maxresults=1", v + "x-ms-file-extended-info: true", ""},
		{0, "share?comp=listhandles&marker=3:d/f&maxresults=2", v + "x-ms-recursive: true", ""},
		{1, "share/d/f?comp=forceclosehandles", v + "x-ms-handle-id: *\nx-ms-recursive: false", ""},
		{1, "share/d/f?comp=lease", v + "x-ms-lease-action: acquire\nx-ms-lease-duration: -1\nx-ms-proposed-lease-id: 0f8fad5b-d9cb-469f-a165-70867728950e", ""},
		{1, "share?restype=share&comp=snapshot", v, ""},
		{0, "share/d/f?sharesnapshot=2024-01-02T03:04:05.0000000Z", v, ""},
		{1, "share?restype=share&comp=acl", v, `<?xml version="1.0"?><SignedIdentifiers><SignedIdentifier><Id>p</Id><AccessPolicy><Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`},
		{2, "share/d/f", v + "If-Match: *", ""},
		{3, "share/d/f", v, ""},
		{4, "?comp=list&include=snapshots&prefix=sh", v, ""},
	} {
		f.Add(seed.method, seed.target, seed.headers, []byte(seed.body))
	}
	cred, err := service.NewSharedKeyCredential(azauth.DevAccount, azauth.DevKey)
	if err != nil {
		f.Fatal(err)
	}
	qp, err := sas.AccountSignatureValues{
		Protocol:      sas.ProtocolHTTPSandHTTP,
		ExpiryTime:    time.Now().Add(24 * time.Hour),
		Permissions:   "rwdlc",
		ResourceTypes: "sco",
	}.SignWithSharedKey(cred)
	if err != nil {
		f.Fatal(err)
	}
	token := qp.Encode()
	accounts, err := azauth.LoadAccounts(func(string) string { return "" })
	if err != nil {
		f.Fatal(err)
	}
	methods := []string{http.MethodGet, http.MethodPut, http.MethodDelete, http.MethodHead, http.MethodGet, http.MethodPost, http.MethodOptions}
	f.Fuzz(func(t *testing.T, method uint8, target, headers string, body []byte) {
		path, query, _ := strings.Cut(target, "?")
		if query != "" {
			query += "&"
		}
		req, err := http.NewRequest(methods[int(method)%len(methods)], "http://127.0.0.1/"+azauth.DevAccount+"/"+path+"?"+query+token, bytes.NewReader(body))
		if err != nil {
			return
		}
		for _, line := range strings.Split(headers, "\n") {
			if name, value, ok := strings.Cut(line, ":"); ok {
				req.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
			}
		}
		store := memory.Open()
		s := New(Config{Store: store, Accounts: accounts, Logger: slog.New(slog.DiscardHandler)})
		t.Cleanup(func() { _ = store.Close() })
		testkit.CheckAfter(t, store, CheckInvariants)
		ctx := t.Context()
		if _, err := s.CreateShare(ctx, ShareRef{Account: azauth.DevAccount, Share: "share"}, ShareSpec{}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateDirectory(ctx, Ref{Account: azauth.DevAccount, Share: "share", Path: "d"}, SMBChange{}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateFile(ctx, Ref{Account: azauth.DevAccount, Share: "share", Path: "d/f"}, CreateFileOptions{Size: 1024}); err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		NewHandler(s).ServeHTTP(rec, req)
		if rec.Code >= 500 && rec.Code != http.StatusNotImplemented {
			t.Fatalf("%s %s %q: %d %s", req.Method, target, headers, rec.Code, rec.Body.Bytes())
		}
		if rec.Code >= 400 && !hasHeader(rec.Header(), "x-ms-error-code") && req.Method != http.MethodOptions {
			t.Fatalf("%s %s %q: %d without x-ms-error-code: %s", req.Method, target, headers, rec.Code, rec.Body.Bytes())
		}
	})
}

// hasHeader looks a header up whatever its case: answers carry Azure's
// case, not Go's canonical one.
func hasHeader(h http.Header, name string) bool {
	for k, v := range h {
		if strings.EqualFold(k, name) && len(v) > 0 && v[0] != "" {
			return true
		}
	}
	return false
}

// FuzzSDDLToBinary: a permission the SDDL check accepts converts to the
// binary form Get Permission answers with x-ms-file-permission-format:
// binary (or is refused as not implemented, for what that form cannot
// carry), and that binary form converts back to an SDDL that converts to
// the same binary: what a client reads in one format it can set in the
// other.
func FuzzSDDLToBinary(f *testing.F) {
	for _, seed := range []string{defaultPermission, "O:BAG:SYD:P(A;OICI;FA;;;SY)S:(AU;SA;FA;;;WD)", "O:S-1-5-21-1-2-3-500G:SYD:",
		"O:BAG:SYD:(XA;;FA;;;WD;(Member_of {SID(BA)}))", "O:SYG:SYD:PAI(A;OICIIO;0x1200a9;;;AU)(D;;WD;;;BG)", "D:(A;;GA;;;WD)", "O:BA"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, sddl string) {
		if !validSDDL(sddl) {
			return
		}
		b, err := SDDLToBinary(sddl)
		if err != nil {
			if !errors.Is(err, azerr.ErrNotImplemented) {
				t.Fatalf("%q was accepted as a permission, but its binary form fails: %v", sddl, err)
			}
			return
		}
		back, err := BinaryToSDDL(b)
		if err != nil {
			t.Fatalf("%q: binary %s does not convert back: %v", sddl, b, err)
		}
		again, err := SDDLToBinary(back)
		if err != nil || again != b {
			t.Fatalf("%q: binary %s reads as %q, which converts to %s, %v", sddl, b, back, again, err)
		}
	})
}
