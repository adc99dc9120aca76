package file

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azbody"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

func (h *handler) createFile(q *request) error {
	v := q.r.Header.Get("X-Ms-Content-Length")
	if v == "" {
		return azerr.MissingRequiredHeader("x-ms-content-length")
	}
	size, err := strconv.ParseInt(v, 10, 64)
	if err != nil || size < 0 || size > MaxFileSize {
		return azerr.InvalidHeaderValue("x-ms-content-length", v).WithMessage("x-ms-content-length must be 0 to 4 TiB.")
	}
	data, sum, err := createData(q, size)
	if err != nil {
		return err
	}
	smb, err := parseSMB(q.r.Header, false)
	if err != nil {
		return err
	}
	headers, err := parseContentHeaders(q.r.Header)
	if err != nil {
		return err
	}
	// Without x-ms-content-type the request's own Content-Type becomes
	// the file's: the Python SDK sends application/xml, and Azure then
	// reports it (the recording test_create_file).
	if headers.ContentType == "" {
		headers.ContentType = q.r.Header.Get("Content-Type")
	}
	meta, err := azhttp.ParseMetadata(q.r.Header)
	if err != nil {
		return err
	}
	n, err := h.svc.CreateFile(q.ctx(), q.ref(), CreateFileOptions{Size: size, Headers: headers, SMB: smb, Metadata: meta, Conditions: preconditions(q.r.Header), Data: data})
	if err != nil {
		return err
	}
	writeNode(q.w.Header(), n)
	nfsDetails(q.w.Header(), n, true, false)
	if sum != nil {
		q.w.Header().Set("Content-Md5", base64.StdEncoding.EncodeToString(sum))
	}
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}

// createData reads Create File's body: from version 2026-02-06 the file's
// first bytes, up to 4 MiB and no more than the file's size, checked
// against Content-MD5 when the request sends one. It returns the bytes
// and their MD5 (nil for no body), which the answer echoes (the azfile
// recordings TestFileCreateData, TestFileCreateDataIncorrectMD5).
func createData(q *request, size int64) ([]byte, []byte, error) {
	length := q.r.ContentLength
	if length == 0 {
		return nil, nil, nil
	}
	if !q.since(createDataVersion) || length < 0 {
		return nil, nil, azerr.InvalidHeaderValue("Content-Length", strconv.FormatInt(length, 10)).WithMessage("Create File takes no body before version %s; write content with Put Range.", createDataVersion)
	}
	if length > MaxPutRange {
		return nil, nil, azerr.ErrRequestBodyTooLarge.WithMessage("Create File writes at most 4 MiB.")
	}
	if length > size {
		return nil, nil, azerr.InvalidHeaderValue("Content-Length", strconv.FormatInt(length, 10)).WithMessage("The body is longer than x-ms-content-length.")
	}
	var given []byte
	if v := q.r.Header.Get("Content-Md5"); v != "" {
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil || len(b) != md5.Size {
			return nil, nil, azerr.ErrInvalidMd5
		}
		given = b
	}
	data := make([]byte, length)
	if _, err := io.ReadFull(q.r.Body, data); err != nil {
		return nil, nil, azerr.ErrInvalidInput.WithMessage("The body ended before Content-Length bytes.")
	}
	sum := md5.Sum(data)
	if given != nil && !bytes.Equal(given, sum[:]) {
		return nil, nil, azerr.ErrMd5Mismatch.WithDetails(
			azerr.Detail{Name: "UserSpecifiedMd5", Value: base64.StdEncoding.EncodeToString(given)},
			azerr.Detail{Name: "ServerCalculatedMd5", Value: base64.StdEncoding.EncodeToString(sum[:])})
	}
	return data, sum[:], nil
}

func (h *handler) getFileProperties(q *request) error {
	n, err := h.svc.GetFileProperties(q.ctx(), q.readRef(), preconditions(q.r.Header))
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	writeFileHeaders(hdr, n, h.svc.clock())
	nfsDetails(hdr, n, true, true)
	azauth.WriteSASOverrides(hdr, q.access, q.q)
	hdr.Set("Content-Length", strconv.FormatInt(n.Size, 10))
	if n.Headers.ContentMD5 != nil {
		hdr.Set("Content-Md5", base64.StdEncoding.EncodeToString(n.Headers.ContentMD5))
	}
	q.w.WriteHeader(http.StatusOK)
	return nil
}

