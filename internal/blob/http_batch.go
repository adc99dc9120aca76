package blob

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/guid"
)

// Blob Batch (comp=batch) carries Delete Blob or Set Blob Tier
// sub-requests in one multipart/mixed body. Each sub-request is a complete
// HTTP request of its own: it is served in process by this same handler
// (routing, authentication, conditions and all) and its answer, status
// line and headers included, becomes one part of the multipart/mixed
// response. A sub-request that fails does not stop the others; a batch
// refused as a whole (too many sub-requests, mixed kinds, a malformed part)
// still answers 202, with one part without a Content-ID that holds the
// error, which is how Azure reports it and how the SDKs read it.

// subRequest is one parsed part of a batch.
type subRequest struct {
	contentID string
	r         *http.Request
	// style is the sub-request as its client addressed it when that was
	// relative to an account named in a host (production style), which
	// its Shared Key signature covers; nil for a path-style sub-request.
	style *azauth.HostStyleRequest
}

// submitBatch serves Blob Batch at account scope and, with
// restype=container, at container scope.
func (h *handler) submitBatch(q *request) error {
	// A service SAS never reaches account scope, and one signed for a
	// single blob covers no batch.
	if q.access.Kind == azauth.AccessServiceSAS && (q.container == "" || q.access.Resource != "c") {
		return azerr.ErrAuthorizationFailure
	}
	boundary, err := batchBoundary(q.r.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	body, err := io.ReadAll(io.LimitReader(q.r.Body, maxBatchBody+1))
	if err != nil {
		return err
	}
	if len(body) > maxBatchBody {
		return azerr.ErrRequestBodyTooLarge
	}

	respBoundary := "batchresponse_" + newBatchID()
	var out bytes.Buffer
	mw := multipart.NewWriter(&out)
	if err := mw.SetBoundary(respBoundary); err != nil {
		return err
	}
	subs, refused := h.parseBatch(q, body, boundary)
	if refused != nil {
		rec := newSubResponse()
		azhttp.WriteError(rec, q.r, refused)
		if err := writeSubResponse(mw, "", rec, azhttp.RequestID(q.ctx()), q.w.Header().Get("X-Ms-Version")); err != nil {
			return err
		}
	}
	for _, s := range subs {
		rec, id := h.serveSubRequest(q, s)
		if err := writeSubResponse(mw, s.contentID, rec, id, q.w.Header().Get("X-Ms-Version")); err != nil {
			return err
		}
	}
	if err := mw.Close(); err != nil {
		return err
	}
	hdr := q.w.Header()
	hdr.Set("Content-Type", "multipart/mixed; boundary="+respBoundary)
	hdr.Set("Content-Length", strconv.Itoa(out.Len()))
	q.w.WriteHeader(http.StatusAccepted)
	_, _ = q.w.Write(out.Bytes()) // the client is gone if this fails
	return nil
}

// batchBoundary reads the boundary of a multipart/mixed Content-Type.
// The boundary may be quoted, and unquoted it may hold characters MIME
// reserves for quoted strings: the Python SDK's batches (azure-core's
// multipart serializer, before it chose its own boundary) were sent as
// "multipart/mixed; boundary================1531725606335133470==", which
// Azure accepts (azure-storage-blob's recording
// test_container.test_delete_blobs_simple).
func batchBoundary(contentType string) (string, error) {
	if contentType == "" {
		return "", azerr.MissingRequiredHeader("Content-Type")
	}
	if mt, params, err := mime.ParseMediaType(contentType); err == nil {
		if mt != "multipart/mixed" || params["boundary"] == "" {
			return "", azerr.InvalidHeaderValue("Content-Type", contentType)
		}
		return params["boundary"], nil
	}
	mt, rest, _ := strings.Cut(contentType, ";")
	var boundary string
	for param := range strings.SplitSeq(rest, ";") {
		name, value, _ := strings.Cut(param, "=")
		if strings.EqualFold(strings.TrimSpace(name), "boundary") {
			boundary = strings.TrimSpace(value)
		}
	}
	if unq, err := strconv.Unquote(boundary); err == nil && strings.HasPrefix(boundary, `"`) {
		boundary = unq
	}
	if !strings.EqualFold(strings.TrimSpace(mt), "multipart/mixed") || boundary == "" || len(boundary) > 70 {
		return "", azerr.InvalidHeaderValue("Content-Type", contentType)
	}
	return boundary, nil
}

// parseBatch splits the body into sub-requests. A batch Azure refuses as
// a whole comes back as the error to report in its place.
func (h *handler) parseBatch(q *request, body []byte, boundary string) ([]subRequest, *azerr.Error) {
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	var subs []subRequest
	var kind batchKind
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, azerr.ErrInvalidInput
		}
		if len(subs) == maxBatchSubRequests {
			return nil, azerr.ErrExceedsMaxBatchRequestCount
		}
		s, err := h.readSubRequest(q, part)
		if err != nil {
			return nil, azerr.ErrInvalidInput
		}
		k := subRequestKind(s.r)
		switch {
		case k == 0:
			return nil, azerr.ErrInvalidInput
		case kind == 0:
			kind = k
		case k != kind:
			return nil, azerr.ErrAllBatchSubRequestsShouldBeSameApi
		}
		acct, container, _ := splitPath(s.r.URL.Path)
		if acct != q.acct || q.container != "" && container != q.container {
			// Every sub-request belongs to the batch's account and, at
			// container scope, to its container.
			return nil, azerr.ErrInvalidInput
		}
		subs = append(subs, s)
	}
	if len(subs) == 0 {
		return nil, azerr.ErrInvalidInput
	}
	return subs, nil
}

