package azhttp

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
)

func TestStoreErrorsAreNever500Unmapped(t *testing.T) {
	tests := []struct {
		err    error
		status int
		code   string
	}{
		{kv.ErrConflict, 503, "ServerBusy"},
		{kv.ErrTxnTooOld, 500, "OperationTimedOut"},
		{kv.ErrTooLarge, 413, "RequestBodyTooLarge"},
		{kv.ErrClosed, 503, "ServerBusy"},
	}
	for _, tc := range tests {
		for _, write := range []func(w *httptest.ResponseRecorder, err error){
			func(w *httptest.ResponseRecorder, err error) {
				WriteError(w, httptest.NewRequest("PUT", "/a/c", nil), err)
			},
			func(w *httptest.ResponseRecorder, err error) {
				WriteErrorJSON(w, httptest.NewRequest("PUT", "/a/t", nil), err)
			},
		} {
			w := httptest.NewRecorder()
			write(w, fmt.Errorf("commit block list: %w", tc.err))
			if w.Code != tc.status || w.Header().Get("x-ms-error-code") != tc.code {
				t.Errorf("%v: got %d %q, want %d %q", tc.err, w.Code, w.Header().Get("x-ms-error-code"), tc.status, tc.code)
			}
		}
	}
	if azerr.ClassifyStore(errors.New("other")) != azerr.NotAStoreFailure || azerr.StoreError(context.Background(), errors.New("x")) != nil {
		t.Fatal("a service error was classified as a store failure")
	}
}

func TestErrorDetailsAreWritten(t *testing.T) {
	w := httptest.NewRecorder()
	WriteError(w, httptest.NewRequest("GET", "/a/c", nil), fmt.Errorf("parse: %w", azerr.InvalidHeaderValue("x-ms-range", "bytes=<9")))
	body, _ := io.ReadAll(w.Result().Body)
	want := "</Message><HeaderName>x-ms-range</HeaderName><HeaderValue>bytes=&lt;9</HeaderValue></Error>"
	if w.Code != 400 || !strings.Contains(string(body), want) {
		t.Fatalf("status %d body %s", w.Code, body)
	}
	e := azerr.OutOfRangeQueryParameterValue("maxresults", "0", 1, 5000)
	if !errors.Is(e, azerr.ErrOutOfRangeQueryParameterValue) || e.Detail("MaximumAllowed") != "5000" || len(azerr.ErrOutOfRangeQueryParameterValue.Details) != 0 {
		t.Fatalf("details %+v leaked into or lost from the sentinel", e.Details)
	}
	if r := azerr.InvalidQueryParameterValue("timeout", "abc", ""); len(r.Details) != 2 {
		t.Fatalf("empty reason written: %+v", r.Details)
	}
}

func TestWriteError(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		err        error
		wantStatus int
		wantCode   string
		wantBody   bool
		wantMsg    string
	}{
		{"azure error", "GET", azerr.ErrContainerNotFound, 404, "ContainerNotFound", true, "The specified container does not exist."},
		{"wrapped", "PUT", fmt.Errorf("put blob: %w", azerr.ErrBlobAlreadyExists.WithMessage("a <b> & c")), 409, "BlobAlreadyExists", true, "a <b> & c"},
		{"head has no body", "HEAD", azerr.ErrBlobNotFound, 404, "BlobNotFound", false, ""},
		{"not modified has no body", "GET", azerr.ErrNotModified, 304, "ConditionNotMet", false, ""},
		{"unknown error hidden", "GET", errors.New("disk on fire"), 500, "InternalError", true, azerr.ErrInternalError.Message},
		{"client went away", "GET", fmt.Errorf("read: %w", context.Canceled), 500, "InternalError", true, azerr.ErrInternalError.Message},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, "/devstoreaccount1/c", nil)
			r = r.WithContext(context.WithValue(r.Context(), requestIDKey, "rid-1"))
			w := httptest.NewRecorder()
			w.Header().Set("Content-Length", "12345") // stale, from a handler that failed late
			WriteError(w, r, tc.err)
			res := w.Result()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tc.wantStatus || res.Header.Get("x-ms-error-code") != tc.wantCode {
				t.Fatalf("status=%d code=%q", res.StatusCode, res.Header.Get("x-ms-error-code"))
			}
			if !tc.wantBody {
				if len(body) != 0 {
					t.Fatalf("unexpected body %q", body)
				}
				return
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/xml" {
				t.Fatalf("Content-Type = %q", ct)
			}
			if !strings.HasPrefix(string(body), `<?xml version="1.0" encoding="utf-8"?>`) {
				t.Fatalf("no XML declaration: %q", body)
			}
			var doc struct {
				Code    string
				Message string
			}
			if err := xml.Unmarshal(body, &doc); err != nil {
				t.Fatalf("body is not XML: %v: %q", err, body)
			}
			lines := strings.Split(doc.Message, "\n")
			if doc.Code != tc.wantCode || len(lines) != 3 || lines[0] != tc.wantMsg || lines[1] != "RequestId:rid-1" || !strings.HasPrefix(lines[2], "Time:") || len(lines[2]) != len("Time:2026-11-22T00:00:00.0000000Z") {
				t.Fatalf("doc = %+v", doc)
			}
		})
	}
}

