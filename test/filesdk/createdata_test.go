package filesdk_test

import (
	"bytes"
	"crypto/md5"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
)

// TestCreateFileWithData: from version 2026-02-06 Create File carries the
// file's first bytes, up to 4 MiB, checked against Content-MD5 (the azfile
// recordings TestFileCreateData, TestFileCreateDataIncorrectMD5).
func TestCreateFileWithData(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	root := f.share(t, "createdata").NewRootDirectoryClient()
	data := make([]byte, 1024)
	for i := range data {
		data[i] = byte(rand.IntN(256))
	}
	body := func(b []byte) *file.CreateOptions {
		return &file.CreateOptions{OptionalBody: streaming.NopCloser(bytes.NewReader(b)), ContentLength: to.Ptr(int64(len(b)))}
	}

	fc := root.NewFileClient("withdata")
	cr, err := fc.Create(ctx, 2048, body(data))
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum(data)
	if !bytes.Equal(cr.ContentMD5, sum[:]) || !cr.FileLastWriteTime.Equal(*cr.FileCreationTime) {
		t.Errorf("create answered MD5 %x (want %x), last write %v, created %v", cr.ContentMD5, sum, cr.FileLastWriteTime, cr.FileCreationTime)
	}
	got := download(t, fc, file.HTTPRange{})
	if len(got) != 2048 || !bytes.Equal(got[:1024], data) || !bytes.Equal(got[1024:], make([]byte, 1024)) {
		t.Errorf("file reads %d bytes, its first 1024 equal to the body: %v", len(got), bytes.Equal(got[:min(len(got), 1024)], data))
	}
	p, err := fc.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.ContentMD5 != nil || *p.ETag != *cr.ETag {
		t.Errorf("properties: MD5 %x, ETag %s (create answered %s)", p.ContentMD5, *p.ETag, *cr.ETag)
	}

	wrong := body(data)
	wrong.ContentMD5 = make([]byte, md5.Size)
	_, err = root.NewFileClient("badmd5").Create(ctx, 1024, wrong)
	wantCode(t, err, fileerror.MD5Mismatch)
	_, err = root.NewFileClient("badmd5").GetProperties(ctx, nil)
	wantCode(t, err, fileerror.ResourceNotFound)

	right := body(data)
	right.ContentMD5 = sum[:]
	if _, err := root.NewFileClient("goodmd5").Create(ctx, 1024, right); err != nil {
		t.Fatal(err)
	}

	_, err = root.NewFileClient("big").Create(ctx, 8<<20, body(make([]byte, 4<<20+1)))
	wantStatus(t, err, http.StatusRequestEntityTooLarge, "RequestBodyTooLarge")
	if _, err := root.NewFileClient("max").Create(ctx, 4<<20, body(make([]byte, 4<<20))); err != nil {
		t.Fatal(err)
	}
}
