package azbody

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// Azure's structured body (XSM/1.0): a request or response body that
// wraps its content in segments, each with a CRC64 of its bytes, and ends
// with the CRC64 of the whole content. Every integer is little endian:
//
//	header:  uint8 version (1), uint64 message length, uint16 flags, uint16 segment count
//	segment: uint16 number (from 1), uint64 data length, data, [8] CRC64 of the data
//	trailer: [8] CRC64 of all the content
//
// The CRC64 parts are present when flags has bit 0 set; Azure's only
// properties value, crc64, requires it.
const (
	// StructuredBodyCRC64 is the x-ms-structured-body value of XSM/1.0
	// with CRC64 checksums, the only one Azure accepts.
	StructuredBodyCRC64 = "XSM/1.0; properties=crc64"

	structuredVersion     = 1
	structuredFlagCRC64   = 1
	structuredHeaderLen   = 13
	structuredSegHeadLen  = 10
	structuredCRCLen      = 8
	structuredMaxSegments = 1<<16 - 1

	// StructuredSegmentSize is the segment size of the messages this
	// server encodes (the SDKs' default).
	StructuredSegmentSize = 4 << 20
)

// errStructured is Azure's answer to a structured body that is not a
// well-formed message of the declared lengths.
func errStructured(format string, args ...any) error {
	return azerr.ErrInvalidInput.WithMessage("The structured message in the request body is malformed: "+format, args...)
}

// ParseStructuredBody reads a request's x-ms-structured-body and
// x-ms-structured-content-length headers: ok is false when the body is
// plain, else contentLength is the size of the content the message wraps.
func ParseStructuredBody(h http.Header) (ok bool, contentLength int64, err error) {
	v := h.Get("X-Ms-Structured-Body")
	if v == "" {
		if h.Get("X-Ms-Structured-Content-Length") != "" {
			return false, 0, azerr.MissingRequiredHeader("x-ms-structured-body")
		}
		return false, 0, nil
	}
	if !isStructuredCRC64(v) {
		return false, 0, azerr.InvalidHeaderValue("x-ms-structured-body", v)
	}
	raw := h.Get("X-Ms-Structured-Content-Length")
	if raw == "" {
		return false, 0, azerr.MissingRequiredHeader("x-ms-structured-content-length")
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 {
		return false, 0, azerr.InvalidHeaderValue("x-ms-structured-content-length", raw)
	}
	return true, n, nil
}

// WantsStructuredBody reports whether a download asks for its body as a
// structured message, refusing a value Azure does not know.
func WantsStructuredBody(h http.Header) (bool, error) {
	v := h.Get("X-Ms-Structured-Body")
	switch {
	case v == "":
		return false, nil
	case isStructuredCRC64(v):
		return true, nil
	}
	return false, azerr.InvalidHeaderValue("x-ms-structured-body", v)
}

// isStructuredCRC64 accepts the header value with the spacing and case
// variations of its parameter, as HTTP parameters allow.
func isStructuredCRC64(v string) bool {
	version, params, _ := cutTrim(v, ';')
	if version != "XSM/1.0" {
		return false
	}
	name, value, ok := cutTrim(params, '=')
	return ok && equalFoldASCII(name, "properties") && equalFoldASCII(value, "crc64")
}

func cutTrim(s string, sep byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return trimSpace(s[:i]), trimSpace(s[i+1:]), true
		}
	}
	return trimSpace(s), "", false
}

func trimSpace(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i]|0x20, b[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}

// StructuredReader decodes a structured message as it streams: Read
// yields the content, verifying each segment's CRC64 before handing out
// its last bytes, so a reader that stops at the content's length has
// seen only verified bytes. Done checks that the message ends there.
type StructuredReader struct {
	r          io.Reader
	msgLen     int64 // the body's length, which the header must repeat
	contentLen int64 // x-ms-structured-content-length

	read     int64 // message bytes consumed
	segments int   // declared segment count
	seg      int   // number of the segment being read, 0 before the header
	left     int64 // data bytes left in the current segment
	content  int64 // content bytes handed out
	segCRC   hash.Hash64
	msgCRC   hash.Hash64
	done     bool
	err      error
}

// NewStructuredReader decodes the message of bodyLen bytes (the request's
// Content-Length) read from r, which wraps contentLen bytes of content.
func NewStructuredReader(r io.Reader, bodyLen, contentLen int64) *StructuredReader {
	return &StructuredReader{r: r, msgLen: bodyLen, contentLen: contentLen, segCRC: NewCRC64(), msgCRC: NewCRC64()}
}

