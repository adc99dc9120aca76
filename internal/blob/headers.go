package blob

import (
	"encoding/base64"
	"encoding/xml"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

const (
	metaPrefix      = "x-ms-meta-"
	maxMetadataSize = 8 << 10
	// maxXMLBody bounds the XML documents clients send (block lists of
	// 50,000 ids in their longest form fit).
	maxXMLBody = 8 << 20
)

// httpTime renders times the way HTTP headers and listings carry them.
func httpTime(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

// parseMetadata reads x-ms-meta-* headers. Names must be C# identifiers;
// they are lower-cased because HTTP does not preserve header case.
func parseMetadata(h http.Header) (Metadata, error) {
	var out Metadata
	size := 0
	for k, vs := range h {
		lk := strings.ToLower(k)
		if !strings.HasPrefix(lk, metaPrefix) {
			continue
		}
		name := lk[len(metaPrefix):]
		if name == "" {
			return nil, azhttp.ErrEmptyMetadataKey
		}
		if !validIdentifier(name) {
			return nil, azhttp.ErrInvalidMetadata
		}
		v := strings.Join(vs, ",")
		size += len(name) + len(v)
		out = append(out, [2]string{name, v})
	}
	if size > maxMetadataSize {
		return nil, azhttp.ErrMetadataTooLarge
	}
	return out, nil
}

func validIdentifier(s string) bool {
	for i, c := range s {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c > 127
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// writeMetadata sets x-ms-meta-* headers, bypassing Go's canonical header
// case so that names go out as stored.
func writeMetadata(h http.Header, m Metadata) {
	for _, kv := range m {
		h[metaPrefix+kv[0]] = []string{kv[1]}
	}
}

// parseContentHeaders reads the x-ms-blob-* content headers of Put Blob's
// and Put Block List's and Set Blob Properties' forms; Put Blob also takes
// the plain HTTP headers.
func parseContentHeaders(h http.Header, plain bool) (ContentHeaders, error) {
	get := func(name string) string {
		if v := h.Get("x-ms-blob-" + name); v != "" || !plain {
			return v
		}
		return h.Get(name)
	}
	c := ContentHeaders{
		ContentType:        get("content-type"),
		ContentEncoding:    get("content-encoding"),
		ContentLanguage:    get("content-language"),
		ContentDisposition: get("content-disposition"),
		CacheControl:       get("cache-control"),
	}
	if v := h.Get("x-ms-blob-content-md5"); v != "" {
		md5, err := base64.StdEncoding.DecodeString(v)
		if err != nil || len(md5) != 16 {
			return c, azhttp.ErrInvalidHeaderValue.WithMessage("The value for header x-ms-blob-content-md5 is invalid.")
		}
		c.ContentMD5 = md5
	}
	if plain && c.ContentType == "" {
		c.ContentType = "application/octet-stream"
	}
	return c, nil
}

// requestMD5 returns the request's Content-MD5, nil when absent.
func requestMD5(h http.Header) ([]byte, error) {
	v := h.Get("Content-MD5")
	if v == "" {
		return nil, nil
	}
	md5, err := base64.StdEncoding.DecodeString(v)
	if err != nil || len(md5) != 16 {
		return nil, azhttp.ErrInvalidMd5
	}
	return md5, nil
}

func writeContentHeaders(h http.Header, c ContentHeaders) {
	set := func(name, v string) {
		if v != "" {
			h.Set(name, v)
		}
	}
	set("Content-Type", c.ContentType)
	set("Content-Encoding", c.ContentEncoding)
	set("Content-Language", c.ContentLanguage)
	set("Content-Disposition", c.ContentDisposition)
	set("Cache-Control", c.CacheControl)
}

// writeBlobHeaders sets the properties every blob read returns.
func writeBlobHeaders(h http.Header, b *blobRecord) {
	h.Set("ETag", etag(b.Version))
	h.Set("Last-Modified", httpTime(b.Modified))
	h.Set("x-ms-creation-time", httpTime(b.Created))
	h.Set("x-ms-blob-type", b.Type)
	h.Set("x-ms-lease-status", "unlocked")
	h.Set("x-ms-lease-state", "available")
	h.Set("x-ms-server-encrypted", "true")
	h.Set("Accept-Ranges", "bytes")
	writeMetadata(h, b.Metadata)
}

// parseRange reads x-ms-range (preferred) or Range: "bytes=start-[end]".
func parseRange(h http.Header) (*ByteRange, error) {
	v := h.Get("x-ms-range")
	if v == "" {
		v = h.Get("Range")
	}
	if v == "" {
		return nil, nil
	}
	bad := azhttp.ErrInvalidHeaderValue.WithMessage("The value for one of the HTTP headers is not in the correct format: range %q.", v)
	spec, ok := strings.CutPrefix(v, "bytes=")
	if !ok {
		return nil, bad
	}
	from, to, ok := strings.Cut(spec, "-")
	if !ok {
		return nil, bad
	}
	start, err := strconv.ParseInt(from, 10, 64)
	if err != nil || start < 0 {
		return nil, bad
	}
	r := &ByteRange{Start: start, End: -1}
	if to != "" {
		end, err := strconv.ParseInt(to, 10, 64)
		if err != nil || end < start {
			return nil, bad
		}
		r.End = end
	}
	return r, nil
}

// readXML decodes a bounded XML request body into v.
func readXML(r *http.Request, v any) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxXMLBody+1))
	if err != nil {
		return err
	}
	if len(body) > maxXMLBody {
		return azhttp.ErrRequestBodyTooLarge
	}
	if err := xml.Unmarshal(body, v); err != nil {
		return azhttp.ErrInvalidXmlDocument
	}
	return nil
}

// writeXML sends v as the response body.
func writeXML(w http.ResponseWriter, status int, v any) error {
	body, err := xml.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(xml.Header)+len(body)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, xml.Header)
	_, _ = w.Write(body)
	return nil
}

// writeEmpty sends a bodiless status.
func writeEmpty(w http.ResponseWriter, status int) error {
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(status)
	return nil
}

// maxResults reads maxresults: default and cap 5000, below 1 is an error.
func maxResults(q map[string][]string) (int, error) {
	vs := q["maxresults"]
	if len(vs) == 0 || vs[0] == "" {
		return 5000, nil
	}
	n, err := strconv.Atoi(vs[0])
	if err != nil || n < 1 {
		return 0, azhttp.ErrOutOfRangeQueryParameterValue
	}
	return min(n, 5000), nil
}

// includes reports which include= values a listing asked for.
func includes(v string) map[string]bool {
	out := map[string]bool{}
	for _, part := range strings.Split(v, ",") {
		out[strings.TrimSpace(strings.ToLower(part))] = true
	}
	return out
}