// readSubRequest parses one part: its Content-ID and the HTTP request it
// holds. The sub-request inherits the connection facts of the batch (host,
// remote address, TLS) that its authorization may depend on.
func (h *handler) readSubRequest(q *request, part *multipart.Part) (subRequest, error) {
	defer func() { _ = part.Close() }()
	raw, err := io.ReadAll(part)
	if err != nil {
		return subRequest{}, err
	}
	// The blank line that ends a sub-request's headers may have gone into
	// the part's closing delimiter (the JavaScript SDK writes it so); one
	// more never hurts, as a sub-request has no body.
	raw = append(raw, "\r\n"...)
	r, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(rootedTarget(raw))))
	if err != nil {
		return subRequest{}, err
	}
	if r.ContentLength != 0 {
		return subRequest{}, fmt.Errorf("batch sub-request with a body")
	}
	style := h.subRequestPath(q, r)
	r.Host = q.r.Host
	r.RemoteAddr = q.r.RemoteAddr
	r.TLS = q.r.TLS
	return subRequest{contentID: strings.TrimSpace(part.Header.Get("Content-Id")), r: r, style: style}, nil
}

// rootedTarget gives a request line whose target is a path without its
// leading "/" (devstoreaccount1/container/blob) that slash, so that it
// parses as the path it is meant to be; other request lines pass as they
// are.
func rootedTarget(raw []byte) []byte {
	line, _, _ := bytes.Cut(raw, []byte("\n"))
	method, rest, ok := bytes.Cut(line, []byte(" "))
	if !ok || len(rest) == 0 || rest[0] == '/' || bytes.Contains(rest, []byte("://")) || rest[0] == '*' {
		return raw
	}
	return slices.Concat(method, []byte(" /"), raw[len(method)+1:])
}

// subRequestPath turns r's URL into the path-style form the handler
// parses (the account as its first segment) and returns what the client
// addressed when that was relative to an account in a host name. The
// SDKs write a sub-request's target as:
//   - the path of its URL, which for a production-style endpoint leaves
//     the account out: "DELETE /container/blob HTTP/1.1" (Go, .NET,
//     JavaScript, Java, Python; .NET's Delete_SpecialCharacters recording
//     against Azure);
//   - the same against a path-style endpoint, account first:
//     "/devstoreaccount1/container/blob" (Go, .NET, JavaScript, Java);
//   - container and blob only against a path-style endpoint too (the
//     Python SDK builds its targets so whatever its endpoint), signed as
//     if the account were in the host;
//   - or an absolute URL, whose host says which of these it is.
func (h *handler) subRequestPath(q *request, r *http.Request) *azauth.HostStyleRequest {
	u := r.URL
	defer func() { u.Scheme, u.Host, u.User = "", "", nil }()
	relative := false
	switch {
	case u.Host != "":
		acct, ok := azhttp.HostAccount(u.Host, h.svc.accounts)
		if !ok {
			return nil
		}
		style := &azauth.HostStyleRequest{Account: acct, Path: u.Path, Escaped: u.EscapedPath()}
		prefixAccount(u, acct)
		return style
	case azhttp.IsHostStyle(q.r):
		relative = true
	default:
		first, rest, _ := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
		second, _, _ := strings.Cut(rest, "/")
		_, otherAccount := h.svc.accounts.Lookup(first)
		relative = first != q.acct && !otherAccount ||
			first == q.acct && q.container != "" && first == q.container && second != q.container
	}
	if !relative {
		return nil
	}
	style := &azauth.HostStyleRequest{Account: q.acct, Path: u.Path, Escaped: u.EscapedPath()}
	prefixAccount(u, q.acct)
	return style
}