func (d *StructuredReader) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if err := d.frame(); err != nil {
		d.err = err
		return 0, err
	}
	if d.done {
		return 0, io.EOF
	}
	if int64(len(p)) > d.left {
		p = p[:d.left]
	}
	n, err := d.r.Read(p)
	d.read += int64(n)
	d.left -= int64(n)
	d.content += int64(n)
	d.segCRC.Write(p[:n])
	d.msgCRC.Write(p[:n])
	if err != nil && !errors.Is(err, io.EOF) {
		d.err = err
		return 0, err
	}
	if errors.Is(err, io.EOF) && d.left > 0 {
		d.err = io.ErrUnexpectedEOF
		return 0, d.err
	}
	if d.left == 0 {
		// Verify the segment (and, after the last, the message) before
		// the caller sees the bytes that complete it.
		if err := d.frame(); err != nil {
			d.err = err
			return 0, err
		}
	}
	return n, nil
}

// Done reports whether the message was complete and correct: every
// segment and the trailer read and verified, nothing after them.
func (d *StructuredReader) Done() error {
	if d.err != nil {
		return d.err
	}
	if err := d.frame(); err != nil {
		d.err = err
		return err
	}
	if !d.done {
		d.err = errStructured("the message holds more content than x-ms-structured-content-length.")
		return d.err
	}
	return nil
}

// frame consumes the framing between content bytes: the header, segment
// footers and headers, and the trailer, until data is next (or the end).
func (d *StructuredReader) frame() error {
	for !d.done && d.left == 0 {
		if d.seg == 0 {
			if err := d.header(); err != nil {
				return err
			}
		} else {
			// The segment just read ends: its checksum, then the next
			// segment or, after the last, the trailer.
			if err := d.segmentFooter(); err != nil {
				return err
			}
			if d.seg == d.segments {
				return d.trailer()
			}
		}
		if err := d.segmentHeader(); err != nil {
			return err
		}
	}
	return nil
}

func (d *StructuredReader) full(b []byte) error {
	n, err := io.ReadFull(d.r, b)
	d.read += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return errStructured("the message ends before its framing does.")
		}
		return err
	}
	return nil
}

func (d *StructuredReader) header() error {
	var b [structuredHeaderLen]byte
	if err := d.full(b[:]); err != nil {
		return err
	}
	if b[0] != structuredVersion {
		return errStructured("version %d is not supported.", b[0])
	}
	if l := binary.LittleEndian.Uint64(b[1:9]); l != uint64(d.msgLen) {
		return errStructured("the message length %d does not match Content-Length %d.", l, d.msgLen)
	}
	if f := binary.LittleEndian.Uint16(b[9:11]); f&structuredFlagCRC64 == 0 {
		return errStructured("the message does not carry CRC64 checksums.")
	}
	d.segments = int(binary.LittleEndian.Uint16(b[11:13]))
	if d.segments == 0 {
		return errStructured("the message has no segments.")
	}
	return nil
}

func (d *StructuredReader) segmentHeader() error {
	var b [structuredSegHeadLen]byte
	if err := d.full(b[:]); err != nil {
		return err
	}
	d.seg++
	if n := int(binary.LittleEndian.Uint16(b[:2])); n != d.seg {
		return errStructured("segment %d is numbered %d.", d.seg, n)
	}
	l := binary.LittleEndian.Uint64(b[2:])
	if l > uint64(d.contentLen-d.content) {
		return errStructured("segment %d holds more than x-ms-structured-content-length.", d.seg)
	}
	d.left = int64(l)
	d.segCRC.Reset()
	return nil
}

func (d *StructuredReader) segmentFooter() error {
	var b [structuredCRCLen]byte
	if err := d.full(b[:]); err != nil {
		return err
	}
	if binary.LittleEndian.Uint64(b[:]) != d.segCRC.Sum64() {
		return azerr.ErrCrc64Mismatch
	}
	return nil
}

func (d *StructuredReader) trailer() error {
	var b [structuredCRCLen]byte
	if err := d.full(b[:]); err != nil {
		return err
	}
	if binary.LittleEndian.Uint64(b[:]) != d.msgCRC.Sum64() {
		return azerr.ErrCrc64Mismatch
	}
	if d.content != d.contentLen {
		return errStructured("the message holds %d bytes of content, not x-ms-structured-content-length %d.", d.content, d.contentLen)
	}
	if d.read != d.msgLen {
		return errStructured("%d bytes follow the message trailer.", d.msgLen-d.read)
	}
	d.done = true
	return nil
}

// StructuredLength is the length of the message that wraps contentLen
// bytes in segments of segmentSize.
func StructuredLength(contentLen, segmentSize int64) int64 {
	return structuredHeaderLen + structuredSegments(contentLen, segmentSize)*(structuredSegHeadLen+structuredCRCLen) + contentLen + structuredCRCLen
}

func structuredSegments(contentLen, segmentSize int64) int64 {
	return max(1, (contentLen+segmentSize-1)/segmentSize)
}

// StructuredWriter encodes contentLen bytes written to it as a structured
// message on w, in segments of a given size; Close writes the last
// segment's checksum and the trailer.
type StructuredWriter struct {
	w           io.Writer
	contentLen  int64
	segmentSize int64
	written     int64 // content bytes written
	seg         int64 // segments started
	left        int64 // bytes left in the current segment
	segCRC      hash.Hash64
	msgCRC      hash.Hash64
	started     bool
}

