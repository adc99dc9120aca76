package blob

import (
	"encoding/xml"
	"net/http"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// optionalInt reads an integer header; nil when absent.
func optionalInt(h http.Header, name string) (*int64, error) {
	v := h.Get(name)
	if v == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return nil, azerr.InvalidHeaderValue(name, v)
	}
	return &n, nil
}

// hasContentHeaders reports whether a Set Blob Properties sets content
// headers at all (a resize or sequence-number call does not).
func hasContentHeaders(h http.Header) bool {
	for k := range h {
		if strings.HasPrefix(strings.ToLower(k), "x-ms-blob-content-") && !strings.EqualFold(k, "x-ms-blob-content-length") {
			return true
		}
		if strings.EqualFold(k, "x-ms-blob-cache-control") {
			return true
		}
	}
	return false
}

// createEmpty serves Put Blob for append and page blobs: no body.
func (h *handler) createEmpty(q *request, typ string, headers ContentHeaders, meta azhttp.Metadata) error {
	if q.r.ContentLength > 0 {
		return azerr.InvalidHeaderValue("Content-Length", strconv.FormatInt(q.r.ContentLength, 10)).WithMessage("The request body must be empty when creating a %s.", typ)
	}
	var size, seq int64
	if typ == pageBlob {
		n, err := optionalInt(q.r.Header, "x-ms-blob-content-length")
		if err != nil {
			return err
		}
		if n == nil {
			return azerr.MissingRequiredHeader("x-ms-blob-content-length")
		}
		if *n%pageSize != 0 || *n > maxPageBlobSize {
			return azerr.InvalidHeaderValue("x-ms-blob-content-length", q.r.Header.Get("X-Ms-Blob-Content-Length")).WithMessage("x-ms-blob-content-length must be a multiple of 512 up to 8 TiB.")
		}
		size = *n
		if n, err = optionalInt(q.r.Header, "x-ms-blob-sequence-number"); err != nil {
			return err
		} else if n != nil {
			seq = *n
		}
	}
	tags, pre, err := creation(q)
	if err != nil {
		return err
	}
	b, err := h.svc.CreateEmpty(q.ctx(), q.ref(), CreateEmptyOptions{Type: typ, Size: size, Sequence: seq, Headers: headers, Metadata: meta, Tags: tags, Conditions: pre})
	if err != nil {
		return err
	}
	return writeWriteResult(q, b, http.StatusCreated)
}

// appendConditions reads Append Block's own conditions.
func appendConditions(h http.Header) (AppendConditions, error) {
	var ac AppendConditions
	var err error
	if ac.MaxSize, err = optionalInt(h, "x-ms-blob-condition-maxsize"); err != nil {
		return ac, err
	}
	ac.AppendPos, err = optionalInt(h, "x-ms-blob-condition-appendpos")
	return ac, err
}

func (h *handler) appendBlock(q *request) error {
	ac, err := appendConditions(q.r.Header)
	if err != nil {
		return err
	}
	if payloadLength(q.r) == 0 {
		return azerr.InvalidHeaderValue("Content-Length", "0").WithMessage("Append Block needs a body of 1 byte to 100 MiB.")
	}
	pre, err := withEncryption(q, true)
	if err != nil {
		return err
	}
	c, err := content(q, maxAppendBlock)
	if err != nil {
		return err
	}
	w, err := h.svc.AppendBlock(q.ctx(), q.ref(), c, ac, pre)
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	writeSentDigests(q, w, c)
	writeStructuredEcho(hdr, w)
	hdr.Set("X-Ms-Blob-Append-Offset", strconv.FormatInt(w.AppendOffset, 10))
	hdr.Set("X-Ms-Blob-Committed-Block-Count", strconv.Itoa(w.Blob.Extents))
	return writeWriteResult(q, w.Blob, http.StatusCreated)
}

func (h *handler) sealBlob(q *request) error {
	pos, err := optionalInt(q.r.Header, "x-ms-blob-condition-appendpos")
	if err != nil {
		return err
	}
	b, err := h.svc.SealBlob(q.ctx(), q.ref(), pos, preconditions(q.r.Header))
	if err != nil {
		return err
	}
	q.w.Header().Set("X-Ms-Blob-Sealed", "true")
	return writeWriteResult(q, b, http.StatusOK)
}

// sequenceConditions reads x-ms-if-sequence-number-le/-lt/-eq. A negative
// number is 400 InvalidInput, not InvalidHeaderValue (the Go SDK's
// recordings go-azblob-TestBlobPutPagesIfSequenceNumberLTENegOne and
// go-azblob-TestBlobClearPagesIfSequenceNumberEqualNegOne).
func sequenceConditions(h http.Header) (SequenceConditions, error) {
	var c SequenceConditions
	for _, f := range []struct {
		name string
		into **int64
	}{
		{"x-ms-if-sequence-number-le", &c.LE},
		{"x-ms-if-sequence-number-lt", &c.LT},
		{"x-ms-if-sequence-number-eq", &c.EQ},
	} {
		v := h.Get(f.name)
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil:
			return c, azerr.InvalidHeaderValue(f.name, v)
		case n < 0:
			return c, azerr.ErrInvalidInput
		}
		*f.into = &n
	}
	return c, nil
}

