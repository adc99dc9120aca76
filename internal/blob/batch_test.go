package blob

import (
	"context"
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
)

// batchBody writes parts as a multipart/mixed batch body with boundary "b".
func batchBody(parts ...string) []byte {
	var b strings.Builder
	for i, p := range parts {
		b.WriteString("--b\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: " + strconv.Itoa(i) + "\r\n\r\n" + p + "\r\n")
	}
	b.WriteString("--b--\r\n")
	return []byte(b.String())
}

// batchHandler is a handler that knows the accounts "acct" and "other",
// which is all parseBatch asks of it.
func batchHandler() *handler {
	return &handler{svc: &Service{accounts: azauth.NewAccounts(azauth.Account{Name: "acct"}, azauth.Account{Name: "other"})}}
}

func batchRequest(container string) *request {
	target := "/acct/?comp=batch"
	if container != "" {
		target = "/acct/" + container + "?restype=container&comp=batch"
	}
	return &request{r: httptest.NewRequest("POST", target, nil), acct: "acct", container: container}
}

// TestParseBatch: which bodies Azure refuses as a whole, and with what.
func TestParseBatch(t *testing.T) {
	del := func(path string) string { return "DELETE " + path + " HTTP/1.1\r\nContent-Length: 0\r\n\r\n" }
	tier := func(path string) string {
		return "PUT " + path + "?comp=tier HTTP/1.1\r\nx-ms-access-tier: Cool\r\nContent-Length: 0\r\n\r\n"
	}
	many := make([]string, maxBatchSubRequests+1)
	for i := range many {
		many[i] = del("/acct/c/b" + strconv.Itoa(i))
	}
	for _, tc := range []struct {
		name      string
		container string
		body      []byte
		subs      int
		refused   *azerr.Error
	}{
		{"deletes", "", batchBody(del("/acct/c/a"), del("/acct/d/b")), 2, nil},
		{"set tier in the container", "c", batchBody(tier("/acct/c/a"), tier("/acct/c/b%20c")), 2, nil},
		{"headers ended by the delimiter", "", batchBody("DELETE /acct/c/a HTTP/1.1\r\nx-ms-date: now\r\n"), 1, nil},
		{"the most sub-requests", "", batchBody(many[:maxBatchSubRequests]...), maxBatchSubRequests, nil},
		{"one too many", "", batchBody(many...), 0, azerr.ErrExceedsMaxBatchRequestCount},
		{"mixed kinds", "", batchBody(del("/acct/c/a"), tier("/acct/c/b")), 0, azerr.ErrAllBatchSubRequestsShouldBeSameApi},
		{"no sub-requests", "", batchBody(), 0, azerr.ErrInvalidInput},
		{"not multipart", "", []byte("DELETE /acct/c/a HTTP/1.1\r\n\r\n"), 0, azerr.ErrInvalidInput},
		{"an operation a batch cannot carry", "", batchBody("GET /acct/c/a HTTP/1.1\r\n\r\n"), 0, azerr.ErrInvalidInput},
		{"another container", "c", batchBody(del("/acct/c/a"), del("/acct/d/a")), 0, azerr.ErrInvalidInput},
		{"another account", "", batchBody(del("/other/c/a")), 0, azerr.ErrInvalidInput},
		{"a sub-request with a body", "", batchBody("DELETE /acct/c/a HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"), 0, azerr.ErrInvalidInput},
		{"not a request", "", batchBody("hello\r\n\r\n"), 0, azerr.ErrInvalidInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			subs, refused := batchHandler().parseBatch(batchRequest(tc.container), tc.body, "b")
			if tc.refused != nil {
				if refused == nil || refused.Code != tc.refused.Code || refused.Status != tc.refused.Status {
					t.Fatalf("refused %v, want %v", refused, tc.refused)
				}
				return
			}
			if refused != nil {
				t.Fatalf("refused %v", refused)
			}
			if len(subs) != tc.subs {
				t.Fatalf("%d sub-requests, want %d", len(subs), tc.subs)
			}
			for i, s := range subs {
				if s.contentID != strconv.Itoa(i) {
					t.Errorf("sub-request %d: Content-ID %q", i, s.contentID)
				}
			}
		})
	}
}

// FuzzParseBatch: any body either yields sub-requests a batch may carry,
// all of one kind and inside the batch's scope, or is refused with a 400.
func FuzzParseBatch(f *testing.F) {
	f.Add([]byte(batchBody("DELETE /acct/c/a HTTP/1.1\r\n\r\n")), "")
	f.Add([]byte(batchBody("PUT /acct/c/a?comp=tier HTTP/1.1\r\nx-ms-access-tier: Hot\r\n")), "c")
	f.Add([]byte("--b\r\n\r\n--b--"), "c")
	f.Fuzz(func(t *testing.T, body []byte, container string) {
		if container != "" && container != "c" {
			container = "c"
		}
		subs, refused := batchHandler().parseBatch(batchRequest(container), body, "b")
		if refused != nil {
			if refused.Status != 400 || subs != nil {
				t.Fatalf("refused %v with %d sub-requests", refused, len(subs))
			}
			return
		}
		if len(subs) == 0 || len(subs) > maxBatchSubRequests {
			t.Fatalf("%d sub-requests accepted", len(subs))
		}
		kind := subRequestKind(subs[0].r)
		for _, s := range subs {
			acct, c, _ := splitPath(s.r.URL.Path)
			if k := subRequestKind(s.r); k == 0 || k != kind || acct != "acct" || container != "" && c != container {
				t.Fatalf("accepted %s %s (kind %d, first %d)", s.r.Method, s.r.URL, k, kind)
			}
		}
	})
}

