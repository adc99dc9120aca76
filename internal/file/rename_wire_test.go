package file

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azauth"
)

// TestRenameSourceForms: x-ms-file-rename-source names this server's file
// in every form the SDKs send: the client's own URL, which is the
// production-style https URL of the account (the azfile recordings, e.g.
// TestDirectoryRenameParentNotFound, send
// https://account.file.core.windows.net/share/dir), a path-style URL on a
// loopback name with or without the port, with or without a SAS. A host
// that is not this server's File endpoint stays refused.
func TestRenameSourceForms(t *testing.T) {
	w := newWire(t)
	const host = "127.0.0.1:10004"
	w.doAt(host, http.MethodPut, "share?restype=share", http.StatusCreated)
	w.doAt(host, http.MethodPut, "share/f0", http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "1")
	acct := azauth.DevAccount
	forms := []string{
		"http://127.0.0.1:10004/" + acct + "/share/f0",
		"https://" + acct + ".file.core.windows.net/share/f1",
		"https://" + acct + ".file.core.windows.net:443/share/f2",
		"http://localhost:10004/" + acct + "/share/f3",
		"http://localhost/" + acct + "/share/f4",
		"http://127.0.0.1/" + acct + "/share/f5",
		"http://[::1]:10004/" + acct + "/share/f6",
		"http://localhost:10004/" + acct + "/share/f7?" + w.token,
		"https://" + acct + ".file.core.windows.net/share/f8?" + w.token,
		"/" + acct + "/share/f9",
	}
	for i, src := range forms {
		dest := fmt.Sprintf("share/f%d", i+1)
		rec := w.doAt(host, http.MethodPut, dest+"?comp=rename", http.StatusOK, "x-ms-file-rename-source", src)
		if _, ok := header(rec, "x-ms-file-id"); !ok {
			t.Errorf("rename from %s answered no x-ms-file-id", src)
		}
		w.doAt(host, http.MethodHead, dest, http.StatusOK)
	}
	for _, src := range []string{
		"https://elsewhere.example/" + acct + "/share/f10",
		"http://localhost:10000/" + acct + "/share/f10",
		"https://" + acct + ".blob.core.windows.net/share/f10",
		"https://someoneelse.file.core.windows.net/share/f10",
	} {
		w.doAt(host, http.MethodPut, "share/g?comp=rename", http.StatusNotImplemented, "x-ms-file-rename-source", src)
	}
	w.doAt(host, http.MethodHead, "share/f10", http.StatusOK)
}

