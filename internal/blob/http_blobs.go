package blob

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azbody"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
)

// maxRangeMD5 is the largest range x-ms-range-get-content-md5 may cover.
const maxRangeMD5 = 4 << 20

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// contentLength returns the request's declared body size, required by
// every upload, bounded by limit.
func contentLength(r *http.Request, limit int64) (int64, error) {
	if r.ContentLength < 0 {
		return 0, azerr.ErrMissingContentLengthHeader
	}
	if r.ContentLength > limit {
		return 0, azerr.ErrRequestBodyTooLarge
	}
	return r.ContentLength, nil
}

// Azure verifies one transactional digest, never two: these are its
// answers to a CRC64 sent with an MD5 (the status table of Microsoft's
// storage emulator; azure-storage-blob for Java's live content-validation
// tests expect the first message from Put Blob, Put Block, Append Block
// and Put Page).
var (
	errBothCRC64AndMD5     = &azerr.Error{Status: http.StatusBadRequest, Code: "BothCrc64AndMd5HeaderPresent", Message: "Both x-ms-content-crc64 header and Content-MD5 header are present."}
	errBothRangeDigests    = &azerr.Error{Status: http.StatusBadRequest, Code: "BothCrc64AndMd5RangeHeaderPresent", Message: "Both x-ms-range-get-content-crc64 header and x-ms-range-get-content-md5 header are present."}
	errBothCRC64AndBlobMD5 = &azerr.Error{Status: http.StatusBadRequest, Code: "BothCrc64AndMsMd5HeaderPresent", Message: "Both x-ms-content-crc64 header and x-ms-blob-content-md5 header are present."}
)

// content describes an upload's body from its headers: its declared size,
// at most limit, and the Content-MD5 the service is to verify it against.
func content(q *request, limit int64) (Content, error) {
	return contentVerifiedBy(q, limit, nil)
}

// contentVerifiedBy is content whose body is verified against blobMD5
// instead of Content-MD5 when blobMD5 is not nil: Put Blob checks a block
// blob's bytes against x-ms-blob-content-md5 when it is sent, and then
// ignores Content-MD5 (the Azure Storage team's "Windows Azure Blob MD5
// Overview": "If x-ms-blob-content-md5 is present Content-md5 is
// ignored"; azure-storage-ruby#64, where a wrong x-ms-blob-content-md5
// alone answered Md5Mismatch).
func contentVerifiedBy(q *request, limit int64, blobMD5 []byte) (Content, error) {
	if c, ok, err := structuredContent(q, limit); ok || err != nil {
		return c, err
	}
	n, err := contentLength(q.r, limit)
	if err != nil {
		return Content{}, err
	}
	if blobMD5 != nil && len(blobMD5) != md5.Size {
		// Checked against the content, it must be an MD5 (Azurite#2644);
		// where it is only stored, any length is kept (headers.go).
		return Content{}, azerr.InvalidHeaderValue("x-ms-blob-content-md5", q.r.Header.Get("X-Ms-Blob-Content-Md5"))
	}
	want := blobMD5
	if want == nil {
		if want, err = requestMD5(q.r.Header); err != nil {
			return Content{}, err
		}
	}
	crc, err := azbody.ParseCRC64(q.r.Header, "x-ms-content-crc64")
	if err != nil {
		return Content{}, err
	}
	switch {
	case crc == nil:
	case blobMD5 != nil:
		return Content{}, errBothCRC64AndBlobMD5
	case want != nil:
		return Content{}, errBothCRC64AndMD5
	}
	return Content{Body: q.r.Body, Length: n, MD5: want, CRC64: crc}, nil
}

func writeWriteResult(q *request, b *Blob, status int) error {
	writeWriteHeaders(q.w.Header(), b)
	return azhttp.WriteEmpty(q.w, status)
}

// writeWriteHeaders sets the headers every write's answer carries.
func writeWriteHeaders(h http.Header, b *Blob) {
	h.Set("Etag", azhttp.ETag(b.Version))
	h.Set("Last-Modified", azhttp.HTTPTime(b.Modified))
	h.Set("X-Ms-Request-Server-Encrypted", "true")
	if b.VersionID != "" {
		h.Set("X-Ms-Version-Id", b.VersionID)
	}
	writeEncryption(h, b)
}

