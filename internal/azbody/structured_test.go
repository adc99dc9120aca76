package azbody

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc64"
	"io"
	"net/http"
	"testing"
	"testing/iotest"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// encodeXSM builds a message the way the spec describes it, independently
// of StructuredWriter, so that each checks the other.
func encodeXSM(data []byte, segSize int) []byte {
	table := crc64.MakeTable(0x9A6C9329AC4BC9B5)
	n := max(1, (len(data)+segSize-1)/segSize)
	var body bytes.Buffer
	for i := 0; i < n; i++ {
		seg := data[i*segSize : min(len(data), (i+1)*segSize)]
		_ = binary.Write(&body, binary.LittleEndian, uint16(i+1))
		_ = binary.Write(&body, binary.LittleEndian, uint64(len(seg)))
		body.Write(seg)
		_ = binary.Write(&body, binary.LittleEndian, crc64.Checksum(seg, table))
	}
	_ = binary.Write(&body, binary.LittleEndian, crc64.Checksum(data, table))
	var out bytes.Buffer
	out.WriteByte(1)
	_ = binary.Write(&out, binary.LittleEndian, uint64(13+body.Len()))
	_ = binary.Write(&out, binary.LittleEndian, uint16(1))
	_ = binary.Write(&out, binary.LittleEndian, uint16(n))
	out.Write(body.Bytes())
	return out.Bytes()
}

// decodeAll reads the content the way the Blob service does: exactly
// contentLen bytes, then Done.
func decodeAll(msg []byte, contentLen int64, r io.Reader) ([]byte, error) {
	d := NewStructuredReader(r, int64(len(msg)), contentLen)
	out := make([]byte, contentLen)
	if _, err := io.ReadFull(d, out); err != nil {
		return nil, err
	}
	return out, d.Done()
}

func TestStructuredRoundTrip(t *testing.T) {
	for _, tc := range []struct{ size, seg int }{{0, 4}, {1, 4}, {4, 4}, {5, 4}, {4096, 1000}, {10000, 4 << 20}} {
		data := make([]byte, tc.size)
		for i := range data {
			data[i] = byte(i*7 + 3)
		}
		msg := encodeXSM(data, tc.seg)
		if got := StructuredLength(int64(tc.size), int64(tc.seg)); got != int64(len(msg)) {
			t.Fatalf("size %d seg %d: StructuredLength %d, message is %d bytes", tc.size, tc.seg, got, len(msg))
		}
		var buf bytes.Buffer
		w, err := NewStructuredWriter(&buf, int64(tc.size), int64(tc.seg))
		if err != nil {
			t.Fatal(err)
		}
		// Write in odd pieces, crossing segment boundaries.
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 3)
			if _, err := w.Write(rest[:n]); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), msg) {
			t.Fatalf("size %d seg %d: writer's encoding differs from the spec's", tc.size, tc.seg)
		}
		for _, r := range []io.Reader{bytes.NewReader(msg), iotest.OneByteReader(bytes.NewReader(msg)), iotest.HalfReader(bytes.NewReader(msg))} {
			got, err := decodeAll(msg, int64(tc.size), r)
			if err != nil {
				t.Fatalf("size %d seg %d: %v", tc.size, tc.seg, err)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("size %d seg %d: content differs", tc.size, tc.seg)
			}
		}
	}
}

