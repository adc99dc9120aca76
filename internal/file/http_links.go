package file

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

func (h *handler) createSymbolicLink(q *request) error {
	smb, err := parseSMB(q.r.Header, false)
	if err != nil {
		return err
	}
	meta, err := azhttp.ParseMetadata(q.r.Header)
	if err != nil {
		return err
	}
	// The SDKs send the link text as written; a percent-encoded one is
	// stored decoded, as Get Symbolic Link encodes it again.
	text := q.r.Header.Get("X-Ms-Link-Text")
	if t, err := url.PathUnescape(text); err == nil {
		text = t
	}
	n, err := h.svc.CreateSymbolicLink(q.ctx(), q.ref(), SymbolicLinkOptions{LinkText: text, NFS: smb.NFS, Metadata: meta,
		CreationTime: smb.CreationTime, LastWriteTime: smb.LastWriteTime})
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	writeNode(hdr, n)
	nfsDetails(hdr, n, true, false)
	// Azure reports a link's and a hard link's creation as not encrypted
	// (TestCreateSymbolicLinkNFS, TestCreateHardLinkNFS): no content was
	// written.
	hdr.Set("X-Ms-Request-Server-Encrypted", "false")
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}

func (h *handler) getSymbolicLink(q *request) error {
	n, err := h.svc.GetSymbolicLink(q.ctx(), q.readRef(), preconditions(q.r.Header))
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	hdr.Set("Etag", azhttp.ETag(n.Version))
	hdr.Set("Last-Modified", azhttp.HTTPTime(n.Modified))
	// Azure returns the text URL-encoded, '/' too
	// (TestGetSymbolicLinkNFS: "%2Fdir%2Ffile").
	hdr.Set("X-Ms-Link-Text", strings.ReplaceAll(url.QueryEscape(n.LinkText), "+", "%20"))
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

func (h *handler) createHardLink(q *request) error {
	target := strings.TrimPrefix(q.r.Header.Get("X-Ms-File-Target-File"), "/")
	if t, err := url.PathUnescape(target); err == nil {
		target = t
	}
	n, err := h.svc.CreateHardLink(q.ctx(), q.ref(), HardLinkOptions{Target: target, LeaseID: q.r.Header.Get("X-Ms-Lease-Id")})
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	writeNode(hdr, n)
	nfsDetails(hdr, n, true, true)
	hdr.Set("X-Ms-Request-Server-Encrypted", "false")
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}