// rangeValue is the range a request sent, x-ms-range before Range.
func rangeValue(h http.Header) string {
	if v := h.Get("X-Ms-Range"); v != "" {
		return v
	}
	return h.Get("Range")
}

func (h *handler) putPage(q *request) error {
	rng, err := azhttp.ParseRange(q.r.Header, false)
	if err != nil {
		return err
	}
	if rng == nil || rng.End < 0 {
		// Azure names the header Range whichever of the two was meant
		// (go-azblob-TestBlobPutPagesEmptyBody).
		return azerr.MissingRequiredHeader("Range").WithMessage("Put Page needs a closed range in x-ms-range or Range.")
	}
	if rng.Start%pageSize != 0 || (rng.End+1)%pageSize != 0 {
		if q.r.Header.Get("X-Ms-Page-Write") == "clear" {
			// A clear of a range that is not whole pages is a malformed
			// Range header to Azure, whichever header carried it
			// (go-azblob-TestBlobClearPagesInvalidRange).
			return azerr.InvalidHeaderValue("Range", rangeValue(q.r.Header)).WithMessage("The page range specified is invalid: ranges must be 512-byte aligned.")
		}
		return azerr.ErrInvalidPageRange.WithMessage("The page range specified is invalid: ranges must be 512-byte aligned.")
	}
	sc, err := sequenceConditions(q.r.Header)
	if err != nil {
		return err
	}
	length := rng.End - rng.Start + 1
	pre, err := withEncryption(q, true)
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	var b *Blob
	switch mode := q.r.Header.Get("X-Ms-Page-Write"); mode {
	case "update":
		if length > maxPutPage {
			return azerr.ErrInvalidPageRange.WithMessage("A Put Page writes at most 4 MiB.")
		}
		if n := payloadLength(q.r); n != length {
			return azerr.InvalidHeaderValue("Content-Length", strconv.FormatInt(n, 10)).WithMessage("Content-Length %d does not match the range length %d.", n, length)
		}
		c, err := content(q, maxPutPage)
		if err != nil {
			return err
		}
		w, err := h.svc.PutPages(q.ctx(), q.ref(), rng.Start, c, PageWriteOptions{Sequence: sc, Conditions: pre})
		if err != nil {
			return err
		}
		b = w.Blob
		writeSentDigests(q, w, c)
		writeStructuredEcho(hdr, w)
	case "clear":
		if q.r.ContentLength > 0 {
			return azerr.InvalidHeaderValue("Content-Length", strconv.FormatInt(q.r.ContentLength, 10)).WithMessage("A page clear takes no body.")
		}
		if b, err = h.svc.ClearPages(q.ctx(), q.ref(), rng.Start, rng.End, PageWriteOptions{Sequence: sc, Conditions: pre}); err != nil {
			return err
		}
	case "":
		return azerr.MissingRequiredHeader("x-ms-page-write")
	default:
		return azerr.InvalidHeaderValue("x-ms-page-write", mode)
	}
	hdr.Set("X-Ms-Blob-Sequence-Number", strconv.FormatInt(b.SequenceNumber, 10))
	return writeWriteResult(q, b, http.StatusCreated)
}

type pageListXML struct {
	XMLName xml.Name `xml:"PageList"`
	Items   []any    `xml:",any"`
}

type pageRangeXML struct {
	XMLName xml.Name
	Start   int64 `xml:"Start"`
	End     int64 `xml:"End"`
}

func (h *handler) getPageRanges(q *request) error {
	rng, err := readRange(q.r.Header)
	if err != nil {
		return err
	}
	prev := ""
	if v := q.q.Get("prevsnapshot"); v != "" {
		if prev, err = parseSnapshot("prevsnapshot", v); err != nil {
			return err
		}
	}
	l, err := h.svc.GetPageRanges(q.ctx(), q.snapshotRef(), GetPageRangesOptions{PrevSnapshot: prev, Range: rng, Conditions: preconditions(q.r.Header)})
	if err != nil {
		return err
	}
	doc := pageListXML{Items: []any{}}
	pages, clears := l.Pages, l.Clears
	// Page and clear ranges interleave in offset order.
	for len(pages) > 0 || len(clears) > 0 {
		if len(clears) == 0 || (len(pages) > 0 && pages[0].Start < clears[0].Start) {
			doc.Items = append(doc.Items, pageRangeXML{XMLName: xml.Name{Local: "PageRange"}, Start: pages[0].Start, End: pages[0].End})
			pages = pages[1:]
			continue
		}
		doc.Items = append(doc.Items, pageRangeXML{XMLName: xml.Name{Local: "ClearRange"}, Start: clears[0].Start, End: clears[0].End})
		clears = clears[1:]
	}
	hdr := q.w.Header()
	hdr.Set("Etag", azhttp.ETag(l.Record.Version))
	hdr.Set("Last-Modified", azhttp.HTTPTime(l.Record.Modified))
	hdr.Set("X-Ms-Blob-Content-Length", strconv.FormatInt(l.Record.Size, 10))
	return azhttp.WriteXML(q.w, http.StatusOK, doc)
}
