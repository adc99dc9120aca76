package blobsdk_test

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azbody"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// A write of content answers with the digests of the bytes written even
// when the client sent none to verify: x-ms-content-crc64 from version
// 2019-02-02 on, and Content-MD5 from Put Blob always but from Put Block,
// Put Block List, Append Block and Put Page only when the client sent one
// — before 2019-02-02 they all answered Content-MD5 and no CRC64. The
// recordings this comes from: the Go SDK's go-azblob-TestBlobPutBlobHTTPHeaders,
// go-azblob-TestStageGetBlocks, go-azblob-TestBlobPutBlockListHTTPHeadersEmpty,
// go-azblob-TestBlobAppendBlockIfMatchTrue and go-azblob-TestBlobPutPagesIfMatchTrue (2020-10-02),
// and go-storage-BlockBlobSuite-TestPutBlock, go-storage-AppendBlobSuite-TestPutAppendBlobAppendBlocks
// and go-storage-PageBlobSuite-TestPutPagesUpdate (2018-03-28).
func TestWriteDigestsByVersion(t *testing.T) {
	f := newFixture(t)
	sk := f.signer()
	cc := f.createContainer(testkit.Name("digests"), nil)
	data := testkit.RandBytes(3, 512)
	list := []byte(`<?xml version="1.0" encoding="UTF-8"?><BlockList><Latest>AAAAAA==</Latest></BlockList>`)
	b64 := base64.StdEncoding.EncodeToString
	sum := func(b []byte) (md, crc string) {
		m := md5.Sum(b)
		return b64(m[:]), b64(azbody.CRC64(b))
	}
	for _, version := range []string{"2018-03-28", "2020-10-02"} {
		t.Run(version, func(t *testing.T) {
			old := version < "2019-02-02"
			send := func(method, u string, hdr map[string]string, body []byte) testkit.Response {
				t.Helper()
				h := map[string]string{"x-ms-version": version}
				for k, v := range hdr {
					h[k] = v
				}
				return sk.Send(t, testkit.Request{Method: method, URL: u, Header: h, Body: body})
			}
			// expect checks the answer's digests: md5Always says whether
			// Content-MD5 comes back unasked at this version.
			expect := func(what string, r testkit.Response, body []byte, md5Always bool) {
				t.Helper()
				if !r.Check(t, http.StatusCreated, "", what) {
					return
				}
				md, crc := sum(body)
				if got := r.Header.Get("Content-MD5"); md5Always && got != md || !md5Always && got != "" {
					t.Errorf("%s: Content-MD5 %q (want it: %v, %q)", what, got, md5Always, md)
				}
				wantCRC := crc
				if old {
					wantCRC = ""
				}
				if got := r.Header.Get("x-ms-content-crc64"); got != wantCRC {
					t.Errorf("%s: x-ms-content-crc64 %q, want %q", what, got, wantCRC)
				}
			}
			base := cc.URL() + "/" + version
			expect("Put Blob", send(http.MethodPut, base+"-block", map[string]string{"x-ms-blob-type": "BlockBlob"}, data), data, true)
			expect("Put Block", send(http.MethodPut, base+"-block?comp=block&blockid=AAAAAA%3D%3D", nil, data), data, old)
			expect("Put Block List", send(http.MethodPut, base+"-block?comp=blocklist", nil, list), list, old)

			send(http.MethodPut, base+"-append", map[string]string{"x-ms-blob-type": "AppendBlob"}, nil).Check(t, http.StatusCreated, "", "Create append blob")
			expect("Append Block", send(http.MethodPut, base+"-append?comp=appendblock", nil, data), data, old)

			send(http.MethodPut, base+"-page", map[string]string{"x-ms-blob-type": "PageBlob", "x-ms-blob-content-length": "1024"}, nil).Check(t, http.StatusCreated, "", "Create page blob")
			expect("Put Page", send(http.MethodPut, base+"-page?comp=page", map[string]string{"x-ms-page-write": "update", "x-ms-range": "bytes=0-511"}, data), data, old)

			// A Content-MD5 sent is always echoed, and from 2019-02-02 on
			// the CRC64 comes with it (azblob's TestStageBlockMD5WithCRC64Return,
			// recorded against Azure, expects both on Stage Block).
			md, crc := sum(data)
			if old {
				crc = ""
			}
			for _, w := range []struct{ what, url string }{
				{"Put Block", base + "-block?comp=block&blockid=AAAAAA%3D%3D"},
				{"Append Block", base + "-append?comp=appendblock"},
				{"Put Page", base + "-page?comp=page"},
			} {
				r := send(http.MethodPut, w.url, map[string]string{"Content-MD5": md, "x-ms-page-write": "update", "x-ms-range": "bytes=0-511"}, data)
				if !r.Check(t, http.StatusCreated, "", w.what+" with Content-MD5") {
					continue
				}
				if got := r.Header.Get("Content-MD5"); !bytes.Equal([]byte(got), []byte(md)) {
					t.Errorf("%s with Content-MD5: answered %q, want %q", w.what, got, md)
				}
				if got := r.Header.Get("x-ms-content-crc64"); got != crc {
					t.Errorf("%s with Content-MD5: x-ms-content-crc64 %q, want %q", w.what, got, crc)
				}
			}
		})
	}
}

