package file

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azbody"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// parseCopySMB reads Copy File's SMB headers: each may say "source" to
// take the source's value; x-ms-file-permission-copy-mode says where the
// permission comes from.
func parseCopySMB(h http.Header) (CopySMB, error) {
	var c CopySMB
	given := h.Clone()
	fromSource := func(name string, flag *bool) {
		if strings.EqualFold(strings.TrimSpace(h.Get(name)), "source") {
			*flag = true
			given.Del(name)
		}
	}
	fromSource("x-ms-file-attributes", &c.AttributesFromSource)
	fromSource("x-ms-file-creation-time", &c.CreationTimeFromSource)
	fromSource("x-ms-file-last-write-time", &c.LastWriteTimeFromSource)
	fromSource("x-ms-file-change-time", &c.ChangeTimeFromSource)
	mode := h.Get("X-Ms-File-Permission-Copy-Mode")
	hasPermission := h.Get("X-Ms-File-Permission") != "" || h.Get("X-Ms-File-Permission-Key") != ""
	switch {
	case mode == "" && hasPermission:
		return c, azerr.MissingRequiredHeader("x-ms-file-permission-copy-mode").WithMessage("A permission given to Copy File needs x-ms-file-permission-copy-mode: override.")
	case mode == "":
	case strings.EqualFold(mode, "source"):
		if hasPermission {
			return c, azerr.InvalidHeaderValue("x-ms-file-permission-copy-mode", mode).WithMessage("x-ms-file-permission-copy-mode: source takes no x-ms-file-permission.")
		}
		c.PermissionFromSource = true
	case strings.EqualFold(mode, "override"):
		if !hasPermission {
			return c, azerr.MissingRequiredHeader("x-ms-file-permission").WithMessage("x-ms-file-permission-copy-mode: override needs x-ms-file-permission.")
		}
	default:
		return c, azerr.InvalidHeaderValue("x-ms-file-permission-copy-mode", mode)
	}
	var err error
	if c.SMBChange, err = parseSMB(given, false); err != nil {
		return c, err
	}
	if c.SetArchive, err = renameBool(h, "x-ms-file-copy-set-archive"); err != nil {
		return c, err
	}
	c.ModeFromSource, c.OwnerFromSource, err = parseNFSCopyModes(h)
	return c, err
}

func (h *handler) copyFile(q *request) error {
	raw := q.r.Header.Get("X-Ms-Copy-Source")
	src, err := h.parseSource(q, raw, azerr.InvalidHeaderValue("x-ms-copy-source", raw))
	if err != nil {
		return err
	}
	if err := h.authorizeSource(q, src, 'r'); err != nil {
		return azerr.ErrCannotVerifyCopySource.WithMessage("This request is not authorized to perform this operation using this source: %v", err)
	}
	req := CopyRequest{SourceURL: raw, SrcAcct: src.acct, SrcShare: src.readShare(), SrcPath: src.path,
		Acct: q.acct, Share: q.share, Path: q.path, Dest: preconditions(q.r.Header)}
	if req.SMB, err = parseCopySMB(q.r.Header); err != nil {
		return err
	}
	if req.IgnoreReadOnly, err = renameBool(q.r.Header, "x-ms-file-copy-ignore-readonly"); err != nil {
		return err
	}
	meta, err := azhttp.ParseMetadata(q.r.Header)
	if err != nil {
		return err
	}
	if len(meta) > 0 {
		req.Metadata = meta
	}
	n, err := h.svc.CopyFile(q.ctx(), req)
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	hdr.Set("Etag", azhttp.ETag(n.Version))
	hdr.Set("Last-Modified", azhttp.HTTPTime(n.Modified))
	if n.Copy != nil {
		hdr.Set("X-Ms-Copy-Id", n.Copy.ID)
		hdr.Set("X-Ms-Copy-Status", n.Copy.Status)
	}
	return azhttp.WriteEmpty(q.w, http.StatusAccepted)
}

// writeCopyHeaders reports the copy that made a file, if it still
// stands.
func writeCopyHeaders(h http.Header, c *CopyInfo) {
	if c == nil {
		return
	}
	h.Set("X-Ms-Copy-Id", c.ID)
	h.Set("X-Ms-Copy-Source", c.Source)
	h.Set("X-Ms-Copy-Status", c.Status)
	h.Set("X-Ms-Copy-Progress", strconv.FormatInt(c.Copied, 10)+"/"+strconv.FormatInt(c.Total, 10))
	if !c.Completed.IsZero() {
		h.Set("X-Ms-Copy-Completion-Time", azhttp.HTTPTime(c.Completed))
	}
	if c.Description != "" {
		h.Set("X-Ms-Copy-Status-Description", c.Description)
	}
}