func (h *handler) putBlob(q *request) error {
	typ := q.r.Header.Get("X-Ms-Blob-Type")
	switch typ {
	case blockBlob, pageBlob, appendBlob:
	case "":
		return azerr.MissingRequiredHeader("x-ms-blob-type")
	default:
		return azerr.InvalidHeaderValue("x-ms-blob-type", typ)
	}
	meta, err := azhttp.ParseRequestMetadata(q.r)
	if err != nil {
		return err
	}
	headers, err := parseContentHeaders(q.r.Header, true)
	if err != nil {
		return err
	}
	if err := uploadTier(q, typ, &headers); err != nil {
		return err
	}
	if typ != blockBlob {
		return h.createEmpty(q, typ, headers, meta)
	}
	c, err := contentVerifiedBy(q, maxSinglePutBlobLen, headers.ContentMD5)
	if err != nil {
		return err
	}
	tags, pre, err := creation(q)
	if err != nil {
		return err
	}
	w, err := h.svc.PutBlob(q.ctx(), q.ref(), c, PutBlobOptions{Headers: headers, Metadata: meta, Tags: tags, Conditions: pre})
	if err != nil {
		return err
	}
	writeDigests(q, w)
	writeStructuredEcho(q.w.Header(), w)
	return writeWriteResult(q, w.Blob, http.StatusCreated)
}

// downloadTierVersion is the first x-ms-version taken to answer Get Blob
// with the tier headers Get Blob Properties has: azure-storage-blob's
// recording test_put_block_blob_with_none_concurrency (2026-04-06) has
// them, the recordings at 2024-08-04 and before do not.
const downloadTierVersion = "2026-04-06"