// TestBothDigestsRefused: a write carries one transactional digest. A
// CRC64 together with Content-MD5 answers 400 BothCrc64AndMd5HeaderPresent
// on Put Blob, Put Block, Append Block and Put Page (azure-storage-blob
// for Java's live content-validation tests expect the message; the code
// and the x-ms-blob-content-md5 variant are from the status table of
// Microsoft's storage emulator), and nothing is written.
func TestBothDigestsRefused(t *testing.T) {
	f := newFixture(t)
	sk := f.signer()
	cc := f.createContainer(testkit.Name("bothdigests"), nil)
	data := testkit.RandBytes(5, 512)
	m := md5.Sum(data)
	md := base64.StdEncoding.EncodeToString(m[:])
	crc := base64.StdEncoding.EncodeToString(azbody.CRC64(data))
	send := func(method, u string, hdr map[string]string, body []byte) testkit.Response {
		t.Helper()
		return sk.Send(t, testkit.Request{Method: method, URL: u, Header: hdr, Body: body})
	}
	base := cc.URL() + "/b"
	send(http.MethodPut, base+"-append", map[string]string{"x-ms-blob-type": "AppendBlob"}, nil).Check(t, http.StatusCreated, "", "create append blob")
	send(http.MethodPut, base+"-page", map[string]string{"x-ms-blob-type": "PageBlob", "x-ms-blob-content-length": "512"}, nil).Check(t, http.StatusCreated, "", "create page blob")
	for _, w := range []struct {
		what, url string
		hdr       map[string]string
	}{
		{"Put Blob", base + "-block", map[string]string{"x-ms-blob-type": "BlockBlob"}},
		{"Put Block", base + "-staged?comp=block&blockid=AAAAAA%3D%3D", nil},
		{"Append Block", base + "-append?comp=appendblock", nil},
		{"Put Page", base + "-page?comp=page", map[string]string{"x-ms-page-write": "update", "x-ms-range": "bytes=0-511"}},
	} {
		hdr := map[string]string{"Content-MD5": md, "x-ms-content-crc64": crc}
		for k, v := range w.hdr {
			hdr[k] = v
		}
		send(http.MethodPut, w.url, hdr, data).Check(t, http.StatusBadRequest, "BothCrc64AndMd5HeaderPresent", w.what+" with Content-MD5 and x-ms-content-crc64")
	}
	send(http.MethodHead, base+"-block", nil, nil).Check(t, http.StatusNotFound, "BlobNotFound", "the refused Put Blob wrote nothing")
	send(http.MethodPut, base+"-block", map[string]string{"x-ms-blob-type": "BlockBlob", "x-ms-blob-content-md5": md, "x-ms-content-crc64": crc}, data).
		Check(t, http.StatusBadRequest, "BothCrc64AndMsMd5HeaderPresent", "Put Blob with x-ms-blob-content-md5 and x-ms-content-crc64")
}
