package bench

import (
	"io"
	"net/http"
	"strconv"
)

// NullHandler is the ceiling a storage server can reach on this machine:
// it does no work beyond reading the request, answering each request with the status the SDKs
// expect for its method and, for reads, a 1 KiB body (what blob-get-1k
// downloads).
func NullHandler() http.Handler {
	body := make([]byte, 1<<10)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the body first: answering before it is consumed makes the
		// SDK free its upload buffers while the transport still sends them.
		_, _ = io.Copy(io.Discard, r.Body)
		h := w.Header()
		h.Set("x-ms-request-id", "00000000-0000-0000-0000-000000000000")
		h.Set("x-ms-version", "2026-06-06")
		h.Set("ETag", `"0x1"`)
		h.Set("Last-Modified", "Sun, 22 Nov 2026 00:00:00 GMT")
		switch r.Method {
		case http.MethodPut, http.MethodPost:
			h.Set("Content-Length", "0")
			w.WriteHeader(http.StatusCreated)
		case http.MethodDelete:
			h.Set("Content-Length", "0")
			w.WriteHeader(http.StatusAccepted)
		case http.MethodHead:
			h.Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(http.StatusOK)
		default:
			h.Set("Content-Length", strconv.Itoa(len(body)))
			h.Set("x-ms-blob-type", "BlockBlob")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(body)
		}
	})
}