func (h *handler) getBlob(q *request) error {
	pre, err := withEncryption(q, false)
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	if q.r.Method == http.MethodHead {
		b, err := h.svc.GetBlobProperties(q.ctx(), q.snapshotRef(), pre)
		if err != nil {
			return err
		}
		writeBlobHeaders(hdr, b, h.now())
		writeContentHeaders(hdr, b.Headers)
		if b.Headers.ContentMD5 != nil {
			hdr.Set("Content-Md5", b64(b.Headers.ContentMD5))
		}
		writeTierHeaders(hdr, b)
		h.svc.writeLastAccess(hdr, b)
		azauth.WriteSASOverrides(hdr, q.access, q.r.URL.Query())
		hdr.Set("Content-Length", strconv.FormatInt(b.Size, 10))
		q.w.WriteHeader(http.StatusOK)
		return nil
	}
	rng, err := readRange(q.r.Header)
	if err != nil {
		return err
	}
	structured, err := azbody.WantsStructuredBody(q.r.Header)
	if err != nil {
		return err
	}
	// A ranged read answers the digest of the range it asks for, MD5 or
	// CRC64 but never both (the REST specification's Get Blob response
	// headers; the code for both is from the status table of Microsoft's
	// storage emulator).
	wantMD5 := q.r.Header.Get("X-Ms-Range-Get-Content-Md5") == "true"
	wantCRC := q.r.Header.Get("X-Ms-Range-Get-Content-Crc64") == "true"
	switch {
	case wantMD5 && wantCRC:
		return errBothRangeDigests
	case wantMD5 && rng == nil:
		return azerr.InvalidHeaderValue("x-ms-range-get-content-md5", "true").WithMessage("x-ms-range-get-content-md5 requires a range.")
	case wantCRC && rng == nil:
		return azerr.InvalidHeaderValue("x-ms-range-get-content-crc64", "true").WithMessage("x-ms-range-get-content-crc64 requires a range.")
	}
	err = h.svc.GetBlob(q.ctx(), q.snapshotRef(), GetBlobOptions{Range: rng, Conditions: pre}, func(d *Download) error {
		if wantMD5 && d.Length > maxRangeMD5 {
			return azerr.ErrOutOfRangeInput.WithMessage("x-ms-range-get-content-md5 is allowed for ranges up to 4 MiB.")
		}
		if wantCRC && d.Length > maxRangeMD5 {
			return azerr.ErrOutOfRangeInput.WithMessage("x-ms-range-get-content-crc64 is allowed for ranges up to 4 MiB.")
		}
		if structured {
			if err := checkStructuredDownload(d); err != nil {
				return err
			}
		}
		b := d.Record
		writeBlobHeaders(hdr, b, h.now())
		writeContentHeaders(hdr, b.Headers)
		if q.version() >= downloadTierVersion {
			writeTierHeaders(hdr, b)
		}
		h.svc.writeLastAccess(hdr, b)
		azauth.WriteSASOverrides(hdr, q.access, q.r.URL.Query())
		hdr.Set("Content-Length", strconv.FormatInt(d.Length, 10))
		status := http.StatusOK
		if d.Ranged {
			status = http.StatusPartialContent
			hdr.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", d.Offset, d.Offset+d.Length-1, b.Size))
			if b.Headers.ContentMD5 != nil {
				hdr.Set("X-Ms-Blob-Content-Md5", b64(b.Headers.ContentMD5))
			}
			if wantMD5 {
				sum, err := d.MD5()
				if err != nil {
					return err
				}
				hdr.Set("Content-Md5", b64(sum))
			}
			if wantCRC {
				sum, err := d.CRC64()
				if err != nil {
					return err
				}
				hdr.Set("X-Ms-Content-Crc64", b64(sum))
			}
		} else if b.Headers.ContentMD5 != nil {
			hdr.Set("Content-Md5", b64(b.Headers.ContentMD5))
		}
		send := d.Stream
		if structured {
			azbody.WriteStructuredHeaders(hdr, d.Length)
			send = func(w io.Writer) error { return azbody.StreamStructured(w, d.Length, d.Stream) }
		}
		q.w.WriteHeader(status)
		if err := send(q.w); err != nil {
			// The status line is gone: all that is left is to cut the
			// connection so the client sees a truncated body.
			h.svc.log.Warn("blob download aborted", "blob", q.blob, "err", err)
			panic(http.ErrAbortHandler)
		}
		return nil
	})
	if cr := contentRangeOf(err); cr != "" {
		hdr.Set("Content-Range", cr)
	}
	return err
}

func (h *handler) deleteBlob(q *request) error {
	mode := q.r.Header.Get("X-Ms-Delete-Snapshots")
	if err := checkDeleteType(q); err != nil {
		return err
	}
	pre := preconditions(q.r.Header)
	tierDates := conditions.FromHeader(q.r.Header, "x-ms-access-tier-")
	pre.AccessTierSince = conditions.Conditions{IfModifiedSince: tierDates.IfModifiedSince, IfUnmodifiedSince: tierDates.IfUnmodifiedSince}
	var err error
	switch {
	case q.snapshot != "" && mode != "":
		return azerr.InvalidHeaderValue("x-ms-delete-snapshots", mode).WithMessage("x-ms-delete-snapshots is not allowed when deleting a snapshot.")
	case q.snapshot != "":
		err = h.svc.DeleteSnapshot(q.ctx(), q.snapshotRef(), conditions.FromHeader(q.r.Header, ""))
	case mode == "":
		err = h.svc.DeleteBlob(q.ctx(), q.ref(), KeepSnapshots, pre)
	case mode == "include":
		err = h.svc.DeleteBlob(q.ctx(), q.ref(), IncludeSnapshots, pre)
	case mode == "only":
		err = h.svc.DeleteBlob(q.ctx(), q.ref(), OnlySnapshots, pre)
	default:
		return azerr.InvalidHeaderValue("x-ms-delete-snapshots", mode)
	}
	if err != nil {
		return err
	}
	if err := h.writeDeleteType(q); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusAccepted)
}