func TestWriteErrorJSON(t *testing.T) {
	r := httptest.NewRequest("POST", "/devstoreaccount1/Tables", nil)
	w := httptest.NewRecorder()
	w.Header().Set("x-ms-request-id", "rid-2") // found there when the context has none
	WriteErrorJSON(w, r, azerr.ErrResourceAlreadyExists)
	if w.Code != http.StatusConflict || w.Header().Get("x-ms-error-code") != "ResourceAlreadyExists" ||
		w.Header().Get("Content-Type") != "application/json;odata=minimalmetadata;streaming=true;charset=utf-8" {
		t.Fatalf("status=%d headers=%v", w.Code, w.Header())
	}
	var doc struct {
		Err struct {
			Code    string `json:"code"`
			Message struct {
				Lang  string `json:"lang"`
				Value string `json:"value"`
			} `json:"message"`
		} `json:"odata.error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Err.Code != "ResourceAlreadyExists" || doc.Err.Message.Lang != "en-US" ||
		!strings.HasPrefix(doc.Err.Message.Value, "The specified resource already exists.\nRequestId:rid-2\nTime:") {
		t.Fatalf("doc = %+v", doc)
	}
}

// TestWriteErrorODataXML: the Table service's XML operations answer
// errors in OData's XML form (recorded in go-aztables TestSetTooManyCors
// and TestSetTooManyAccessPolicies, go-storage StorageTableSuite
// TestSetPermissionsUnsuccessfully).
func TestWriteErrorODataXML(t *testing.T) {
	r := httptest.NewRequest("PUT", "/devstoreaccount1/t1?comp=acl", nil)
	w := httptest.NewRecorder()
	w.Header().Set("x-ms-request-id", "rid-3")
	w.Header().Set("Content-Type", "application/json") // set before the failure; must not survive
	WriteErrorODataXML(w, r, azerr.ErrInvalidXmlDocument.WithDetails(azerr.Detail{Name: "Reason", Value: "r"}))
	if w.Code != http.StatusBadRequest || w.Header().Get("x-ms-error-code") != "InvalidXmlDocument" || w.Header().Get("Content-Type") != "application/xml" {
		t.Fatalf("status=%d headers=%v", w.Code, w.Header())
	}
	var doc struct {
		XMLName xml.Name `xml:"http://schemas.microsoft.com/ado/2007/08/dataservices/metadata error"`
		Code    string   `xml:"http://schemas.microsoft.com/ado/2007/08/dataservices/metadata code"`
		Message struct {
			Lang string `xml:"http://www.w3.org/XML/1998/namespace lang,attr"`
			Text string `xml:",chardata"`
		} `xml:"http://schemas.microsoft.com/ado/2007/08/dataservices/metadata message"`
	}
	if err := xml.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatalf("%v: %s", err, w.Body.Bytes())
	}
	if doc.Code != "InvalidXmlDocument" || doc.Message.Lang != "en-US" || !strings.Contains(doc.Message.Text, "\nRequestId:rid-3\nTime:") || strings.Contains(w.Body.String(), "Reason") {
		t.Fatalf("doc = %+v in %s", doc, w.Body.Bytes())
	}
}

func TestWriteErrorKeepsContentRangeOn416(t *testing.T) {
	for _, tc := range []struct {
		err  *azerr.Error
		want string
	}{{azerr.ErrInvalidRange, "bytes */42"}, {azerr.ErrInvalidHeaderValue, ""}} {
		w := httptest.NewRecorder()
		w.Header().Set("Content-Range", "bytes */42")
		w.Header().Set("Content-Language", "en")
		WriteError(w, httptest.NewRequest(http.MethodGet, "/", nil), tc.err)
		if got := w.Header().Get("Content-Range"); got != tc.want {
			t.Errorf("%s: Content-Range %q, want %q", tc.err.Code, got, tc.want)
		}
		if w.Header().Get("Content-Language") != "" {
			t.Errorf("%s: Content-Language kept", tc.err.Code)
		}
	}
}
