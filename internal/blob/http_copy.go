package blob

import (
	"crypto/tls"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/guid"
)

// sourceAddress reads a copy source URL that addresses a blob of this
// server, path style (/account/container/blob) or production style (the
// account in the host name), with ?snapshot=. Every operation that takes
// a source URL parses it here, and only here.
func sourceAddress(u *url.URL, accounts *azauth.Accounts) (acct, container, blob, snapshot string, err error) {
	acct, container, blob = splitPath(azhttp.AccountPath(u, accounts))
	if container == "" || blob == "" {
		return "", "", "", "", azerr.ErrInvalidSourceBlobUrl
	}
	if v := u.Query().Get("snapshot"); v != "" {
		if snapshot, err = parseSnapshot("snapshot", v); err != nil {
			return "", "", "", "", err
		}
	}
	if v := u.Query().Get("versionid"); v != "" {
		if snapshot != "" {
			return "", "", "", "", azerr.ErrInvalidSourceBlobUrl
		}
		id, err := parseSnapshot("versionid", v)
		if err != nil {
			return "", "", "", "", err
		}
		snapshot = versionPoint(id)
	}
	return acct, container, blob, snapshot, nil
}

// parseCopySource reads x-ms-copy-source: a URL of a blob on this server,
// optionally with ?snapshot= and a SAS. A source elsewhere cannot be read.
func (h *handler) parseCopySource(raw string) (CopySource, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return CopySource{}, azerr.ErrInvalidSourceBlobUrl
	}
	src := CopySource{URL: u}
	if src.Acct, src.Container, src.Blob, src.Snapshot, err = sourceAddress(u, h.svc.accounts); err != nil {
		return CopySource{}, err
	}
	acct, ok := h.sourceAccount(src.Acct)
	if !ok {
		return CopySource{}, azerr.CannotVerifyCopySource(azerr.ErrResourceNotFound.WithMessage("The copy source %s is not on this server.", u.Redacted()))
	}
	src.Acct = acct
	return src, nil
}

// sourceAccount is the account of this server a source URL names: a known
// account, or a known account's read-only secondary endpoint
// (account-secondary), which serves the primary's blobs.
func (h *handler) sourceAccount(name string) (string, bool) {
	if _, ok := h.svc.accounts.Lookup(name); ok {
		return name, true
	}
	if base, ok := strings.CutSuffix(name, azhttp.SecondarySuffix); ok && base != "" {
		if _, known := h.svc.accounts.Lookup(base); known {
			return base, true
		}
	}
	return "", false
}

// authorizeCopySource checks that the caller may read the source: through
// x-ms-copy-source-authorization, through a SAS in the source URL, through
// public access, or — for Copy Blob only (ownKey), as Azure allows — the
// caller's own Shared Key on the source's account. A source that cannot be
// read is CannotVerifyCopySource with the status its GET would have had.
func (h *handler) authorizeCopySource(q *request, src CopySource, ownKey bool) error {
	if v := q.r.Header.Get("X-Ms-Copy-Source-Authorization"); v != "" {
		scheme, _, _ := strings.Cut(v, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return azerr.InvalidHeaderValue("x-ms-copy-source-authorization", v).WithMessage("Only the Bearer scheme is supported in x-ms-copy-source-authorization.")
		}
		// This server issues no OAuth tokens, so none verifies: Azure's
		// answer to a token that does not verify is this 401 (the Go
		// SDK's recordings TestPutBlobFromURLCopySourceAuthNegative and
		// TestAppendBlockFromURLCopySourceAuthNegative).
		return azerr.CannotVerifyCopySource(&azerr.Error{Status: http.StatusUnauthorized, Message: "Server failed to authenticate the request. Please refer to the information in the www-authenticate header."})
	}
	// Azure reads the source as a GET of its URL, over the URL's own
	// scheme: an https-only source SAS (spr=https) holds for an https
	// source URL whatever scheme the copy request itself came over.
	fake := &http.Request{Method: http.MethodGet, URL: src.URL, Header: http.Header{}, RemoteAddr: q.r.RemoteAddr}
	if strings.EqualFold(src.URL.Scheme, "https") {
		fake.TLS = &tls.ConnectionState{}
	}
	fake = fake.WithContext(q.ctx())
	access, err := h.door.Auth.Authenticate(fake, src.Acct, src.Container, src.Blob)
	if err != nil {
		return copySourceDenied(err)
	}
	switch {
	case access.Kind != azauth.AccessAnonymous:
		if err := access.Allows(need('o', 'r')); err != nil {
			return copySourceDenied(err)
		}
		return nil
	case ownKey && q.access.Kind == azauth.AccessSharedKey && q.access.Account == src.Acct:
		return nil
	}
	c, err := h.svc.GetContainer(q.ctx(), ContainerRef{Account: src.Acct, Container: src.Container})
	if err == nil && (c.PublicAccess == "blob" || c.PublicAccess == "container") {
		return nil
	}
	// Azure answers an anonymous read of a private blob as if it were missing.
	return azerr.CannotVerifyCopySource(azerr.ErrResourceNotFound)
}