func (h *handler) snapshotBlob(q *request) error {
	meta, err := azhttp.ParseRequestMetadata(q.r)
	if err != nil {
		return err
	}
	if len(meta) == 0 {
		meta = nil // no x-ms-meta-*: the snapshot keeps the blob's metadata
	}
	pre, err := withEncryption(q, true)
	if err != nil {
		return err
	}
	id, b, err := h.svc.CreateSnapshot(q.ctx(), q.ref(), meta, pre)
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	hdr.Set("X-Ms-Snapshot", id)
	writeWriteHeaders(hdr, b)
	// A snapshot writes nothing to encrypt unless it sets metadata
	// (go-azblob-TestBlobSnapshotIfMatchTrue, go-azblob-TestBlobSnapshotMetadata).
	hdr.Set("X-Ms-Request-Server-Encrypted", strconv.FormatBool(meta != nil))
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}

// blockID decodes a base64 block ID from the query or a block list.
func blockID(v string) ([]byte, error) {
	id, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		// Azure's reason (Java's recording BlockBlobApiTests.stageBlockError).
		return nil, azerr.InvalidQueryParameterValue("blockid", v, "Not a valid base64 string.")
	}
	if len(id) == 0 {
		return nil, azerr.InvalidQueryParameterValue("blockid", v, "")
	}
	if len(id) > maxBlockIDLen {
		return nil, azerr.ErrInvalidBlockId
	}
	return id, nil
}

// blockIDParam reads the blockid query parameter Put Block and Put Block
// From URL need.
func blockIDParam(q *request) ([]byte, error) {
	raw := q.q.Get("blockid")
	if raw == "" {
		return nil, azerr.MissingRequiredQueryParameter("blockid")
	}
	return blockID(raw)
}

func (h *handler) putBlock(q *request) error {
	id, err := blockIDParam(q)
	if err != nil {
		return err
	}
	enc, err := requestEncryption(q, true)
	if err != nil {
		return err
	}
	c, err := content(q, maxBlockSize)
	if err != nil {
		return err
	}
	w, err := h.svc.PutBlock(q.ctx(), q.ref(), id, c, q.r.Header.Get("X-Ms-Lease-Id"))
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	writeSentDigests(q, w, c)
	writeStructuredEcho(hdr, w)
	hdr.Set("X-Ms-Request-Server-Encrypted", "true")
	writeEncryption(hdr, &Blob{KeySHA256: enc.KeySHA256, EncryptionScope: enc.Scope})
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}

// parseBlockList reads Put Block List's body: an ordered mix of
// <Committed>, <Uncommitted> and <Latest> elements. The body's MD5 is
// verified against Content-MD5 when one was sent; the body's digests
// are returned, with the Content-MD5 sent.
func parseBlockList(r *http.Request) ([]BlockRef, *Written, []byte, error) {
	want, err := requestMD5(r.Header)
	if err != nil {
		return nil, nil, nil, err
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, azhttp.MaxXMLBody+1))
	if err != nil {
		return nil, nil, nil, err
	}
	if len(body) > azhttp.MaxXMLBody {
		return nil, nil, nil, azerr.ErrRequestBodyTooLarge
	}
	sum := md5.Sum(body)
	if want != nil && !bytes.Equal(want, sum[:]) {
		return nil, nil, nil, errMD5Mismatch
	}
	refs, err := decodeBlockList(body)
	return refs, &Written{ContentMD5: sum[:], ContentCRC64: azbody.CRC64(body)}, want, err
}

// decodeBlockList decodes a Put Block List body.
func decodeBlockList(body []byte) ([]BlockRef, error) {
	dec := xml.NewDecoder(bytes.NewReader(body))
	bad := azerr.ErrInvalidXmlDocument
	var refs []BlockRef
	depth := 0
	var current *BlockRef
	var text []byte
	sawRoot := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, bad
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case depth == 1 && t.Name.Local == "BlockList":
				sawRoot = true
			case depth == 2:
				ref := BlockRef{}
				switch t.Name.Local {
				case "Committed":
					ref.From = Committed
				case "Uncommitted":
					ref.From = Uncommitted
				case "Latest":
					ref.From = Latest
				default:
					return nil, bad
				}
				current, text = &ref, text[:0]
			default:
				return nil, bad
			}
		case xml.Directive:
			// A DTD: Azure's parsers prohibit them (see azhttp.CheckXML).
			return nil, bad
		case xml.CharData:
			if current != nil {
				text = append(text, t...)
			}
		case xml.EndElement:
			if depth == 2 && current != nil {
				id, err := blockID(string(bytes.TrimSpace(text)))
				if err != nil {
					return nil, azerr.ErrInvalidBlockList
				}
				current.ID = id
				refs = append(refs, *current)
				current = nil
			}
			depth--
		}
	}
	if !sawRoot || depth != 0 {
		return nil, bad
	}
	return refs, nil
}

