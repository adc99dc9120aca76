package blob

import (
	"net/http"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// parseVersionID reads ?versionid=, which addresses a version the way
// ?snapshot= addresses a snapshot (the two exclude each other).
func parseVersionID(q *request) error {
	v := q.q.Get("versionid")
	if v == "" {
		return nil
	}
	id, err := parseSnapshot("versionid", v)
	if err != nil {
		return err
	}
	if q.snapshot != "" {
		return azerr.InvalidQueryParameterValue("versionid", v, "").WithMessage("The snapshot and versionid parameters are mutually exclusive.")
	}
	q.snapshot = versionPoint(id)
	return nil
}

// writeVersionHeaders reports which version a read served: the current
// one (the blob itself) or a previous one. Snapshots have none.
func writeVersionHeaders(h http.Header, b *Blob) {
	if b.VersionID == "" {
		return
	}
	if _, isVersion := versionOf(b.point); b.point != "" && !isVersion {
		return
	}
	h.Set("X-Ms-Version-Id", b.VersionID)
	h.Set("X-Ms-Is-Current-Version", strconv.FormatBool(b.point == ""))
}

// checkDeleteType refuses deletetype values other than permanent, and
// permanent itself, which this server does not offer yet.
func checkDeleteType(q *request) error {
	switch v := q.q.Get("deletetype"); v {
	case "":
		return nil
	case "permanent":
		return azerr.ErrNotImplemented.WithMessage("Permanent delete of soft-deleted snapshots and versions is not supported by this server yet.")
	default:
		return azerr.InvalidQueryParameterValue("deletetype", v, "")
	}
}

// writeDeleteType sets x-ms-delete-type-permanent: false when the
// deleted data is kept, by soft delete or, for the blob itself, as a
// previous version.
func (h *handler) writeDeleteType(q *request) error {
	p, err := h.door.Props.Get(q.ctx(), q.acct)
	if err != nil {
		return err
	}
	d := p.DeleteRetentionPolicy
	kept := d != nil && d.Enabled
	if q.snapshot == "" && h.svc.dp.versioning {
		kept = true
	}
	q.w.Header().Set("X-Ms-Delete-Type-Permanent", strconv.FormatBool(!kept))
	return nil
}

func (h *handler) undeleteBlob(q *request) error {
	if q.snapshot != "" {
		return azerr.InvalidQueryParameterValue("snapshot", q.q.Get("snapshot"), "").WithMessage("This operation is not permitted on a snapshot.")
	}
	if err := h.svc.UndeleteBlob(q.ctx(), q.ref()); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

// restoreContainer serves Restore Container, at the container's URL or
// the account's: Azure checks the headers at either
// (go-TestContainerRestoreFailures).
func (h *handler) restoreContainer(q *request) error {
	name := q.r.Header.Get("X-Ms-Deleted-Container-Name")
	if name == "" {
		return azerr.MissingRequiredHeader("x-ms-deleted-container-name")
	}
	version := q.r.Header.Get("X-Ms-Deleted-Container-Version")
	if version == "" {
		return azerr.MissingRequiredHeader("x-ms-deleted-container-version")
	}
	if name != q.container {
		return azerr.ErrNotImplemented.WithMessage("Restoring a deleted container under another name is not supported by this server.")
	}
	c, err := h.svc.RestoreContainer(q.ctx(), q.acct, name, version)
	if err != nil {
		return err
	}
	writeContainerHeaders(q.w.Header(), c)
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}
