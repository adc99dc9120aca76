package table

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// maxBatchOps is Azure's limit of operations in one change set.
const maxBatchOps = 100

// batchPart is one operation of an entity-group transaction: an HTTP
// request carried as an application/http part.
type batchPart struct {
	method string
	url    *url.URL
	header textproto.MIMEHeader
	body   []byte
}

// errBatchFormat is returned (wrapped) for a $batch body that is not the
// multipart/mixed document the Table service accepts.
var errBatchFormat = errors.New("table: malformed batch")

// errEmptyOperation is a change set part holding no operation.
// It is a batch format error, answered inside the change set.
var errEmptyOperation = fmt.Errorf("%w: an empty change set part", errBatchFormat)

func batchFormat(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errBatchFormat, fmt.Sprintf(format, args...))
}

// parseBatch reads a $batch body: a multipart/mixed document holding
// either one change set (a nested multipart/mixed of up to 100 write
// operations) or one query (a GET). changeset reports which.
func parseBatch(contentType string, body []byte) (parts []batchPart, changeset bool, err error) {
	outer, err := multipartReader(contentType, body)
	if err != nil {
		return nil, false, err
	}
	first, err := outer.NextPart()
	if err != nil {
		return nil, false, batchFormat("the batch has no parts")
	}
	data, err := io.ReadAll(first)
	if err != nil {
		return nil, false, batchFormat("reading the batch: %v", err)
	}
	ct := first.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	switch mt {
	case "multipart/mixed":
		changeset = true
		inner, err := multipartReader(ct, data)
		if err != nil {
			return nil, false, err
		}
		for {
			p, err := inner.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, false, batchFormat("reading the change set: %v", err)
			}
			if len(parts) == maxBatchOps {
				return nil, false, batchFormat("a change set may hold at most %d operations", maxBatchOps)
			}
			op, err := readOperation(p)
			if errors.Is(err, errEmptyOperation) {
				return []batchPart{{}}, true, err
			}
			if err != nil {
				return nil, false, err
			}
			parts = append(parts, op)
		}
		if len(parts) == 0 {
			return nil, false, batchFormat("the change set is empty")
		}
	case "application/http":
		op, err := parseOperation(data)
		if err != nil {
			return nil, false, err
		}
		if op.method != http.MethodGet {
			return nil, false, batchFormat("an operation outside a change set must be a query (GET)")
		}
		parts = []batchPart{op}
	default:
		return nil, false, batchFormat("unexpected part of type %q", ct)
	}
	if _, err := outer.NextPart(); !errors.Is(err, io.EOF) {
		return nil, false, batchFormat("a batch holds one change set or one query")
	}
	return parts, changeset, nil
}

func multipartReader(contentType string, body []byte) (*multipart.Reader, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/mixed" || params["boundary"] == "" {
		return nil, batchFormat("content type %q is not multipart/mixed with a boundary", contentType)
	}
	return multipart.NewReader(bytes.NewReader(body), params["boundary"]), nil
}

func readOperation(p *multipart.Part) (batchPart, error) {
	if len(p.Header) == 0 {
		// A part with nothing in it: Azure answers the change set (202)
		// with this operation failed, 400 InvalidInput
		// (azure-data-tables' recording test_empty_batch).
		return batchPart{}, errEmptyOperation
	}
	if mt, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); mt != "application/http" {
		return batchPart{}, batchFormat("a change set part must be application/http, not %q", p.Header.Get("Content-Type"))
	}
	data, err := io.ReadAll(p)
	if err != nil {
		return batchPart{}, batchFormat("reading an operation: %v", err)
	}
	return parseOperation(data)
}

// parseOperation reads "METHOD URL HTTP/1.1", the headers, a blank line
// and the body.
func parseOperation(data []byte) (batchPart, error) {
	br := bufio.NewReader(bytes.NewReader(data))
	tp := textproto.NewReader(br)
	var line string
	for {
		l, err := tp.ReadLine()
		if err != nil {
			return batchPart{}, batchFormat("an operation has no request line")
		}
		if strings.TrimSpace(l) != "" {
			line = l
			break
		}
	}
	fields := strings.Fields(line)
	if len(fields) != 3 || !strings.HasPrefix(fields[2], "HTTP/") {
		return batchPart{}, batchFormat("malformed request line %q", line)
	}
	u, err := url.Parse(fields[1])
	if err != nil {
		return batchPart{}, batchFormat("malformed URL %q", fields[1])
	}
	header, err := tp.ReadMIMEHeader()
	if err != nil && !errors.Is(err, io.EOF) {
		return batchPart{}, batchFormat("malformed operation headers: %v", err)
	}
	body, err := io.ReadAll(br)
	if err != nil {
		return batchPart{}, batchFormat("reading an operation body: %v", err)
	}
	if cl := header.Get("Content-Length"); cl != "" {
		if n, err := strconv.Atoi(cl); err == nil && n >= 0 && n <= len(body) {
			body = body[:n]
		}
	}
	return batchPart{method: strings.ToUpper(fields[0]), url: u, header: header, body: body}, nil
}