// prefixAccount puts the account in front of u's path.
func prefixAccount(u *url.URL, acct string) {
	rooted := func(p string) string {
		if strings.HasPrefix(p, "/") {
			return p
		}
		return "/" + p
	}
	u.Path = "/" + acct + rooted(u.Path)
	if u.RawPath != "" {
		u.RawPath = "/" + acct + rooted(u.RawPath)
	}
}

// serveSubRequest serves one sub-request through the handler and returns
// its recorded answer and request id.
func (h *handler) serveSubRequest(q *request, s subRequest) (*subResponse, string) {
	ctx, id := azhttp.SubRequestContext(q.ctx())
	if inheritsBatchAccess(q.access) {
		ctx = contextWithBatchAccess(ctx, q.access)
	}
	// The batch's own addressing says nothing of its sub-requests': each
	// is signed over the path it sent.
	if s.style != nil {
		ctx = context.WithValue(ctx, azauth.HostStyleKey{}, s.style)
	} else if azhttp.IsHostStyle(q.r) {
		ctx = context.WithValue(ctx, azauth.HostStyleKey{}, pathStyle{})
	}
	rec := newSubResponse()
	rec.Header().Set("X-Ms-Request-Id", id)
	if cid := s.r.Header.Get("X-Ms-Client-Request-Id"); cid != "" {
		// Azure echoes each sub-request's client request id in its
		// answer (azure-storage-blob's recording
		// test_container.test_delete_blobs_simple).
		rec.Header().Set("X-Ms-Client-Request-Id", cid)
	}
	h.door.ServeHTTP(rec, s.r.WithContext(azhttp.WithoutRequestInfo(ctx)))
	return rec, id
}

// pathStyle shadows, in a sub-request's context, the host-style record of
// the batch it came in: the sub-request addressed its account by path.
type pathStyle struct{}

// inheritsBatchAccess says whether a sub-request without credentials of
// its own may act with the batch's: an account SAS, or a service SAS for
// the batch's container (parseBatch keeps sub-requests inside it).
func inheritsBatchAccess(a azauth.Access) bool {
	return a.Kind == azauth.AccessAccountSAS || a.Kind == azauth.AccessServiceSAS && a.Resource == "c"
}

// authenticate proves who sent q. A batch sub-request carrying neither an
// Authorization header nor a SAS of its own acts with the batch's SAS.
func (h *handler) authenticate(q *request) (azauth.Access, error) {
	if a, ok := batchAccess(q); ok && q.r.Header.Get("Authorization") == "" && !q.q.Has("sig") {
		return a, nil
	}
	return h.door.Auth.Authenticate(q.r, q.acct, q.container, q.blob)
}

// subResponse records one sub-request's answer.
type subResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newSubResponse() *subResponse { return &subResponse{header: http.Header{}} }

func (s *subResponse) Header() http.Header { return s.header }

func (s *subResponse) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}

func (s *subResponse) Write(p []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	return s.body.Write(p)
}

// writeSubResponse writes rec as one part of the batch response: the
// status line (with Azure's error message as the reason phrase of a
// failure), x-ms-request-id, x-ms-version, the headers the operation set,
// and its body.
func writeSubResponse(mw *multipart.Writer, contentID string, rec *subResponse, id, version string) error {
	ph := textproto.MIMEHeader{"Content-Type": {"application/http"}}
	if contentID != "" {
		ph["Content-ID"] = []string{contentID}
	}
	w, err := mw.CreatePart(ph)
	if err != nil {
		return err
	}
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	hdr := rec.header.Clone()
	hdr.Set("X-Ms-Request-Id", id)
	if version != "" {
		hdr.Set("X-Ms-Version", version)
	}
	if rec.body.Len() > 0 {
		hdr.Set("Content-Length", strconv.Itoa(rec.body.Len()))
	}
	azhttp.AzureHeaderCase(hdr)
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, reasonPhrase(status, rec))
	for _, k := range slices.Sorted(maps.Keys(hdr)) {
		for _, v := range hdr[k] {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	b.WriteString("\r\n")
	b.Write(rec.body.Bytes())
	_, err = w.Write(b.Bytes())
	return err
}

// reasonPhrase is Azure's reason phrase: the error's message for a
// failure, the standard text otherwise.
func reasonPhrase(status int, rec *subResponse) string {
	if status >= 400 && rec.body.Len() > 0 {
		var e struct {
			Message string `xml:"Message"`
		}
		if xml.Unmarshal(rec.body.Bytes(), &e) == nil && e.Message != "" {
			msg, _, _ := strings.Cut(e.Message, "\n")
			return msg
		}
	}
	return http.StatusText(status)
}

// newBatchID returns a random UUID for a response boundary.
func newBatchID() string { return guid.New() }