// copySourceDenied is CannotVerifyCopySource for a source whose
// authorization failed with err.
func copySourceDenied(err error) error {
	var e *azerr.Error
	if errors.As(err, &e) {
		return azerr.CannotVerifyCopySource(e)
	}
	return err
}

// copyBlob serves Copy Blob and Copy Blob From URL (x-ms-requires-sync):
// both complete before the response.
func (h *handler) copyBlob(q *request) error {
	src, err := h.parseCopySource(q.r.Header.Get("X-Ms-Copy-Source"))
	if err != nil {
		return err
	}
	// As the route matches it: in any case ("True" from the Python SDK).
	sync := strings.EqualFold(q.r.Header.Get("X-Ms-Requires-Sync"), "true")
	if err := h.authorizeCopySource(q, src, !sync); err != nil {
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
	if v := q.r.Header.Get("X-Ms-Access-Tier"); v != "" {
		if tier, err = ParseTier("x-ms-access-tier", v); err != nil {
			return err
		}
	}
	tags, err := requestTags(q.r.Header)
	if err != nil {
		return err
	}
	// Only Copy Blob From URL may take the source's tags.
	copyTags, err := copySourceTagOption(q.r.Header, tags, sync)
	if err != nil {
		return err
	}
	srcTags, err := sourceIfTags(q.r.Header)
	if err != nil {
		return err
	}
	dest, err := writeWithEncryption(q)
	if err != nil {
		return err
	}
	var sourceMD5 []byte
	if sync {
		// Copy Blob From URL checks what it read against
		// x-ms-source-content-md5, as the other From URL operations do.
		if sourceMD5, err = digestHeader(q.r.Header, "x-ms-source-content-md5", 16); err != nil {
			return err
		}
	}
	var seal *bool
	if v := q.r.Header.Get("X-Ms-Seal-Blob"); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return azerr.InvalidHeaderValue("x-ms-seal-blob", v)
		}
		seal = &on
	}
	copied, err := h.svc.CopyBlob(q.ctx(), CopyRequest{
		Seal:          seal,
		Source:        src,
		SourceCond:    conditions.FromHeader(q.r.Header, "x-ms-source-"),
		SourceLeaseID: q.r.Header.Get("X-Ms-Source-Lease-Id"),
		SourceIfTags:  srcTags,
		SourceMD5:     sourceMD5,
		Sync:          sync,
		Acct:          q.acct, Container: q.container, Blob: q.blob,
		Metadata: meta,
		Tier:     tier,
		Tags:     tags,
		CopyTags: copyTags,
		Dest:     dest,
	})
	if err != nil {
		return err
	}
	b := copied.Blob
	hdr := q.w.Header()
	hdr.Set("X-Ms-Copy-Id", b.Copy.ID)
	if copied.CRC64 != nil {
		hdr.Set("X-Ms-Content-Crc64", b64(copied.CRC64))
	}
	hdr.Set("X-Ms-Copy-Status", b.Copy.Status)
	switch {
	case sourceMD5 != nil:
		// The MD5 the copied bytes were checked against
		// (TestCopyBlobFromUrlSourceContentMD5 in the Go SDK's tests).
		hdr.Set("Content-Md5", b64(sourceMD5))
	case sync && b.Headers.ContentMD5 != nil:
		// Copy Blob From URL echoes the MD5 of what it copied, the
		// source's own Content-MD5; an asynchronous Copy Blob does not.
		hdr.Set("Content-Md5", b64(b.Headers.ContentMD5))
	}
	return writeWriteResult(q, b, http.StatusAccepted)
}

func (h *handler) abortCopy(q *request) error {
	if v := q.r.Header.Get("X-Ms-Copy-Action"); v != "abort" {
		return azerr.InvalidHeaderValue("x-ms-copy-action", v).WithMessage("The value for header x-ms-copy-action must be \"abort\".")
	}
	raw := q.q.Get("copyid")
	if raw == "" {
		return azerr.MissingRequiredQueryParameter("copyid")
	}
	// A copy id that is no GUID is refused before the blob is looked at
	// (go-azblob-TestBlobAbortCopyNoCopyStarted).
	id, ok := guid.Parse(raw)
	if !ok {
		return azerr.InvalidQueryParameterValue("copyid", raw, "copyid needs to be valid Guid.")
	}
	return h.svc.AbortCopy(q.ctx(), q.ref(), id, preconditions(q.r.Header))
}

// copySourceTagOption reads x-ms-copy-source-tag-option: COPY (the
// destination takes the source's tags) is allowed only where the
// operation takes it and with no x-ms-tags of the request's own; REPLACE
// or nothing keeps the request's tags.
func copySourceTagOption(h http.Header, tags Tags, allowed bool) (bool, error) {
	switch opt := h.Get("X-Ms-Copy-Source-Tag-Option"); opt {
	case "", "REPLACE":
		return false, nil
	case "COPY":
		if !allowed || tags != nil {
			return false, azerr.InvalidHeaderValue("x-ms-copy-source-tag-option", opt)
		}
		return true, nil
	default:
		return false, azerr.InvalidHeaderValue("x-ms-copy-source-tag-option", opt)
	}
}
