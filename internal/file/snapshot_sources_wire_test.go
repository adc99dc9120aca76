package file

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azauth"
)

// putRange sends a Put Range of body at offset 0 of target.
func (w *wire) putRange(host, target, body string) {
	w.t.Helper()
	req := httptest.NewRequest(http.MethodPut, "http://"+host+"/"+azauth.DevAccount+"/"+target+"?comp=range&"+w.token, strings.NewReader(body))
	req.Header.Set("x-ms-write", "update")
	req.Header.Set("x-ms-range", fmt.Sprintf("bytes=0-%d", len(body)-1))
	rec := httptest.NewRecorder()
	w.handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusCreated {
		w.t.Fatalf("put range %s: %d %s", target, rec.Code, rec.Body.Bytes())
	}
}

// TestSnapshotCopySources: Copy File and Put Range From URL read a file
// of a share snapshot named by ?sharesnapshot= in the source URL, in
// every form a live source takes (path style on a loopback name,
// production style, with or without a SAS), as the SDKs send a snapshot
// client's URL (azfile's share.Client.WithSnapshot, the Python SDK's
// ShareFileClient(snapshot=...)).
func TestSnapshotCopySources(t *testing.T) {
	w := newWire(t)
	const host = "127.0.0.1:10004"
	w.doAt(host, http.MethodPut, "share?restype=share", http.StatusCreated)
	w.doAt(host, http.MethodPut, "share/f", http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "6")
	w.putRange(host, "share/f", "before")
	snap, _ := header(w.doAt(host, http.MethodPut, "share?restype=share&comp=snapshot", http.StatusCreated), "x-ms-snapshot")
	w.putRange(host, "share/f", "after!")

	acct, q := azauth.DevAccount, "sharesnapshot="+url.QueryEscape(snap)
	forms := []string{
		"http://127.0.0.1:10004/" + acct + "/share/f?" + q,
		"https://" + acct + ".file.core.windows.net/share/f?" + q,
		"http://localhost/" + acct + "/share/f?" + q + "&" + w.token,
		"https://" + acct + ".file.core.windows.net/share/f?" + w.token + "&" + q,
		"/" + acct + "/share/f?sharesnapshot=" + url.QueryEscape(strings.Replace(snap, ".0000000Z", "Z", 1)),
	}
	for i, src := range forms {
		dest := fmt.Sprintf("share/c%d", i)
		w.doAt(host, http.MethodPut, dest, http.StatusAccepted, "x-ms-copy-source", src)
		if got := w.doAt(host, http.MethodGet, dest, http.StatusOK).Body.String(); got != "before" {
			t.Errorf("copy from %s gave %q, want the snapshot's content", src, got)
		}
		rec := w.doAt(host, http.MethodHead, dest, http.StatusOK)
		wantHeader(t, rec, "x-ms-copy-source", src)

		dest = fmt.Sprintf("share/r%d", i)
		w.doAt(host, http.MethodPut, dest, http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "6")
		w.doAt(host, http.MethodPut, dest+"?comp=range", http.StatusCreated,
			"x-ms-copy-source", src, "x-ms-write", "update", "x-ms-range", "bytes=0-5", "x-ms-source-range", "bytes=0-5")
		if got := w.doAt(host, http.MethodGet, dest, http.StatusOK).Body.String(); got != "before" {
			t.Errorf("range copy from %s gave %q, want the snapshot's content", src, got)
		}
	}
	// The live file is untouched, and a source without sharesnapshot
	// still reads it.
	w.doAt(host, http.MethodPut, "share/live", http.StatusAccepted, "x-ms-copy-source", "/"+acct+"/share/f")
	if got := w.doAt(host, http.MethodGet, "share/live", http.StatusOK).Body.String(); got != "after!" {
		t.Errorf("copy of the live file gave %q", got)
	}
	// A value that is no time is a bad source; a snapshot the share never
	// had names no file.
	rec := w.doAt(host, http.MethodPut, "share/bad", http.StatusBadRequest, "x-ms-copy-source", "/"+acct+"/share/f?sharesnapshot=yesterday")
	wantHeader(t, rec, "x-ms-error-code", "InvalidHeaderValue")
	rec = w.doAt(host, http.MethodPut, "share/gone", http.StatusNotFound, "x-ms-copy-source", "/"+acct+"/share/f?sharesnapshot=2001-01-01T00:00:00.0000000Z")
	if code, _ := header(rec, "x-ms-error-code"); code == "" {
		t.Error("a missing snapshot answered no error code")
	}
	// A snapshot is read-only: a rename cannot move a file out of one.
	w.doAt(host, http.MethodPut, "share/moved?comp=rename", http.StatusNotImplemented, "x-ms-file-rename-source", "/"+acct+"/share/f?"+q)
}