func TestStructuredRejects(t *testing.T) {
	data := []byte("hello, structured world")
	good := encodeXSM(data, 8)
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name       string
		msg        []byte
		contentLen int64
		code       string
	}{
		{"segment crc", mutate(func(b []byte) []byte { b[13+10] ^= 1; return b }), int64(len(data)), "Crc64Mismatch"},
		{"trailer crc", mutate(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }), int64(len(data)), "Crc64Mismatch"},
		{"version", mutate(func(b []byte) []byte { b[0] = 2; return b }), int64(len(data)), "InvalidInput"},
		{"no crc flag", mutate(func(b []byte) []byte { b[9] = 0; return b }), int64(len(data)), "InvalidInput"},
		{"no segments", mutate(func(b []byte) []byte { b[11], b[12] = 0, 0; return b }), int64(len(data)), "InvalidInput"},
		{"segment number", mutate(func(b []byte) []byte { b[13] = 2; return b }), int64(len(data)), "InvalidInput"},
		{"content length larger", good, int64(len(data)) + 1, "InvalidInput"},
		{"content length smaller", good, int64(len(data)) - 1, "InvalidInput"},
		{"truncated", good[:len(good)-3], int64(len(data)), "InvalidInput"},
		{"length field", mutate(func(b []byte) []byte { b[1]++; return b }), int64(len(data)), "InvalidInput"},
	}
	for _, tc := range cases {
		_, err := decodeAll(tc.msg, tc.contentLen, bytes.NewReader(tc.msg))
		var e *azerr.Error
		if !errors.As(err, &e) || e.Code != tc.code {
			t.Errorf("%s: got %v, want %s", tc.name, err, tc.code)
		}
	}
	// Trailing bytes after a complete message.
	long := append(append([]byte(nil), good...), 0, 0)
	d := NewStructuredReader(bytes.NewReader(long), int64(len(long)), int64(len(data)))
	if _, err := io.ReadAll(d); err == nil {
		t.Error("trailing bytes accepted")
	}
}

func TestParseStructuredBody(t *testing.T) {
	h := http.Header{}
	if ok, _, err := ParseStructuredBody(h); ok || err != nil {
		t.Fatal("plain body taken for structured")
	}
	h.Set("x-ms-structured-body", "XSM/1.0;  properties=CRC64")
	if _, _, err := ParseStructuredBody(h); err == nil {
		t.Fatal("missing x-ms-structured-content-length accepted")
	}
	h.Set("x-ms-structured-content-length", "12")
	if ok, n, err := ParseStructuredBody(h); !ok || n != 12 || err != nil {
		t.Fatalf("got %v %d %v", ok, n, err)
	}
	for _, bad := range []string{"XSM/2.0; properties=crc64", "XSM/1.0; properties=md5", "XSM/1.0"} {
		h.Set("x-ms-structured-body", bad)
		if _, _, err := ParseStructuredBody(h); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	h.Set("x-ms-structured-body", StructuredBodyCRC64)
	h.Set("x-ms-structured-content-length", "-1")
	if _, _, err := ParseStructuredBody(h); err == nil {
		t.Error("negative content length accepted")
	}
}

// FuzzStructuredReader: whatever the body, decoding never panics, and
// what it accepts is exactly what an encoder would produce for the
// content it returned.
func FuzzStructuredReader(f *testing.F) {
	f.Add(encodeXSM([]byte("abc"), 2), int64(3))
	f.Add(encodeXSM(nil, 4), int64(0))
	f.Add(encodeXSM(bytes.Repeat([]byte{9}, 100), 7), int64(100))
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 0, 1, 0}, int64(5))
	f.Fuzz(func(t *testing.T, msg []byte, contentLen int64) {
		if contentLen < 0 || contentLen > 1<<20 {
			return
		}
		got, err := decodeAll(msg, contentLen, bytes.NewReader(msg))
		if err != nil {
			return
		}
		if int64(len(got)) != contentLen {
			t.Fatalf("accepted %d bytes of content, declared %d", len(got), contentLen)
		}
		// What was accepted re-encodes (one byte a segment, another
		// layout) into a message that decodes to the same content.
		if contentLen > 1000 {
			return
		}
		var buf bytes.Buffer
		w, err := NewStructuredWriter(&buf, contentLen, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(got); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		again, err := decodeAll(buf.Bytes(), contentLen, bytes.NewReader(buf.Bytes()))
		if err != nil || !bytes.Equal(again, got) {
			t.Fatalf("re-encoded content does not decode: %v", err)
		}
	})
}
