package blob

import (
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
)

// copyBlob serves Copy Blob and Copy Blob From URL (x-ms-requires-sync):
// both complete before the response.
func (s *Service) copyBlob(q *request) error {
	src, err := s.ParseCopySource(q.r.Header.Get("x-ms-copy-source"))
	if err != nil {
		return err
	}
	if err := s.authorizeCopySource(q, src); err != nil {
		return err
	}
	meta, err := azhttp.ParseRequestMetadata(q.r)
	if err != nil {
		return err
	}
	if len(meta) == 0 {
		meta = nil // the copy keeps the source's metadata
	}
	b, err := s.CopyBlob(q.ctx(), CopyRequest{
		Source:        src,
		SourceCond:    conditions.FromHeader(q.r.Header, "x-ms-source-"),
		SourceLeaseID: q.r.Header.Get("x-ms-source-lease-id"),
		Acct:          q.acct, Container: q.container, Blob: q.blob,
		Metadata: meta,
		Dest:     preconditions(q.r.Header),
	})
	if err != nil {
		return err
	}
	h := q.w.Header()
	h.Set("x-ms-copy-id", b.Copy.ID)
	h.Set("x-ms-copy-status", b.Copy.Status)
	return writeWriteResult(q, b, http.StatusAccepted)
}

func (s *Service) abortCopy(q *request) error {
	if q.r.Header.Get("x-ms-copy-action") != "abort" {
		return azhttp.ErrInvalidHeaderValue.WithMessage("The value for header x-ms-copy-action must be \"abort\".")
	}
	id := q.q.Get("copyid")
	if id == "" {
		return azhttp.ErrMissingRequiredQueryParameter.WithMessage("A query parameter that's mandatory for this request is not specified: copyid.")
	}
	return s.AbortCopy(q.ctx(), q.acct, q.container, q.blob, id, preconditions(q.r.Header))
}