func (h *handler) getFile(q *request) error {
	rng, err := azhttp.ParseRange(q.r.Header, false)
	if err != nil {
		return err
	}
	structured, err := azbody.WantsStructuredBody(q.r.Header)
	if err != nil {
		return err
	}
	wantMD5 := q.r.Header.Get("X-Ms-Range-Get-Content-Md5") == "true"
	if wantMD5 && structured {
		return azerr.ErrInvalidInput.WithMessage("x-ms-range-get-content-md5 may not be combined with x-ms-structured-body.")
	}
	if wantMD5 && (rng == nil || rng.End < 0 || rng.End-rng.Start+1 > MaxPutRange) {
		return azerr.InvalidHeaderValue("x-ms-range-get-content-md5", "true").WithMessage("x-ms-range-get-content-md5 needs a closed range of at most 4 MiB.")
	}
	return h.svc.GetFile(q.ctx(), q.readRef(), GetFileOptions{Range: rng, Conditions: preconditions(q.r.Header)}, func(d *Download) error {
		if structured && d.Length > MaxPutRange {
			return azerr.ErrOutOfRangeInput.WithMessage("x-ms-structured-body is allowed for ranges up to 4 MiB.")
		}
		hdr := q.w.Header()
		writeFileHeaders(hdr, d.File, h.svc.clock())
		azauth.WriteSASOverrides(hdr, q.access, q.q)
		hdr.Set("Accept-Ranges", "bytes")
		hdr.Set("Content-Length", strconv.FormatInt(d.Length, 10))
		status := http.StatusOK
		if d.Ranged {
			status = http.StatusPartialContent
			hdr.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", d.Offset, d.Offset+d.Length-1, d.File.Size))
		}
		switch {
		case wantMD5:
			var buf bytes.Buffer
			if err := d.Stream(&buf); err != nil {
				return err
			}
			sum := md5.Sum(buf.Bytes())
			hdr.Set("Content-Md5", base64.StdEncoding.EncodeToString(sum[:]))
			q.w.WriteHeader(status)
			_, _ = q.w.Write(buf.Bytes()) // the status is sent: a failed write has no one to tell
			return nil
		case !d.Ranged && d.File.Headers.ContentMD5 != nil:
			hdr.Set("Content-Md5", base64.StdEncoding.EncodeToString(d.File.Headers.ContentMD5))
		}
		send := d.Stream
		if structured {
			azbody.WriteStructuredHeaders(hdr, d.Length)
			send = func(w io.Writer) error { return azbody.StreamStructured(w, d.Length, d.Stream) }
		}
		q.w.WriteHeader(status)
		if q.r.Method == http.MethodHead {
			return nil
		}
		if err := send(q.w); err != nil {
			// Headers are out: the only way left to signal a failure is to
			// cut the body short, which the client sees against
			// Content-Length.
			h.svc.log.Error("get file: stream", "share", q.share, "path", q.path, "err", err)
			panic(http.ErrAbortHandler)
		}
		return nil
	})
}

func (h *handler) setFileMetadata(q *request) error {
	meta, err := azhttp.ParseMetadata(q.r.Header)
	if err != nil {
		return err
	}
	n, err := h.svc.SetFileMetadata(q.ctx(), q.ref(), meta, preconditions(q.r.Header))
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	hdr.Set("Etag", azhttp.ETag(n.Version))
	hdr.Set("Last-Modified", azhttp.HTTPTime(n.Modified))
	hdr.Set("X-Ms-Request-Server-Encrypted", "true")
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

func (h *handler) deleteFile(q *request) error {
	if err := h.svc.DeleteFile(q.ctx(), q.ref(), preconditions(q.r.Header)); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusAccepted)
}