func (h *handler) abortCopy(q *request) error {
	if v := q.r.Header.Get("X-Ms-Copy-Action"); v != "abort" {
		if v == "" {
			return azerr.MissingRequiredHeader("x-ms-copy-action")
		}
		return azerr.InvalidHeaderValue("x-ms-copy-action", v).WithMessage("The value for header x-ms-copy-action must be \"abort\".")
	}
	id := q.q.Get("copyid")
	if id == "" {
		return azerr.MissingRequiredQueryParameter("copyid")
	}
	// A copy ID is a GUID; Azure checks that before it looks for the file
	// (the azfile recording TestFileAbortCopyNoCopyStarted).
	if !lease.ValidID(id) {
		return azerr.InvalidQueryParameterValue("copyid", id, "copyid needs to be valid Guid.")
	}
	if err := h.svc.AbortCopy(q.ctx(), q.ref(), id, preconditions(q.r.Header)); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusNoContent)
}

func (h *handler) putRangeFromURL(q *request) error {
	hdr := q.r.Header
	if v := hdr.Get("X-Ms-Write"); v != "update" {
		if v == "" {
			return azerr.MissingRequiredHeader("x-ms-write")
		}
		return azerr.InvalidHeaderValue("x-ms-write", v).WithMessage("Put Range From URL only updates: x-ms-write must be \"update\".")
	}
	if q.r.ContentLength > 0 {
		return azerr.InvalidHeaderValue("Content-Length", strconv.FormatInt(q.r.ContentLength, 10)).WithMessage("Put Range From URL takes no body.")
	}
	if hdr.Get("X-Ms-Copy-Source-Authorization") != "" {
		return azerr.ErrNotImplemented.WithMessage("x-ms-copy-source-authorization (OAuth for the source) is not supported by this server yet.")
	}
	dst, err := azhttp.ParseRange(hdr, true)
	if err != nil {
		return err
	}
	if dst == nil {
		return azerr.MissingRequiredHeader("x-ms-range").WithMessage("Put Range From URL needs a closed range in x-ms-range or Range.")
	}
	srcRange := hdr.Get("X-Ms-Source-Range")
	if srcRange == "" {
		return azerr.MissingRequiredHeader("x-ms-source-range")
	}
	sr, err := azhttp.ParseRange(http.Header{"X-Ms-Range": {srcRange}}, true)
	if err != nil || sr == nil || sr.End < 0 {
		return azerr.InvalidHeaderValue("x-ms-source-range", srcRange)
	}
	length := dst.End - dst.Start + 1
	if sr.End-sr.Start+1 != length {
		return azerr.InvalidHeaderValue("x-ms-source-range", srcRange).WithMessage("The source range and the destination range differ in length.")
	}
	if length > MaxPutRange {
		return azerr.InvalidHeaderValue("x-ms-range", hdr.Get("X-Ms-Range")).WithMessage("A Put Range From URL writes at most 4 MiB.")
	}
	raw := hdr.Get("X-Ms-Copy-Source")
	src, err := h.parseSource(q, raw, azerr.InvalidHeaderValue("x-ms-copy-source", raw))
	if err != nil {
		return err
	}
	if err := h.authorizeSource(q, src, 'r'); err != nil {
		return azerr.ErrCannotVerifyCopySource.WithMessage("This request is not authorized to perform this operation using this source: %v", err)
	}
	rc := RangeCopy{SrcAcct: src.acct, SrcShare: src.readShare(), SrcPath: src.path, SrcOffset: sr.Start,
		Acct: q.acct, Share: q.share, Path: q.path, Offset: dst.Start, Length: length, Dest: preconditions(hdr)}
	for name, into := range map[string]*[]byte{
		"x-ms-source-content-crc64":       &rc.SourceCRC64,
		"x-ms-source-if-match-crc64":      &rc.IfMatchCRC64,
		"x-ms-source-if-none-match-crc64": &rc.IfNoneMatchCRC64,
	} {
		if *into, err = azbody.ParseCRC64(hdr, name); err != nil {
			return err
		}
	}
	if rc.KeepLastWriteTime, err = parseLastWriteMode(hdr); err != nil {
		return err
	}
	w, err := h.svc.PutRangeFromURL(q.ctx(), rc)
	if err != nil {
		return err
	}
	out := q.w.Header()
	out.Set("Etag", azhttp.ETag(w.File.Version))
	out.Set("Last-Modified", azhttp.HTTPTime(w.File.Modified))
	out.Set("X-Ms-Content-Crc64", base64.StdEncoding.EncodeToString(w.ContentCRC64))
	out.Set("X-Ms-Request-Server-Encrypted", "true")
	out.Set("X-Ms-File-Last-Write-Time", w.File.SMB.LastWriteTime.UTC().Format(smbTimeLayout))
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}

// parseLastWriteMode reads a range write's x-ms-file-last-write-time:
// "now" (the default) or "preserve", which it reports as true.
func parseLastWriteMode(h http.Header) (bool, error) {
	switch v := h.Get("X-Ms-File-Last-Write-Time"); {
	case v == "" || strings.EqualFold(v, "now"):
		return false, nil
	case strings.EqualFold(v, "preserve"):
		return true, nil
	default:
		return false, azerr.InvalidHeaderValue("x-ms-file-last-write-time", v)
	}
}
