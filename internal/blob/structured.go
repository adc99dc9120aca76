package blob

import (
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azbody"
	"github.com/cerulean-db/cerulean/internal/azerr"
)

// maxStructuredDownload is the largest range Get Blob returns as a
// structured message.
const maxStructuredDownload = 4 << 20

// structuredContent describes an upload whose body is a structured
// message (x-ms-structured-body): ok is false for a plain body. The
// content, at most limit bytes, is read through the message's decoder,
// which verifies every segment's CRC64 and the message's.
func structuredContent(q *request, limit int64) (c Content, ok bool, err error) {
	ok, n, err := azbody.ParseStructuredBody(q.r.Header)
	if err != nil || !ok {
		return Content{}, ok, err
	}
	if q.r.ContentLength < 0 {
		return Content{}, true, azerr.ErrMissingContentLengthHeader
	}
	if n > limit {
		return Content{}, true, azerr.ErrRequestBodyTooLarge
	}
	if n > q.r.ContentLength {
		return Content{}, true, azerr.InvalidHeaderValue("x-ms-structured-content-length", q.r.Header.Get("X-Ms-Structured-Content-Length")).
			WithMessage("x-ms-structured-content-length is larger than the message in the body.")
	}
	if q.r.Header.Get("Content-Md5") != "" || q.r.Header.Get("X-Ms-Content-Crc64") != "" {
		// The message carries its own checksums: Azure takes one form of
		// transactional validation per request.
		return Content{}, true, azerr.ErrInvalidInput.WithMessage("A structured body may not be combined with Content-MD5 or x-ms-content-crc64.")
	}
	d := azbody.NewStructuredReader(q.r.Body, q.r.ContentLength, n)
	return Content{Body: d, Length: n, Structured: d}, true, nil
}

// payloadLength is the size of the content a write carries: the
// structured message's content length, or the body's.
func payloadLength(r *http.Request) int64 {
	if ok, n, err := azbody.ParseStructuredBody(r.Header); ok && err == nil {
		return n
	}
	return r.ContentLength
}

// finish verifies that a structured body ended where its content did.
func (c Content) finish() error {
	if c.Structured == nil {
		return nil
	}
	return c.Structured.Done()
}

// writeStructuredEcho tells the client its structured body was decoded
// and verified, as Azure does.
func writeStructuredEcho(h http.Header, w *Written) {
	if w.Structured {
		h.Set("X-Ms-Structured-Body", azbody.StructuredBodyCRC64)
	}
}

// checkStructuredDownload refuses a structured download of more than Azure
// encodes in one response.
func checkStructuredDownload(d *Download) error {
	if d.Length > maxStructuredDownload {
		return azerr.ErrOutOfRangeInput.WithMessage("x-ms-structured-body is allowed for ranges up to 4 MiB.")
	}
	return nil
}
