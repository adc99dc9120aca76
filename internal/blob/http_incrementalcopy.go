package blob

import (
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// incrementalCopy serves Incremental Copy Blob: the source, a page blob
// snapshot, is authorized by its own SAS or public access. Azure runs
// incremental copies in the background and answers every one with
// x-ms-copy-status pending (go-storage CopyBlobSuite
// TestIncrementalCopyBlobNoTimeout and TestIncrementalCopyBlobWithTimeout
// recorded it; azblob's live TestIncrementalCopy requires it, then polls
// Get Blob Properties until success). The copy here is committed before
// the answer, so it answers pending too and has succeeded by the time a
// later request looks: that is what a client of Azure sees of a copy that
// finishes at once.
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
	copied, err := h.svc.CopyBlob(q.ctx(), CopyRequest{
		Source: src,
		Acct:   q.acct, Container: q.container, Blob: q.blob,
		Incremental: true,
		Dest:        writePreconditions(q),
	})
	if err != nil {
		return err
	}
	b := copied.Blob
	hdr := q.w.Header()
	hdr.Set("X-Ms-Copy-Id", b.Copy.ID)
	hdr.Set("X-Ms-Copy-Status", copyPending)
	return writeWriteResult(q, b, http.StatusAccepted)
}

// copyPending is x-ms-copy-status of a copy still running.
const copyPending = "pending"