func (h *handler) putBlockList(q *request) error {
	meta, err := azhttp.ParseRequestMetadata(q.r)
	if err != nil {
		return err
	}
	headers, err := parseContentHeaders(q.r.Header, false)
	if err != nil {
		return err
	}
	if err := uploadTier(q, blockBlob, &headers); err != nil {
		return err
	}
	if headers.ContentType == "" {
		headers.ContentType = "application/octet-stream"
	}
	refs, digests, sentMD5, err := parseBlockList(q.r)
	if err != nil {
		return err
	}
	tags, err := requestTags(q.r.Header)
	if err != nil {
		return err
	}
	pre, err := withEncryption(q, true)
	if err != nil {
		return err
	}
	b, err := h.svc.PutBlockList(q.ctx(), q.ref(), refs, PutBlobOptions{Headers: headers, Metadata: meta, Tags: tags, Conditions: pre})
	if err != nil {
		return err
	}
	// Azure's digests here are the block list's, not the blob's.
	writeSentDigests(q, digests, Content{MD5: sentMD5})
	return writeWriteResult(q, b, http.StatusCreated)
}

func (h *handler) getBlockList(q *request) error {
	committed, uncommitted := true, false
	switch v := q.q.Get("blocklisttype"); v {
	case "", "committed":
	case "uncommitted":
		committed, uncommitted = false, true
	case "all":
		uncommitted = true
	default:
		return azerr.InvalidQueryParameterValue("blocklisttype", v, "")
	}
	l, err := h.svc.GetBlockList(q.ctx(), q.snapshotRef(), GetBlockListOptions{Committed: committed, Uncommitted: uncommitted, LeaseID: q.r.Header.Get("X-Ms-Lease-Id")})
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	if l.Record != nil {
		hdr.Set("Etag", azhttp.ETag(l.Record.Version))
		hdr.Set("Last-Modified", azhttp.HTTPTime(l.Record.Modified))
		hdr.Set("X-Ms-Blob-Content-Length", strconv.FormatInt(l.Record.Size, 10))
	} else {
		hdr.Set("X-Ms-Blob-Content-Length", "0")
	}
	doc := blockListXML{}
	if committed {
		doc.Committed = blocksToXML(l.Committed)
	}
	if uncommitted {
		doc.Uncommitted = blocksToXML(l.Uncommitted)
	}
	return azhttp.WriteXML(q.w, http.StatusOK, doc)
}

