package filesdk_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// structuredBody is a policy that sends Put Range bodies as XSM/1.0
// structured messages (the public azfile API cannot yet), encoded here from
// the format's description; corrupt flips one content byte after the
// checksums are computed.
type structuredBody struct {
	corrupt bool
	echoed  *string
}

func (p structuredBody) Do(req *policy.Request) (*http.Response, error) {
	raw := req.Raw()
	if raw.URL.Query().Get("comp") != "range" || raw.Body == nil {
		return req.Next()
	}
	data, err := io.ReadAll(raw.Body)
	if err != nil {
		return nil, err
	}
	msg := testkit.EncodeXSM(data, 700)
	if p.corrupt {
		msg[13+10] ^= 1
	}
	if err := req.SetBody(streaming.NopCloser(bytes.NewReader(msg)), "application/octet-stream"); err != nil {
		return nil, err
	}
	raw.Header["x-ms-structured-body"] = []string{testkit.XSMHeader}
	raw.Header["x-ms-structured-content-length"] = []string{strconv.Itoa(len(data))}
	resp, err := req.Next()
	if err == nil && p.echoed != nil {
		*p.echoed = resp.Header.Get("x-ms-structured-body")
	}
	return resp, err
}

// TestPutRangeStructured: Put Range takes a structured body, verifies its
// checksums and writes its content; a corrupted one is refused with
// Crc64Mismatch and writes nothing.
func TestPutRangeStructured(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	f.share(t, "xsm")
	plain := f.fileWith(t, "xsm", "f")
	createFile(t, plain, 4096)
	data := bytes.Repeat([]byte("structured!"), 200)[:2048]

	var echoed string
	sm := f.fileWith(t, "xsm", "f", structuredBody{echoed: &echoed})
	if _, err := sm.UploadRange(ctx, 1024, streaming.NopCloser(bytes.NewReader(data)), nil); err != nil {
		t.Fatalf("structured Put Range: %v", err)
	}
	if echoed != testkit.XSMHeader {
		t.Errorf("x-ms-structured-body echoed %q", echoed)
	}
	if got := download(t, plain, file.HTTPRange{Offset: 1024, Count: 2048}); !bytes.Equal(got, data) {
		t.Fatal("structured Put Range: content differs")
	}

	bad := f.fileWith(t, "xsm", "f", structuredBody{corrupt: true})
	_, err := bad.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader(data[:1024])), nil)
	wantStatus(t, err, http.StatusBadRequest, "Crc64Mismatch")
	if got := download(t, plain, file.HTTPRange{Offset: 0, Count: 1024}); !bytes.Equal(got, make([]byte, 1024)) {
		t.Fatal("a refused structured Put Range wrote its content")
	}
}

// xsmContent decodes a one-or-more-segment XSM/1.0 message, checking its
// framing and every CRC64, written from the format's description.
func xsmContent(t *testing.T, msg []byte) []byte {
	t.Helper()
	if len(msg) < 21 || msg[0] != 1 || binary.LittleEndian.Uint64(msg[1:9]) != uint64(len(msg)) || binary.LittleEndian.Uint16(msg[9:11])&1 == 0 {
		t.Fatalf("bad structured message header % x", msg[:min(len(msg), 13)])
	}
	segs := int(binary.LittleEndian.Uint16(msg[11:13]))
	var out []byte
	off := 13
	for i := 1; i <= segs; i++ {
		if int(binary.LittleEndian.Uint16(msg[off:])) != i {
			t.Fatalf("segment %d misnumbered", i)
		}
		n := int(binary.LittleEndian.Uint64(msg[off+2:]))
		part := msg[off+10 : off+10+n]
		if binary.LittleEndian.Uint64(msg[off+10+n:]) != testkit.AzureCRC64(part) {
			t.Fatalf("segment %d CRC64 wrong", i)
		}
		out = append(out, part...)
		off += 10 + n + 8
	}
	if binary.LittleEndian.Uint64(msg[off:]) != testkit.AzureCRC64(out) || off+8 != len(msg) {
		t.Fatal("message trailer wrong")
	}
	return out
}

// TestGetFileStructured: a download asked for as a structured message
// comes back encoded, with the content length in its own header.
func TestGetFileStructured(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	f.share(t, "xsmget")
	plain := f.fileWith(t, "xsmget", "f")
	data := bytes.Repeat([]byte("0123456789abcdef"), 256)
	createFile(t, plain, int64(len(data)))
	if _, err := plain.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader(data)), nil); err != nil {
		t.Fatal(err)
	}
	sm := f.fileWith(t, "xsmget", "f", withHeader{"x-ms-structured-body", testkit.XSMHeader})
	var raw *http.Response
	resp, err := sm.DownloadStream(policy.WithCaptureResponse(ctx, &raw), &file.DownloadStreamOptions{Range: file.HTTPRange{Offset: 100, Count: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if got := xsmContent(t, msg); !bytes.Equal(got, data[100:1100]) {
		t.Fatal("structured download: content differs")
	}
	if raw.Header.Get("x-ms-structured-body") != testkit.XSMHeader || raw.Header.Get("x-ms-structured-content-length") != "1000" {
		t.Errorf("headers %q %q", raw.Header.Get("x-ms-structured-body"), raw.Header.Get("x-ms-structured-content-length"))
	}
}
