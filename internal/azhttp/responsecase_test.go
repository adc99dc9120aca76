package azhttp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// wireHeader reads a recorded response's headers the way an HTTP client
// does, whatever case they were sent in.
func wireHeader(w *httptest.ResponseRecorder) http.Header {
	out := http.Header{}
	for k, v := range w.Header() {
		for _, s := range v {
			out.Add(k, s)
		}
	}
	return out
}

func TestAzureHeaderCase(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("x-ms-blob-type", "BlockBlob")
		w.Header().Set("X-Ms-Meta-Colour", "blue")
		w.Header()["x-ms-meta-Shape"] = []string{"round"}
		w.Header().Set("ETag", `"1"`)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
	})
	srv := httptest.NewServer(Wrap("blob", nil, nil, WriteError, h))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	// The client canonicalises what it reads, so read the raw names off a
	// recorder instead, through the same writer.
	w := httptest.NewRecorder()
	Wrap("blob", nil, nil, WriteError, h).ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	for _, want := range []string{"x-ms-blob-type", "x-ms-meta-Colour", "x-ms-meta-Shape", "x-ms-request-id", "x-ms-version", "Etag", "Content-Type", "Date", "Server"} {
		if _, ok := w.Header()[want]; !ok {
			t.Errorf("header %q not sent in that case: %v", want, w.Header())
		}
	}
	for k := range w.Header() {
		if len(k) > 5 && k[:5] == "X-Ms-" {
			t.Errorf("header %q sent in Go's canonical case", k)
		}
	}
	if resp.Header.Get("x-ms-blob-type") != "BlockBlob" {
		t.Errorf("client read x-ms-blob-type = %q", resp.Header.Get("x-ms-blob-type"))
	}

	hdr := http.Header{"Etag": {`"2"`}, "X-Ms-Foo": {"a"}, "x-ms-foo": {"stale"}}
	AzureHeaderCase(hdr, "etag")
	etag, foo := strings.ToLower("ETag"), strings.ToLower("X-Ms-Foo") // raw, non-canonical keys
	if len(hdr) != 2 || hdr[etag][0] != `"2"` || hdr[foo][0] != "a" {
		t.Fatalf("AzureHeaderCase = %v", hdr)
	}
}