func (h *handler) setBlobProperties(q *request) error {
	var change PropertyChange
	var err error
	if change.Size, err = optionalInt(q.r.Header, "x-ms-blob-content-length"); err != nil {
		return err
	}
	if change.Size != nil && (*change.Size%pageSize != 0 || *change.Size < 0 || *change.Size > maxPageBlobSize) {
		return azerr.InvalidHeaderValue("x-ms-blob-content-length", q.r.Header.Get("X-Ms-Blob-Content-Length")).WithMessage("x-ms-blob-content-length must be a multiple of 512 up to 8 TiB.")
	}
	if change.Sequence, err = optionalInt(q.r.Header, "x-ms-blob-sequence-number"); err != nil {
		return err
	}
	switch change.SequenceAction = q.r.Header.Get("X-Ms-Sequence-Number-Action"); change.SequenceAction {
	case "":
	case "max", "update":
		if change.Sequence == nil {
			return azerr.MissingRequiredHeader("x-ms-blob-sequence-number")
		}
	case "increment":
		if change.Sequence != nil {
			return azerr.InvalidHeaderValue("x-ms-blob-sequence-number", q.r.Header.Get("X-Ms-Blob-Sequence-Number")).WithMessage("x-ms-blob-sequence-number is not allowed with the increment action.")
		}
	default:
		return azerr.InvalidHeaderValue("x-ms-sequence-number-action", change.SequenceAction)
	}
	// The content headers are set together, an absent one cleared, unless
	// the request only resizes a page blob or changes its sequence number
	// (REST reference, Set Blob Properties). A request with none of them
	// at all clears them too (go-azblob-TestBlobSetPropertiesEmptyValue).
	pageOnly := change.Size != nil || change.SequenceAction != ""
	if hasContentHeaders(q.r.Header) || !pageOnly {
		headers, err := parseContentHeaders(q.r.Header, false)
		if err != nil {
			return err
		}
		change.Headers = &headers
	}
	b, err := h.svc.SetBlobProperties(q.ctx(), q.ref(), change, preconditions(q.r.Header))
	if err != nil {
		return err
	}
	if b.Type == pageBlob {
		// A page blob's answer carries its sequence number, changed or not.
		q.w.Header().Set("X-Ms-Blob-Sequence-Number", strconv.FormatInt(b.SequenceNumber, 10))
	}
	return writeWriteResult(q, b, http.StatusOK)
}