// TestBatchSubRequestPaths: each form of sub-request target the SDKs
// write resolves to the blob it names, and a target relative to an
// account in a host name keeps the path the client signed.
func TestBatchSubRequestPaths(t *testing.T) {
	hostStyle := func(q *request) *request {
		style := &azauth.HostStyleRequest{Account: "acct", Path: q.r.URL.Path[len("/acct"):], Escaped: q.r.URL.EscapedPath()[len("/acct"):]}
		q.r = q.r.WithContext(context.WithValue(q.r.Context(), azauth.HostStyleKey{}, style))
		return q
	}
	pathStyle := func(q *request) *request { return q }
	for _, tc := range []struct {
		name, container, target string
		batch                   func(*request) *request
		path, signed            string // signed "" for a path-style sub-request
	}{
		// Go's BatchBuilder and .NET against a path-style endpoint.
		{"path style", "", "/acct/c/a%20b", pathStyle, "/acct/c/a b", ""},
		// Every SDK against a production-style endpoint (.NET's
		// Delete_SpecialCharacters recording).
		{"production style", "", "/c/a%20b", hostStyle, "/acct/c/a b", "/c/a%20b"},
		{"production style, container scope", "c", "/c/a", hostStyle, "/acct/c/a", "/c/a"},
		{"production style, a container named as an account", "", "/other/a", hostStyle, "/acct/other/a", "/other/a"},
		// The Python SDK writes /container/blob whatever its endpoint.
		{"python against a path-style endpoint", "", "/c/a?", pathStyle, "/acct/c/a", "/c/a"},
		{"python, container scope", "c", "/c/a", pathStyle, "/acct/c/a", "/c/a"},
		{"python, a container named as the account", "acct", "/acct/a", pathStyle, "/acct/acct/a", "/acct/a"},
		{"path style, a container named as the account", "acct", "/acct/acct/a", pathStyle, "/acct/acct/a", ""},
		{"no leading slash", "", "acct/c/a", pathStyle, "/acct/c/a", ""},
		{"absolute, path style", "", "http://127.0.0.1:10000/acct/c/a", hostStyle, "/acct/c/a", ""},
		{"absolute, production style", "", "https://acct.blob.core.windows.net/c/a", pathStyle, "/acct/c/a", "/c/a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := batchBody("DELETE " + tc.target + " HTTP/1.1\r\nx-ms-date: now\r\n\r\n")
			subs, refused := batchHandler().parseBatch(tc.batch(batchRequest(tc.container)), body, "b")
			if refused != nil || len(subs) != 1 {
				t.Fatalf("refused %v, %d sub-requests", refused, len(subs))
			}
			s := subs[0]
			if s.r.URL.Path != tc.path || s.r.URL.Host != "" {
				t.Errorf("URL %q (path %q), want path %q", s.r.URL, s.r.URL.Path, tc.path)
			}
			switch {
			case tc.signed == "" && s.style != nil:
				t.Errorf("addressed as %+v, want path style", s.style)
			case tc.signed != "" && (s.style == nil || s.style.Escaped != tc.signed || s.style.Account != "acct"):
				t.Errorf("addressed as %+v, want %q in acct's host", s.style, tc.signed)
			}
		})
	}
}

// TestBatchBoundary: the boundary forms Azure accepts, and those it
// refuses.
func TestBatchBoundary(t *testing.T) {
	for ct, want := range map[string]string{
		"multipart/mixed; boundary=batch_357de4f7-6d0b-4e02-8cd2-6361411a9525": "batch_357de4f7-6d0b-4e02-8cd2-6361411a9525",
		// azure-storage-blob 12.0.0b3 (recording
		// test_container.test_delete_blobs_simple): Python's email
		// package chose the boundary, unquoted in the header.
		"multipart/mixed; boundary================1531725606335133470==":   "===============1531725606335133470==",
		`multipart/mixed; boundary="===============1531725606335133470=="`: "===============1531725606335133470==",
		`multipart/mixed; boundary="batch_a b"`:                            "batch_a b",
		"Multipart/Mixed; Boundary=batch_x=y; charset=utf-8":               "batch_x=y",
	} {
		got, err := batchBoundary(ct)
		if err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", ct, got, err, want)
		}
	}
	for ct, code := range map[string]string{
		"":                                   "MissingRequiredHeader",
		"multipart/mixed":                    "InvalidHeaderValue",
		"multipart/mixed; boundary=":         "InvalidHeaderValue",
		"multipart/mixed; boundary=\"\"":     "InvalidHeaderValue",
		"text/plain; boundary=batch_x":       "InvalidHeaderValue",
		"multipart/mixed; charset==batch_x=": "InvalidHeaderValue",
	} {
		_, err := batchBoundary(ct)
		if e := (*azerr.Error)(nil); !errors.As(err, &e) || e.Code != code {
			t.Errorf("%q: %v, want %s", ct, err, code)
		}
	}
}
