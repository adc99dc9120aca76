package blob

import (
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// incrementalCopy serves Incremental Copy Blob: the source, a page blob
// snapshot, is authorized by its own SAS or public access; the copy
// completes before the response.
func (h *handler) incrementalCopy(q *request) error {
	raw := q.r.Header.Get("X-Ms-Copy-Source")
	if raw == "" {
		return azerr.MissingRequiredHeader("x-ms-copy-source")
	}
	src, err := h.parseCopySource(raw)
	if err != nil {
		return err
	}
	if src.Snapshot == "" {
		return azerr.ErrIncrementalCopySourceMustBeSnapshot
	}
	if err := h.authorizeCopySource(q, src, false); err != nil {
		return err
	}
	b, err := h.svc.CopyBlob(q.ctx(), CopyRequest{
		Source: src,
		Acct:   q.acct, Container: q.container, Blob: q.blob,
		Incremental: true,
		Dest:        writePreconditions(q),
	})
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	hdr.Set("X-Ms-Copy-Id", b.Copy.ID)
	hdr.Set("X-Ms-Copy-Status", b.Copy.Status)
	return writeWriteResult(q, b, http.StatusAccepted)
}