// NewStructuredWriter returns an encoder of contentLen bytes onto w. A
// message holds at most 65535 segments; larger content is refused.
func NewStructuredWriter(w io.Writer, contentLen, segmentSize int64) (*StructuredWriter, error) {
	if segmentSize <= 0 || contentLen < 0 || structuredSegments(contentLen, segmentSize) > structuredMaxSegments {
		return nil, fmt.Errorf("structured message of %d bytes in segments of %d: out of range", contentLen, segmentSize)
	}
	return &StructuredWriter{w: w, contentLen: contentLen, segmentSize: segmentSize, segCRC: NewCRC64(), msgCRC: NewCRC64()}, nil
}

func (e *StructuredWriter) start() error {
	if e.started {
		return nil
	}
	e.started = true
	b := make([]byte, 0, structuredHeaderLen)
	b = append(b, structuredVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(StructuredLength(e.contentLen, e.segmentSize)))
	b = binary.LittleEndian.AppendUint16(b, structuredFlagCRC64)
	b = binary.LittleEndian.AppendUint16(b, uint16(structuredSegments(e.contentLen, e.segmentSize)))
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	return e.nextSegment()
}

func (e *StructuredWriter) nextSegment() error {
	e.seg++
	e.left = min(e.segmentSize, e.contentLen-e.written)
	e.segCRC.Reset()
	b := binary.LittleEndian.AppendUint16(make([]byte, 0, structuredSegHeadLen), uint16(e.seg))
	b = binary.LittleEndian.AppendUint64(b, uint64(e.left))
	_, err := e.w.Write(b)
	return err
}

func (e *StructuredWriter) endSegment() error {
	_, err := e.w.Write(CRC64Bytes(e.segCRC.Sum64()))
	return err
}

func (e *StructuredWriter) Write(p []byte) (int, error) {
	if err := e.start(); err != nil {
		return 0, err
	}
	if int64(len(p)) > e.contentLen-e.written {
		return 0, fmt.Errorf("structured message: %d bytes written past the content length %d", int64(len(p))-(e.contentLen-e.written), e.contentLen)
	}
	total := 0
	for len(p) > 0 {
		if e.left == 0 {
			if err := e.endSegment(); err != nil {
				return total, err
			}
			if err := e.nextSegment(); err != nil {
				return total, err
			}
		}
		chunk := p[:min(int64(len(p)), e.left)]
		n, err := e.w.Write(chunk)
		e.segCRC.Write(chunk[:n])
		e.msgCRC.Write(chunk[:n])
		e.written += int64(n)
		e.left -= int64(n)
		total += n
		if err != nil {
			return total, err
		}
		p = p[n:]
	}
	return total, nil
}

// Close ends the message; all contentLen bytes must have been written.
func (e *StructuredWriter) Close() error {
	if err := e.start(); err != nil {
		return err
	}
	if e.written != e.contentLen {
		return fmt.Errorf("structured message: %d of %d content bytes written", e.written, e.contentLen)
	}
	if err := e.endSegment(); err != nil {
		return err
	}
	_, err := e.w.Write(CRC64Bytes(e.msgCRC.Sum64()))
	return err
}

// WriteStructuredHeaders sets the response headers of a body sent as a
// structured message wrapping contentLen bytes.
func WriteStructuredHeaders(h http.Header, contentLen int64) {
	h.Set("X-Ms-Structured-Body", StructuredBodyCRC64)
	h.Set("X-Ms-Structured-Content-Length", strconv.FormatInt(contentLen, 10))
	h.Set("Content-Length", strconv.FormatInt(StructuredLength(contentLen, StructuredSegmentSize), 10))
}

// DecodeStructured reads a whole structured message of bodyLen bytes from
// r and returns the contentLen bytes of content it wraps, verified; for
// small bodies (a Files Put Range) that are decoded before they are used.
func DecodeStructured(r io.Reader, bodyLen, contentLen int64) ([]byte, error) {
	d := NewStructuredReader(r, bodyLen, contentLen)
	data := make([]byte, contentLen)
	if _, err := io.ReadFull(d, data); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, errStructured("the message ends before its content does.")
		}
		return nil, err
	}
	if err := d.Done(); err != nil {
		return nil, err
	}
	return data, nil
}

// StreamStructured sends the length bytes stream writes to w as a
// structured message in StructuredSegmentSize segments: the structured
// form of a download, for every service.
func StreamStructured(w io.Writer, length int64, stream func(io.Writer) error) error {
	enc, err := NewStructuredWriter(w, length, StructuredSegmentSize)
	if err != nil {
		return err
	}
	if err := stream(enc); err != nil {
		return err
	}
	return enc.Close()
}