func (h *handler) putRange(q *request) error {
	rng, err := azhttp.ParseRange(q.r.Header, true)
	if err != nil {
		return err
	}
	if rng == nil {
		return azerr.MissingRequiredHeader("x-ms-range").WithMessage("Put Range needs a closed range in x-ms-range or Range.")
	}
	length := rng.End - rng.Start + 1
	pre := preconditions(q.r.Header)
	var n *Node
	hdr := q.w.Header()
	switch mode := q.r.Header.Get("X-Ms-Write"); mode {
	case "update":
		if length > MaxPutRange {
			return azerr.ErrRequestBodyTooLarge.WithMessage("A Put Range writes at most 4 MiB.")
		}
		structured, body, err := structuredRange(q, length)
		if err != nil {
			return err
		}
		if !structured && q.r.ContentLength != length {
			return azerr.InvalidHeaderValue("Content-Length", strconv.FormatInt(q.r.ContentLength, 10)).WithMessage("Content-Length %d does not match the range length %d.", q.r.ContentLength, length)
		}
		c := Content{Body: body, Length: length}
		if v := q.r.Header.Get("Content-Md5"); v != "" {
			b, err := base64.StdEncoding.DecodeString(v)
			if err != nil || len(b) != md5.Size {
				return azerr.ErrInvalidMd5
			}
			c.MD5 = b
		}
		if c.CRC64, err = azbody.ParseCRC64(q.r.Header, "x-ms-content-crc64"); err != nil {
			return err
		}
		if c.KeepLastWriteTime, err = parseLastWriteMode(q.r.Header); err != nil {
			return err
		}
		if c.MD5 != nil && c.CRC64 != nil {
			return azerr.ErrInvalidInput.WithMessage("Content-MD5 and x-ms-content-crc64 may not both be specified.")
		}
		w, err := h.svc.PutRange(q.ctx(), q.ref(), rng.Start, c, pre)
		if err != nil {
			return err
		}
		n = w.File
		if structured {
			hdr.Set("X-Ms-Structured-Body", azbody.StructuredBodyCRC64)
		}
		hdr.Set("Content-Md5", base64.StdEncoding.EncodeToString(w.ContentMD5))
		if w.ContentCRC64 != nil {
			hdr.Set("X-Ms-Content-Crc64", base64.StdEncoding.EncodeToString(w.ContentCRC64))
		}
	case "clear":
		if q.r.ContentLength > 0 {
			return azerr.InvalidHeaderValue("Content-Length", strconv.FormatInt(q.r.ContentLength, 10)).WithMessage("A range clear takes no body.")
		}
		if q.r.Header.Get("Content-Md5") != "" {
			return azerr.UnsupportedHeader("Content-MD5", q.r.Header.Get("Content-Md5")).WithMessage("A range clear takes no Content-MD5.")
		}
		if n, err = h.svc.ClearRange(q.ctx(), q.ref(), rng.Start, rng.End, pre); err != nil {
			return err
		}
	case "":
		return azerr.MissingRequiredHeader("x-ms-write")
	default:
		return azerr.InvalidHeaderValue("x-ms-write", mode)
	}
	hdr.Set("Etag", azhttp.ETag(n.Version))
	hdr.Set("Last-Modified", azhttp.HTTPTime(n.Modified))
	hdr.Set("X-Ms-Request-Server-Encrypted", "true")
	hdr.Set("X-Ms-File-Last-Write-Time", n.SMB.LastWriteTime.UTC().Format(smbTimeLayout))
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}

type rangeListXML struct {
	XMLName xml.Name   `xml:"Ranges"`
	Ranges  []rangeXML `xml:"Range"`
}

type rangeXML struct {
	Start int64 `xml:"Start"`
	End   int64 `xml:"End"`
}

func (h *handler) listRanges(q *request) error {
	rng, err := azhttp.ParseRange(q.r.Header, false)
	if err != nil {
		return err
	}
	if q.q.Has("prevsharesnapshot") {
		return h.listRangesDiff(q, rng)
	}
	l, err := h.svc.ListRanges(q.ctx(), q.readRef(), rng, preconditions(q.r.Header))
	if err != nil {
		return err
	}
	doc := rangeListXML{Ranges: []rangeXML{}}
	for _, r := range l.Ranges {
		doc.Ranges = append(doc.Ranges, rangeXML(r))
	}
	hdr := q.w.Header()
	hdr.Set("Etag", azhttp.ETag(l.File.Version))
	hdr.Set("Last-Modified", azhttp.HTTPTime(l.File.Modified))
	hdr.Set("X-Ms-Content-Length", strconv.FormatInt(l.File.Size, 10))
	return azhttp.WriteXML(q.w, http.StatusOK, doc)
}
