package file

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azauth"
)

// TestCreateFileBody: Create File takes a body from version 2026-02-06
// (the file's first bytes, no more than its size); an older version
// refuses one as before. A Content-MD5 the body does not have answers
// Md5Mismatch naming both digests (the azfile recording
// TestFileCreateDataIncorrectMD5).
func TestCreateFileBody(t *testing.T) {
	w := newWire(t)
	w.do(http.MethodPut, "share?restype=share", http.StatusCreated)
	put := func(path, version string, size string, body []byte, headers ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPut, "http://127.0.0.1/"+azauth.DevAccount+"/share/"+path+"?"+w.token, bytes.NewReader(body))
		req.Header.Set("x-ms-version", version)
		req.Header.Set("x-ms-type", "file")
		req.Header.Set("x-ms-content-length", size)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		rec := httptest.NewRecorder()
		w.handler.ServeHTTP(rec, req)
		return rec
	}
	data := []byte("hello, file")
	if rec := put("old", "2025-11-05", "11", data); rec.Code != http.StatusBadRequest {
		t.Errorf("a body at 2025-11-05: %d", rec.Code)
	}
	if rec := put("short", "2026-02-06", "5", data); rec.Code != http.StatusBadRequest {
		t.Errorf("a body longer than the file: %d", rec.Code)
	}
	rec := put("bad", "2026-06-06", "11", data, "Content-MD5", base64.StdEncoding.EncodeToString(make([]byte, 16)))
	sum := md5.Sum(data)
	body := rec.Body.String()
	if rec.Code != http.StatusBadRequest || !strings.Contains(body, "<Code>Md5Mismatch</Code>") ||
		!strings.Contains(body, "<UserSpecifiedMd5>AAAAAAAAAAAAAAAAAAAAAA==</UserSpecifiedMd5>") ||
		!strings.Contains(body, "<ServerCalculatedMd5>"+base64.StdEncoding.EncodeToString(sum[:])+"</ServerCalculatedMd5>") {
		t.Errorf("a wrong Content-MD5: %d %s", rec.Code, body)
	}
	rec = put("good", "2026-02-06", "11", data)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create with data: %d %s", rec.Code, rec.Body)
	}
	wantHeader(t, rec, "Content-MD5", base64.StdEncoding.EncodeToString(sum[:]))
	if got := w.do(http.MethodGet, "share/good", http.StatusOK).Body.Bytes(); !bytes.Equal(got, data) {
		t.Errorf("the file reads %q", got)
	}
}

// TestAbortCopyID: Abort Copy File checks that copyid is a GUID before it
// looks for the file (the azfile recording TestFileAbortCopyNoCopyStarted
// aborts "copynotstarted" on a file that does not exist).
func TestAbortCopyID(t *testing.T) {
	w := newWire(t)
	w.do(http.MethodPut, "share?restype=share", http.StatusCreated)
	rec := w.do(http.MethodPut, "share/missing?comp=copy&copyid=copynotstarted", http.StatusBadRequest, "x-ms-copy-action", "abort")
	wantHeader(t, rec, "x-ms-error-code", "InvalidQueryParameterValue")
	if body := rec.Body.String(); !strings.Contains(body, "<QueryParameterName>copyid</QueryParameterName>") ||
		!strings.Contains(body, "<QueryParameterValue>copynotstarted</QueryParameterValue>") {
		t.Errorf("answer %s", body)
	}
	rec = w.do(http.MethodPut, "share/missing?comp=copy&copyid=ca761232-ed42-11ce-bacd-00aa0057b223", http.StatusNotFound, "x-ms-copy-action", "abort")
	wantHeader(t, rec, "x-ms-error-code", "ResourceNotFound")
}
