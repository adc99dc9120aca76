package filesdk_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"

	filestore "github.com/cerulean-db/cerulean/internal/file"
)

// TestHandlesMeetRenameCopyAndProperties: Rename, Copy File and Set File
// Properties take part in SMB sharing like the other FileREST
// operations — a rename needs its source's handles to share delete and
// carries them along, a copy reads its source, Set Properties writes —
// and the ReadOnly attribute can be cleared by Set File Properties, while
// a resize of a read-only file is refused.
func TestHandlesMeetRenameCopyAndProperties(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "handleops")
	root := sc.NewRootDirectoryClient()
	svc := smb(f.env)
	open := func(path string, access, share filestore.Access) *filestore.Handle {
		t.Helper()
		h, err := svc.OpenHandle(ctx, filestore.Ref{Account: f.env.Account, Share: "handleops", Path: path}, filestore.HandleOptions{Access: access, ShareAccess: share})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	closeHandle := func(h *filestore.Handle) {
		t.Helper()
		if err := svc.CloseHandle(ctx, filestore.HandleRef{Account: f.env.Account, Share: "handleops", FileID: h.FileID, HandleID: h.ID}); err != nil {
			t.Fatal(err)
		}
	}

	src := root.NewFileClient("src")
	writeFile(t, src, 4, 0, []byte("data"))

	// Rename: a handle not sharing delete refuses it; one sharing
	// everything follows the file to its new name.
	h := open("src", rd, rd|wr)
	_, err := src.Rename(ctx, "moved", nil)
	wantStatus(t, err, http.StatusConflict, "SharingViolation")
	closeHandle(h)
	hm := open("src", rd, all)
	if _, err := src.Rename(ctx, "moved", nil); err != nil {
		t.Fatal(err)
	}
	moved := root.NewFileClient("moved")
	l, err := moved.ListHandles(ctx, nil)
	if err != nil || len(l.Handles) != 1 || *l.Handles[0].Path != "moved" {
		t.Fatalf("handles after the rename: %+v %v", l, err)
	}

	closeHandle(hm)

	// Copy File reads its source: a handle denying read refuses it.
	hw := open("moved", wr, wr|del)
	dst := root.NewFileClient("dst")
	_, err = dst.StartCopyFromURL(ctx, moved.URL(), nil)
	wantStatus(t, err, http.StatusConflict, "SharingViolation")
	closeHandle(hw)
	if _, err := dst.StartCopyFromURL(ctx, moved.URL(), nil); err != nil {
		t.Fatal(err)
	}

	// Set File Properties writes: a handle denying write refuses it.
	hr := open("dst", rd, rd)
	_, err = dst.SetHTTPHeaders(ctx, &file.SetHTTPHeadersOptions{HTTPHeaders: &file.HTTPHeaders{ContentType: to.Ptr("text/plain")}})
	wantStatus(t, err, http.StatusConflict, "SharingViolation")
	closeHandle(hr)

	// ReadOnly: set and cleared by Set File Properties; a resize while it
	// is set is a write and is refused.
	readOnly := &file.SMBProperties{Attributes: &file.NTFSFileAttributes{ReadOnly: true}}
	if _, err := dst.SetHTTPHeaders(ctx, &file.SetHTTPHeadersOptions{SMBProperties: readOnly}); err != nil {
		t.Fatal(err)
	}
	_, err = dst.Resize(ctx, 10, nil)
	wantStatus(t, err, http.StatusPreconditionFailed, "ReadOnlyAttribute")
	_, err = dst.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader([]byte("x"))), nil)
	wantStatus(t, err, http.StatusPreconditionFailed, "ReadOnlyAttribute")
	if _, err := dst.SetHTTPHeaders(ctx, &file.SetHTTPHeadersOptions{SMBProperties: &file.SMBProperties{Attributes: &file.NTFSFileAttributes{None: true}}}); err != nil {
		t.Fatalf("clear ReadOnly: %v", err)
	}
	upload(t, dst, 0, []byte("x"))
}
