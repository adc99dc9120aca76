package blob

import (
	"net/http"
	"net/url"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
)

// parseCopySource reads x-ms-copy-source: a path-style URL of a blob on
// this server, optionally with ?snapshot= and a SAS.
func (h *handler) parseCopySource(raw string) (CopySource, error) {
	bad := azhttp.ErrInvalidSourceBlobUrl
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return CopySource{}, bad
	}
	src := CopySource{URL: u}
	src.Acct, src.Container, src.Blob = splitPath(u.Path)
	if src.Blob == "" {
		return CopySource{}, bad
	}
	if _, ok := h.accounts.Lookup(src.Acct); !ok {
		return CopySource{}, azhttp.ErrNotImplemented.WithMessage("Copying from a source outside this server (%s) is not supported.", u.Host)
	}
	if v := u.Query().Get("snapshot"); v != "" {
		if src.Snapshot, err = parseSnapshot("snapshot", v); err != nil {
			return CopySource{}, err
		}
	}
	return src, nil
}

// authorizeCopySource checks that the caller may read the source: through
// a SAS in the source URL, through Shared Key on the same account, or
// because the source container is public.
func (h *handler) authorizeCopySource(q *request, src CopySource) error {
	fake := &http.Request{Method: http.MethodGet, URL: src.URL, Header: http.Header{}, RemoteAddr: q.r.RemoteAddr, TLS: q.r.TLS}
	fake = fake.WithContext(q.ctx())
	access, err := h.auth.Authenticate(fake, src.Acct, src.Container, src.Blob)
	if err != nil {
		return azhttp.ErrCannotVerifyCopySource.WithMessage("This request is not authorized to perform this operation using this source: %v", err)
	}
	switch {
	case access.Kind != azhttp.AccessAnonymous:
		if err := access.Allows(need('o', 'r')); err != nil {
			return azhttp.ErrCannotVerifyCopySource
		}
		return nil
	case q.access.Kind == azhttp.AccessSharedKey && q.access.Account == src.Acct:
		return nil
	}
	c, err := h.svc.GetContainer(q.ctx(), src.Acct, src.Container)
	if err == nil && (c.PublicAccess == "blob" || c.PublicAccess == "container") {
		return nil
	}
	return azhttp.ErrCannotVerifyCopySource
}

// copyBlob serves Copy Blob and Copy Blob From URL (x-ms-requires-sync):
// both complete before the response.
func (h *handler) copyBlob(q *request) error {
	src, err := h.parseCopySource(q.r.Header.Get("x-ms-copy-source"))
	if err != nil {
		return err
	}
	if err := h.authorizeCopySource(q, src); err != nil {
		return err
	}
	meta, err := azhttp.ParseRequestMetadata(q.r)
	if err != nil {
		return err
	}
	if len(meta) == 0 {
		meta = nil // the copy keeps the source's metadata
	}
	var tier string
	if v := q.r.Header.Get("x-ms-access-tier"); v != "" {
		if tier, err = ParseTier("x-ms-access-tier", v); err != nil {
			return err
		}
	}
	tags, err := requestTags(q.r.Header)
	if err != nil {
		return err
	}
	// Only Copy Blob From URL may take the source's tags, and then no
	// x-ms-tags of its own.
	copyTags := false
	switch opt := q.r.Header.Get("x-ms-copy-source-tag-option"); opt {
	case "", "REPLACE":
	case "COPY":
		if q.r.Header.Get("x-ms-requires-sync") != "true" || tags != nil {
			return azhttp.InvalidHeaderValue("x-ms-copy-source-tag-option", opt)
		}
		copyTags = true
	default:
		return azhttp.InvalidHeaderValue("x-ms-copy-source-tag-option", opt)
	}
	b, err := h.svc.CopyBlob(q.ctx(), CopyRequest{
		Source:        src,
		SourceCond:    conditions.FromHeader(q.r.Header, "x-ms-source-"),
		SourceLeaseID: q.r.Header.Get("x-ms-source-lease-id"),
		Acct:          q.acct, Container: q.container, Blob: q.blob,
		Metadata: meta,
		Tier:     tier,
		Tags:     tags,
		CopyTags: copyTags,
		Dest:     preconditions(q.r.Header),
	})
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	hdr.Set("x-ms-copy-id", b.Copy.ID)
	hdr.Set("x-ms-copy-status", b.Copy.Status)
	if q.r.Header.Get("x-ms-requires-sync") == "true" && b.Headers.ContentMD5 != nil {
		// Copy Blob From URL echoes the MD5 of what it copied, the
		// source's own Content-MD5; an asynchronous Copy Blob does not.
		hdr.Set("Content-MD5", b64(b.Headers.ContentMD5))
	}
	return writeWriteResult(q, b, http.StatusAccepted)
}

func (h *handler) abortCopy(q *request) error {
	if v := q.r.Header.Get("x-ms-copy-action"); v != "abort" {
		return azhttp.InvalidHeaderValue("x-ms-copy-action", v).WithMessage("The value for header x-ms-copy-action must be \"abort\".")
	}
	id := q.q.Get("copyid")
	if id == "" {
		return azhttp.MissingRequiredQueryParameter("copyid")
	}
	return h.svc.AbortCopy(q.ctx(), q.acct, q.container, q.blob, id, preconditions(q.r.Header))
}
