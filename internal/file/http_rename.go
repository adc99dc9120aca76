package file

import (
	"net/http"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// renameBool reads one of Rename's true/false headers (absent is false).
func renameBool(h http.Header, name string) (bool, error) {
	v := h.Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, azerr.InvalidHeaderValue(name, v)
	}
	return b, nil
}

// rename serves Rename File and Rename Directory: the request addresses
// the destination, x-ms-file-rename-source the source in the same share.
func (h *handler) rename(q *request, dir bool) error {
	raw := q.r.Header.Get("X-Ms-File-Rename-Source")
	if raw == "" {
		return azerr.MissingRequiredHeader("x-ms-file-rename-source")
	}
	if err := checkOnePermission(q.r.Header); err != nil {
		return err
	}
	src, err := h.parseSource(q, raw, azerr.InvalidHeaderValue("x-ms-file-rename-source", raw))
	if err != nil {
		return err
	}
	if src.snapshot != "" {
		return azerr.ErrNotImplemented.WithMessage("A share snapshot (sharesnapshot) as a rename source is not supported by this server.")
	}
	if src.acct != q.acct || src.share != q.share {
		return azerr.InvalidHeaderValue("x-ms-file-rename-source", raw).WithMessage("A rename moves a file or directory within its share.")
	}
	// Azure renames files and directories with a share SAS granting
	// read, create and write and not delete (azfile's live
	// TestFileRenameUsingSAS and TestDirectoryRenameUsingSAS); which of
	// those it checks on the source is not recorded, so a source whose
	// SAS grants any of them, or delete, is taken, and one granting none
	// (a listing SAS) is refused.
	if err := h.authorizeSource(q, src, 'w', 'r', 'c', 'd'); err != nil {
		return err
	}
	r := Rename{Source: src.path, Dest: q.path, Dir: dir,
		SourceLeaseID: q.r.Header.Get("X-Ms-Source-Lease-Id"), DestLeaseID: q.r.Header.Get("X-Ms-Destination-Lease-Id")}
	if r.ReplaceIfExists, err = renameBool(q.r.Header, "x-ms-file-rename-replace-if-exists"); err != nil {
		return err
	}
	if r.IgnoreReadOnly, err = renameBool(q.r.Header, "x-ms-file-rename-ignore-readonly"); err != nil {
		return err
	}
	if r.IgnoreReadOnly && !r.ReplaceIfExists {
		return azerr.InvalidHeaderValue("x-ms-file-rename-ignore-readonly", "true").WithMessage("x-ms-file-rename-ignore-readonly needs x-ms-file-rename-replace-if-exists: true.")
	}
	if r.SMB, err = parseSMBUpdate(q.r.Header, dir, false); err != nil {
		return err
	}
	meta, err := azhttp.ParseMetadata(q.r.Header)
	if err != nil {
		return err
	}
	if len(meta) > 0 {
		r.Metadata = meta
	}
	if _, ok := q.r.Header["X-Ms-Content-Type"]; ok && !dir {
		ct := q.r.Header.Get("X-Ms-Content-Type")
		r.ContentType = &ct
	}
	n, err := h.svc.Rename(q.ctx(), q.shareRef(), r)
	if err != nil {
		return err
	}
	writeNode(q.w.Header(), n)
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

func (h *handler) renameFile(q *request) error      { return h.rename(q, false) }
func (h *handler) renameDirectory(q *request) error { return h.rename(q, true) }
