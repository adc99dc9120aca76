package blob

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/guid"
)

// parseContentHeaders reads the x-ms-blob-* content headers of Put Blob's
// and Put Block List's and Set Blob Properties' forms; Put Blob also takes
// the plain HTTP headers.
func parseContentHeaders(h http.Header, plain bool) (ContentHeaders, error) {
	get := func(msName, name string) string {
		if v := h.Get(msName); v != "" || !plain {
			return v
		}
		return h.Get(name)
	}
	c := ContentHeaders{
		ContentType:        get("X-Ms-Blob-Content-Type", "Content-Type"),
		ContentEncoding:    get("X-Ms-Blob-Content-Encoding", "Content-Encoding"),
		ContentLanguage:    get("X-Ms-Blob-Content-Language", "Content-Language"),
		ContentDisposition: get("X-Ms-Blob-Content-Disposition", "Content-Disposition"),
		CacheControl:       get("X-Ms-Blob-Cache-Control", "Cache-Control"),
	}
	if v := h.Get("X-Ms-Blob-Content-Md5"); v != "" {
		// Stored as sent, of any length: Azure keeps and returns
		// 24 bytes where a client encoded an MD5 twice (Java's recordings
		// BlobApiTests.setHTTPHeadersHeaders[2], PageBlobApiTests.createHeaders[2]).
		md5, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			return c, azerr.InvalidHeaderValue("x-ms-blob-content-md5", v)
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
	v := h.Get("Content-Md5")
	if v == "" {
		return nil, nil
	}
	md5, err := base64.StdEncoding.DecodeString(v)
	if err != nil || len(md5) != 16 {
		return nil, azerr.ErrInvalidMd5
	}
	return md5, nil
}

// crc64Version is the first x-ms-version whose answers to a write of
// content carry x-ms-content-crc64. From it on, Put Block, Append Block
// and Put Page return Content-MD5 only when the client sent one; before
// it they always did (the Go SDK's recordings at 2018-03-28 and
// 2020-10-02 show both sides).
const crc64Version = "2019-02-02"

// writeDigests echoes the digests of the content a write received, for
// Put Blob and the From-URL writes: Content-MD5 always, and the CRC64 of
// the bytes written from crc64Version on.
func writeDigests(q *request, w *Written) {
	h := q.w.Header()
	h.Set("Content-Md5", b64(w.ContentMD5))
	if q.version() >= crc64Version && w.ContentCRC64 != nil {
		h.Set("X-Ms-Content-Crc64", b64(w.ContentCRC64))
	}
}

// writeSentDigests echoes the digests of the content of Put Block,
// Append Block and Put Page: from crc64Version on, Content-MD5 only when
// the client sent one to verify and the CRC64 of the bytes written
// always; before it, Content-MD5 always.
func writeSentDigests(q *request, w *Written, c Content) {
	if q.version() < crc64Version {
		writeDigests(q, w)
		return
	}
	h := q.w.Header()
	if c.MD5 != nil {
		h.Set("Content-Md5", b64(w.ContentMD5))
	}
	if w.ContentCRC64 != nil {
		h.Set("X-Ms-Content-Crc64", b64(w.ContentCRC64))
	}
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
func writeBlobHeaders(h http.Header, b *Blob, now time.Time) {
	h.Set("Etag", azhttp.ETag(b.Version))
	h.Set("Last-Modified", azhttp.HTTPTime(b.Modified))
	h.Set("X-Ms-Creation-Time", azhttp.HTTPTime(b.Created))
	h.Set("X-Ms-Blob-Type", b.Type)
	azhttp.WriteLeaseState(h, b.Lease, now)
	switch b.Type {
	case pageBlob:
		h.Set("X-Ms-Blob-Sequence-Number", strconv.FormatInt(b.SequenceNumber, 10))
	case appendBlob:
		h.Set("X-Ms-Blob-Committed-Block-Count", strconv.Itoa(b.Extents))
		if b.Sealed {
			h.Set("X-Ms-Blob-Sealed", "true")
		}
	}
	if c := b.Copy; c != nil {
		h.Set("X-Ms-Copy-Id", c.ID)
		h.Set("X-Ms-Copy-Source", c.Source)
		h.Set("X-Ms-Copy-Status", c.Status)
		h.Set("X-Ms-Copy-Progress", c.Progress)
		h.Set("X-Ms-Copy-Completion-Time", azhttp.HTTPTime(c.Completed))
		if c.DestinationSnapshot != "" {
			h.Set("X-Ms-Copy-Destination-Snapshot", c.DestinationSnapshot)
		}
	}
	if b.IncrementalCopy {
		h.Set("X-Ms-Incremental-Copy", "true")
	}
	h.Set("X-Ms-Server-Encrypted", "true")
	writeEncryption(h, b)
	h.Set("Accept-Ranges", "bytes")
	azhttp.WriteMetadata(h, b.Metadata)
	if len(b.Tags) > 0 {
		h.Set("X-Ms-Tag-Count", strconv.Itoa(len(b.Tags)))
	}
	writeVersionHeaders(h, b)
}

// parseSnapshot validates a snapshot ID given in the query parameter name
// and returns it in the form snapshots are stored under.
func parseSnapshot(name, v string) (string, error) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return "", azerr.InvalidQueryParameterValue(name, v, "")
	}
	return t.UTC().Format(snapshotLayout), nil
}

// checkLeaseIDs refuses a lease ID that is not a GUID, whatever the
// operation: Azure answers 400 InvalidHeaderValue naming the header
// rather than comparing it with the lease held (which would be 412). A
// GUID in any form .NET parses (32 digits, braced, either case) is
// accepted and rewritten to the canonical form leases are kept in, so
// that every later comparison sees one spelling.
func checkLeaseIDs(h http.Header) error {
	for _, name := range []string{"X-Ms-Lease-Id", "X-Ms-Source-Lease-Id", "X-Ms-Proposed-Lease-Id"} {
		v := h.Get(name)
		if v == "" {
			continue
		}
		id, ok := guid.Parse(v)
		if !ok {
			return azerr.InvalidHeaderValue(strings.ToLower(name), v)
		}
		h.Set(name, id)
	}
	return nil
}

// preconditions reads a request's conditional and lease headers.
func preconditions(h http.Header) Preconditions {
	return Preconditions{Conditions: conditions.FromHeader(h, ""), LeaseID: h.Get("X-Ms-Lease-Id"), IfTags: ifTags(h)}
}

// includes reports which include= values a listing asked for.
func includes(v string) map[string]bool {
	out := map[string]bool{}
	for _, part := range strings.Split(v, ",") {
		out[strings.TrimSpace(strings.ToLower(part))] = true
	}
	return out
}
