package file

import (
	"bytes"
	"io"

	"github.com/cerulean-db/cerulean/internal/azbody"
	"github.com/cerulean-db/cerulean/internal/azerr"
)

// structuredRange reads a Put Range body sent as a structured message
// (x-ms-structured-body): the message is decoded and every CRC64 verified
// before the range is written, and its content must be length bytes. A
// plain body is returned as it is.
func structuredRange(q *request, length int64) (bool, io.Reader, error) {
	ok, n, err := azbody.ParseStructuredBody(q.r.Header)
	if err != nil || !ok {
		return false, q.r.Body, err
	}
	if n != length {
		return true, nil, azerr.InvalidHeaderValue("x-ms-structured-content-length", q.r.Header.Get("X-Ms-Structured-Content-Length")).
			WithMessage("x-ms-structured-content-length %d does not match the range length %d.", n, length)
	}
	if q.r.ContentLength < 0 {
		return true, nil, azerr.ErrMissingContentLengthHeader
	}
	if q.r.Header.Get("Content-Md5") != "" || q.r.Header.Get("X-Ms-Content-Crc64") != "" {
		return true, nil, azerr.ErrInvalidInput.WithMessage("A structured body may not be combined with Content-MD5 or x-ms-content-crc64.")
	}
	data, err := azbody.DecodeStructured(q.r.Body, q.r.ContentLength, n)
	if err != nil {
		return true, nil, err
	}
	return true, bytes.NewReader(data), nil
}