func (h *handler) getBlobMetadata(q *request) error {
	pre, err := withEncryption(q, false)
	if err != nil {
		return err
	}
	b, err := h.svc.GetBlobProperties(q.ctx(), q.snapshotRef(), pre)
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	writeEncryption(hdr, b)
	hdr.Set("Etag", azhttp.ETag(b.Version))
	hdr.Set("Last-Modified", azhttp.HTTPTime(b.Modified))
	azhttp.WriteMetadata(hdr, b.Metadata)
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

func (h *handler) setBlobMetadata(q *request) error {
	meta, err := azhttp.ParseRequestMetadata(q.r)
	if err != nil {
		return err
	}
	pre, err := withEncryption(q, true)
	if err != nil {
		return err
	}
	b, err := h.svc.SetBlobMetadata(q.ctx(), q.ref(), meta, pre)
	if err != nil {
		return err
	}
	return writeWriteResult(q, b, http.StatusOK)
}

func (h *handler) listBlobs(q *request) error {
	max, err := azhttp.MaxResults(q.q)
	if err != nil {
		return err
	}
	inc := includes(q.q.Get("include"))
	o := ListBlobsOptions{
		Prefix: q.q.Get("prefix"), Delimiter: q.q.Get("delimiter"), Marker: q.q.Get("marker"),
		Max: max, Uncommitted: inc["uncommittedblobs"], Snapshots: inc["snapshots"],
		Versions: inc["versions"], Deleted: inc["deleted"], DeletedWithVersions: inc["deletedwithversions"],
		StartFrom: q.q.Get("startFrom"),
	}
	l, err := h.svc.ListBlobs(q.ctx(), q.containerRef(), o)
	if err != nil {
		return err
	}
	doc := blobListXML{ServiceEndpoint: serviceEndpoint(q), ContainerName: q.container,
		Prefix: o.Prefix, Marker: o.Marker, Delimiter: o.Delimiter, NextMarker: l.NextMarker}
	if q.q.Has("maxresults") {
		doc.MaxResults = max
	}
	items := make([]any, 0, len(l.Blobs)+len(l.Prefixes))
	blobs, prefixes := l.Blobs, l.Prefixes
	// Blobs and prefixes interleave in name order, as Azure lists them.
	for len(blobs) > 0 || len(prefixes) > 0 {
		if len(prefixes) == 0 || (len(blobs) > 0 && blobs[0].Name < prefixes[0]) {
			x := blobEntryXML(blobs[0], inc, h.now())
			listedAtVersion(&x, q.version())
			// A snapshot lists no last access time (@azure/storage-blob's
			// recording createSnapshot).
			if t, ok := h.svc.LastAccess(blobs[0].Record); ok && blobs[0].Snapshot == "" {
				x.Properties.LastAccessTime = azhttp.HTTPTime(t)
			}
			items = append(items, x)
			blobs = blobs[1:]
			continue
		}
		items = append(items, blobPrefixXML{Name: listedName(prefixes[0])})
		prefixes = prefixes[1:]
	}
	doc.Blobs.Items = items
	w := listingWriter{b: make([]byte, 0, 512+768*len(items))}
	w.blobList(&doc)
	return writeListing(q.w, w.b)
}

// listedAtVersion adds the empty elements a listed blob carries from
// the versions that introduced them: Content-CRC64 (2019-02-02) and
// OrMetadata, the object replication rules (2019-12-12). The Go SDK's
// recordings list both at 2020-10-02 (go-azblob-TestBlobListWrapper)
// and neither at 2018-03-28 (go-storage-ContainerSuite-TestListBlobsPagination).
func listedAtVersion(x *blobXML, version string) {
	if version >= crc64Version {
		x.Properties.ContentCRC64 = new(string)
	}
	if version >= objectReplicationVersion {
		x.OrMetadata = &struct{}{}
	}
}

// objectReplicationVersion is the first x-ms-version with object
// replication.
const objectReplicationVersion = "2019-12-12"

func blobEntryXML(e ListedBlob, inc map[string]bool, now time.Time) blobXML {
	x := blobXML{Name: listedName(e.Name), Snapshot: e.Snapshot}
	p := &x.Properties
	p.BlobType, p.ServerEncrypted = blockBlob, true
	if e.Record == nil {
		// A blob of uncommitted blocks only: the account's default tier,
		// inferred, and nothing stored encrypted yet (@azure/storage-blob's
		// recording "listBlobsFlat to list uncommitted blobs").
		p.Uncommitted, p.LeaseStatus, p.LeaseState, p.ServerEncrypted = true, "unlocked", "available", false
		tierXML(p, &Blob{Type: blockBlob})
	}
	if b := e.Record; b != nil {
		p.BlobType = b.Type
		if b.Type == pageBlob {
			p.SequenceNumber = &b.SequenceNumber
		}
		if b.Sealed {
			p.Sealed = &b.Sealed
		}
		p.CreationTime, p.LastModified, p.Etag = azhttp.HTTPTime(b.Created), azhttp.HTTPTime(b.Modified), listedETag(b.Version)
		p.ContentLength = b.Size
		p.ContentType, p.ContentEncoding, p.ContentLanguage = b.Headers.ContentType, b.Headers.ContentEncoding, b.Headers.ContentLanguage
		p.CacheControl, p.ContentDisposition = b.Headers.CacheControl, b.Headers.ContentDisposition
		if b.Headers.ContentMD5 != nil {
			p.ContentMD5 = b64(b.Headers.ContentMD5)
		}
		b.settleTier(now)
		tierXML(p, b)
		// Snapshots and earlier versions list no lease at all
		// (go-azblob-TestContainerListBlobsWithSnapshots,
		// go-azblob-TestDeleteSpecificBlobVersion).
		if _, isVersion := versionOf(b.point); e.Snapshot == "" && !isVersion {
			p.LeaseStatus, p.LeaseState, p.LeaseDuration = b.Lease.Status(now), b.Lease.At(now).State.String(), b.Lease.DurationType(now)
		}
		if c := b.Copy; c != nil && inc["copy"] {
			p.CopyID, p.CopySource, p.CopyStatus, p.CopyProgress = c.ID, c.Source, c.Status, c.Progress
			p.CopyCompletionTime = azhttp.HTTPTime(c.Completed)
			p.DestinationSnapshot = c.DestinationSnapshot
		}
		p.IncrementalCopy = b.IncrementalCopy
		if inc["metadata"] {
			m := azhttp.MetadataXML(b.Metadata)
			x.Metadata = &m
		}
		p.TagCount = len(b.Tags)
		if b.KeySHA256 != nil {
			p.CustomerProvidedKeySha256 = b64(b.KeySHA256)
		}
		p.EncryptionScope = b.EncryptionScope
		if inc["tags"] && len(b.Tags) > 0 {
			x.Tags = tagsToXML(b.Tags)
		}
		listVersionAndDeletion(&x, e, inc, now)
	}
	return x
}
