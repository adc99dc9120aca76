package blob

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

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
			subs, refused := (&handler{}).parseBatch(batchRequest(tc.container), tc.body, "b")
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
		subs, refused := (&handler{}).parseBatch(batchRequest(container), body, "b")
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