// partResponse is one operation's answer inside the batch response.
type partResponse struct {
	status int
	header http.Header
	body   []byte
}

// Header, Write and WriteHeader let shared writers (the OData error
// writer) render into a part.
func (p *partResponse) Header() http.Header {
	if p.header == nil {
		p.header = http.Header{}
	}
	return p.header
}

func (p *partResponse) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	p.body = append(p.body, b...)
	return len(b), nil
}

func (p *partResponse) WriteHeader(status int) {
	if p.status == 0 {
		p.status = status
	}
}

// partHeaderOrder is how Azure writes an operation's answer headers in a
// batch response: in this order and with these spellings (recorded in
// go-aztables TestBatchAdd, TestBatchInsert, TestBatchErrorHandleResponse,
// go-TestBatchError and go-storage TableBatchSuite). A client that reads
// the parts itself may match the names exactly, so they are not written
// in Go's canonical form (Etag, Dataserviceversion).
var partHeaderOrder = []string{
	"X-Content-Type-Options", "Cache-Control", "Preference-Applied", "DataServiceVersion",
	"Content-Type", "Location", "DataServiceId", "ETag", "Content-ID",
}

// partHeaderOmitted are headers a shared writer sets that Azure's parts
// do not carry: an operation's error is named only in its body, and no
// part has a Content-Length (the same recordings).
var partHeaderOmitted = map[string]bool{"Content-Length": true, "X-Ms-Error-Code": true}

// writePartHeader writes h as Azure writes a part's headers: the known
// ones in partHeaderOrder, then any others in name order.
func writePartHeader(b *bytes.Buffer, h http.Header) {
	done := make(map[string]bool, len(h))
	write := func(name, key string) {
		for _, v := range h[key] {
			b.WriteString(name + ": " + v + "\r\n")
		}
		done[key] = true
	}
	for _, name := range partHeaderOrder {
		write(name, http.CanonicalHeaderKey(name))
	}
	rest := make([]string, 0, len(h))
	for key := range h {
		if !done[key] && !partHeaderOmitted[key] {
			rest = append(rest, key)
		}
	}
	slices.Sort(rest)
	for _, key := range rest {
		write(key, key)
	}
}

// boundary returns a fresh multipart boundary with prefix.
func boundary(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return prefix + hex.EncodeToString(b[:])
}

// renderBatch writes the batch response body: the parts wrapped in a
// change set when the request was one, then in the batch.
func renderBatch(batchBoundary string, changeset bool, parts []*partResponse) []byte {
	var inner bytes.Buffer
	csBoundary := boundary("changesetresponse_")
	for _, p := range parts {
		if changeset {
			inner.WriteString("--" + csBoundary + "\r\n")
		} else {
			inner.WriteString("--" + batchBoundary + "\r\n")
		}
		inner.WriteString("Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n")
		fmt.Fprintf(&inner, "HTTP/1.1 %d %s\r\n", p.status, http.StatusText(p.status))
		writePartHeader(&inner, p.Header())
		inner.WriteString("\r\n")
		inner.Write(p.body)
		inner.WriteString("\r\n")
	}
	if !changeset {
		inner.WriteString("--" + batchBoundary + "--\r\n")
		return inner.Bytes()
	}
	inner.WriteString("--" + csBoundary + "--\r\n")
	var out bytes.Buffer
	out.WriteString("--" + batchBoundary + "\r\n")
	out.WriteString("Content-Type: multipart/mixed; boundary=" + csBoundary + "\r\n\r\n")
	out.Write(inner.Bytes())
	out.WriteString("--" + batchBoundary + "--\r\n")
	return out.Bytes()
}