// TestRenameReplaceByDirectory: with x-ms-file-rename-replace-if-exists a
// directory replaces a file at its destination; a read-only one answers
// 409 ReadOnlyAttribute until x-ms-file-rename-ignore-readonly (the
// azfile recording TestDirectoryRenameIgnoreReadOnly), a leased one 412
// LeaseIdMissing until x-ms-destination-lease-id names its lease
// (TestDirectoryRenameDestLease).
func TestRenameReplaceByDirectory(t *testing.T) {
	w := newWire(t)
	w.do(http.MethodPut, "share?restype=share", http.StatusCreated)
	w.do(http.MethodPut, "share/d?restype=directory", http.StatusCreated)
	w.do(http.MethodPut, "share/dest?restype=directory", http.StatusCreated)
	w.do(http.MethodPut, "share/dest/ro", http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "2048", "x-ms-file-attributes", "ReadOnly")
	src := "http://127.0.0.1/" + azauth.DevAccount + "/share/d"

	wantCode := func(rec *httptest.ResponseRecorder, code string) {
		t.Helper()
		wantHeader(t, rec, "x-ms-error-code", code)
	}
	wantCode(w.do(http.MethodPut, "share/dest/ro?restype=directory&comp=rename", http.StatusConflict, "x-ms-file-rename-source", src), "ResourceAlreadyExists")
	wantCode(w.do(http.MethodPut, "share/dest/ro?restype=directory&comp=rename", http.StatusConflict, "x-ms-file-rename-source", src,
		"x-ms-file-rename-replace-if-exists", "true"), "ReadOnlyAttribute")
	rec := w.do(http.MethodPut, "share/dest/ro?restype=directory&comp=rename", http.StatusOK, "x-ms-file-rename-source", src,
		"x-ms-file-rename-replace-if-exists", "true", "x-ms-file-rename-ignore-readonly", "true")
	wantHeader(t, rec, "x-ms-file-attributes", "Directory")
	w.do(http.MethodGet, "share/d?restype=directory", http.StatusNotFound)
	w.do(http.MethodGet, "share/dest/ro?restype=directory", http.StatusOK)

	const lease = "c820a799-76d7-4ee2-6e15-546f19325c2c"
	w.do(http.MethodPut, "share/e?restype=directory", http.StatusCreated)
	w.do(http.MethodPut, "share/dest/leased", http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "1")
	w.do(http.MethodPut, "share/dest/leased?comp=lease", http.StatusCreated, "x-ms-lease-action", "acquire", "x-ms-lease-duration", "-1", "x-ms-proposed-lease-id", lease)
	src = "http://127.0.0.1/" + azauth.DevAccount + "/share/e"
	wantCode(w.do(http.MethodPut, "share/dest/leased?restype=directory&comp=rename", http.StatusPreconditionFailed, "x-ms-file-rename-source", src,
		"x-ms-file-rename-replace-if-exists", "true"), "LeaseIdMissing")
	w.do(http.MethodPut, "share/dest/leased?restype=directory&comp=rename", http.StatusOK, "x-ms-file-rename-source", src,
		"x-ms-file-rename-replace-if-exists", "true", "x-ms-destination-lease-id", lease)

	// A file does not replace a directory.
	w.do(http.MethodPut, "share/f", http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "1")
	wantCode(w.do(http.MethodPut, "share/dest/ro?comp=rename", http.StatusConflict, "x-ms-file-rename-source", "http://127.0.0.1/"+azauth.DevAccount+"/share/f",
		"x-ms-file-rename-replace-if-exists", "true"), "ResourceTypeMismatch")
}

// TestTrailingDots: a path element loses its trailing dots unless the
// request sends x-ms-allow-trailing-dot: true, and a source URL's unless
// x-ms-source-allow-trailing-dot: true, so a rename whose source ends in
// dots without it misses the directory created with them (the azfile
// recording TestDirectoryRenameNegativeSourceTrailingDot).
func TestTrailingDots(t *testing.T) {
	w := newWire(t)
	w.do(http.MethodPut, "share?restype=share", http.StatusCreated)
	w.do(http.MethodPut, "share/dir..?restype=directory", http.StatusCreated, "x-ms-allow-trailing-dot", "true")
	w.do(http.MethodGet, "share/dir?restype=directory", http.StatusNotFound)
	w.do(http.MethodGet, "share/dir..?restype=directory", http.StatusNotFound)
	w.do(http.MethodGet, "share/dir..?restype=directory", http.StatusOK, "x-ms-allow-trailing-dot", "true")

	src := "http://127.0.0.1/" + azauth.DevAccount + "/share/dir.."
	rec := w.do(http.MethodPut, "share/dir1..?restype=directory&comp=rename", http.StatusNotFound, "x-ms-allow-trailing-dot", "true", "x-ms-file-rename-source", src)
	wantHeader(t, rec, "x-ms-error-code", "ResourceNotFound")
	w.do(http.MethodPut, "share/dir1..?restype=directory&comp=rename", http.StatusOK, "x-ms-allow-trailing-dot", "true",
		"x-ms-source-allow-trailing-dot", "true", "x-ms-file-rename-source", src)
	w.do(http.MethodGet, "share/dir1..?restype=directory", http.StatusOK, "x-ms-allow-trailing-dot", "true")

	// Without the header the dots go: f. and f name one file.
	w.do(http.MethodPut, "share/f.", http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "1")
	w.do(http.MethodHead, "share/f", http.StatusOK)
	w.do(http.MethodHead, "share/f.", http.StatusNotFound, "x-ms-allow-trailing-dot", "true")
}
