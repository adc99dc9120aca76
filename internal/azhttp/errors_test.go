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
)

func TestErrorIs(t *testing.T) {
	custom := ErrBlobNotFound.WithMessage("blob %q is gone", "x")
	if !errors.Is(fmt.Errorf("get: %w", custom), ErrBlobNotFound) {
		t.Fatal("WithMessage copy does not match its sentinel")
	}
	if errors.Is(custom, ErrContainerNotFound) {
		t.Fatal("different codes match")
	}
	if errors.Is(ErrNotModified, ErrConditionNotMet) {
		t.Fatal("304 and 412 ConditionNotMet must be told apart")
	}
	if ErrBlobNotFound.Message != "The specified blob does not exist." || custom.Error() != `BlobNotFound: blob "x" is gone` {
		t.Fatalf("sentinel changed or Error() wrong: %q", custom.Error())
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
		{"azure error", "GET", ErrContainerNotFound, 404, "ContainerNotFound", true, "The specified container does not exist."},
		{"wrapped", "PUT", fmt.Errorf("put blob: %w", ErrBlobAlreadyExists.WithMessage("a <b> & c")), 409, "BlobAlreadyExists", true, "a <b> & c"},
		{"head has no body", "HEAD", ErrBlobNotFound, 404, "BlobNotFound", false, ""},
		{"not modified has no body", "GET", ErrNotModified, 304, "ConditionNotMet", false, ""},
		{"unknown error hidden", "GET", errors.New("disk on fire"), 500, "InternalError", true, ErrInternalError.Message},
		{"client went away", "GET", fmt.Errorf("read: %w", context.Canceled), 500, "InternalError", true, ErrInternalError.Message},
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
	WriteErrorJSON(w, r, ErrResourceAlreadyExists)
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
