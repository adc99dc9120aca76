package filesdk_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// upload writes data at offset of fc.
func upload(t *testing.T, fc *file.Client, offset int64, data []byte) {
	t.Helper()
	if _, err := fc.UploadRange(t.Context(), offset, streaming.NopCloser(bytes.NewReader(data)), nil); err != nil {
		t.Fatal(err)
	}
}

// TestSetFileProperties: content headers are replaced (absent ones
// cleared), SMB values are set or preserved, and every change is a new
// ETag.
func TestSetFileProperties(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "props")
	fc := sc.NewRootDirectoryClient().NewFileClient("p.txt")
	cr, err := fc.Create(ctx, 100, &file.CreateOptions{HTTPHeaders: &file.HTTPHeaders{ContentType: to.Ptr("text/plain"), ContentLanguage: to.Ptr("en")}})
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2021, 5, 6, 7, 8, 9, 100, time.UTC)
	sr, err := fc.SetHTTPHeaders(ctx, &file.SetHTTPHeadersOptions{
		HTTPHeaders:   &file.HTTPHeaders{ContentType: to.Ptr("application/json"), CacheControl: to.Ptr("no-cache")},
		SMBProperties: &file.SMBProperties{Attributes: &file.NTFSFileAttributes{Hidden: true, Archive: true}, CreationTime: &created},
	})
	if err != nil {
		t.Fatal(err)
	}
	if *sr.ETag == *cr.ETag || *sr.FileAttributes != "Hidden | Archive" || !sr.FileCreationTime.Equal(created) {
		t.Errorf("set answered %s %q %v", *sr.ETag, *sr.FileAttributes, sr.FileCreationTime)
	}
	if !sr.FileLastWriteTime.Equal(*cr.FileLastWriteTime) {
		t.Errorf("last write time %v not preserved (was %v)", sr.FileLastWriteTime, cr.FileLastWriteTime)
	}
	p, err := fc.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *p.ContentType != "application/json" || *p.CacheControl != "no-cache" || p.ContentLanguage != nil || *p.ContentLength != 100 {
		t.Errorf("properties %q %q %v %d", *p.ContentType, *p.CacheControl, p.ContentLanguage, *p.ContentLength)
	}
	if *p.ETag != *sr.ETag || *p.FileAttributes != "Hidden | Archive" {
		t.Errorf("get %s %q", *p.ETag, *p.FileAttributes)
	}

	// Setting nothing preserves the SMB values and clears the headers.
	sr2, err := fc.SetHTTPHeaders(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *sr2.ETag == *sr.ETag || *sr2.FileAttributes != "Hidden | Archive" || !sr2.FileCreationTime.Equal(created) {
		t.Errorf("empty set: %s %q %v", *sr2.ETag, *sr2.FileAttributes, sr2.FileCreationTime)
	}
	if p, err = fc.GetProperties(ctx, nil); err != nil || *p.ContentType != "application/octet-stream" || p.CacheControl != nil {
		t.Errorf("headers not cleared: %v %v", p.ContentType, err)
	}

	_, err = sc.NewRootDirectoryClient().NewFileClient("missing").SetHTTPHeaders(ctx, nil)
	wantCode(t, err, fileerror.ResourceNotFound)
	bad := f.fileWith(t, "props", "p.txt", exactHeader{"x-ms-file-creation-time", "yesterday"})
	_, err = bad.SetHTTPHeaders(ctx, nil)
	wantCode(t, err, fileerror.InvalidHeaderValue)
	bad = f.fileWith(t, "props", "p.txt", exactHeader{"x-ms-file-attributes", "Directory"})
	_, err = bad.SetHTTPHeaders(ctx, nil)
	wantCode(t, err, fileerror.InvalidHeaderValue)
}

// TestResize: shrinking cuts the content beyond the new size, growing
// adds zeros that cost nothing.
func TestResize(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "resize")
	fc := sc.NewRootDirectoryClient().NewFileClient("r.bin")
	createFile(t, fc, 8192)
	head, tail := bytes.Repeat([]byte("h"), 1024), bytes.Repeat([]byte("t"), 1024)
	upload(t, fc, 1024, head) // [1024, 2048)
	upload(t, fc, 4096, tail) // [4096, 5120)
	if _, err := fc.Resize(ctx, 1536, nil); err != nil {
		t.Fatal(err)
	}
	rl, err := fc.GetRangeList(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rl.Ranges) != 1 || *rl.Ranges[0].Start != 1024 || *rl.Ranges[0].End != 1535 || *rl.FileContentLength != 1536 {
		t.Fatalf("ranges after shrink %+v size %d", rl.Ranges, *rl.FileContentLength)
	}
	if _, err := fc.Resize(ctx, 1<<30, nil); err != nil {
		t.Fatal(err)
	}
	got := download(t, fc, file.HTTPRange{Offset: 1000, Count: 5000})
	want := make([]byte, 5000)
	copy(want[24:], head[:512])
	if !bytes.Equal(got, want) {
		t.Error("grown file does not read the kept bytes and zeros")
	}
	// A size no file may have is OutOfRangeInput (the azfile recording
	// TestFileResizeInvalidSizeNegative: "The file size exceeds the
	// maximum permissible limit.").
	_, err = fc.Resize(ctx, -1, nil)
	wantCode(t, err, fileerror.OutOfRangeInput)
	_, err = fc.Resize(ctx, 5<<40, nil)
	wantCode(t, err, fileerror.OutOfRangeInput)
	if _, err := fc.Resize(ctx, 0, nil); err != nil {
		t.Fatal(err)
	}
	if rl, err = fc.GetRangeList(ctx, nil); err != nil || len(rl.Ranges) != 0 {
		t.Errorf("ranges of an empty file: %+v %v", rl.Ranges, err)
	}
}

// TestSetPropertiesLease: a leased file's properties change only with
// its lease ID.
func TestSetPropertiesLease(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "propslease")
	fc := sc.NewRootDirectoryClient().NewFileClient("l.bin")
	createFile(t, fc, 10)
	acquireLease(t, fc, leaseA)
	_, err := fc.Resize(ctx, 20, nil)
	wantStatus(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	_, err = fc.SetHTTPHeaders(ctx, &file.SetHTTPHeadersOptions{LeaseAccessConditions: withLease(leaseB)})
	wantStatus(t, err, http.StatusPreconditionFailed, "LeaseIdMismatchWithFileOperation")
	if _, err := fc.Resize(ctx, 20, &file.ResizeOptions{LeaseAccessConditions: withLease(leaseA)}); err != nil {
		t.Fatal(err)
	}
}

// TestSetDirectoryProperties: attributes and times of a directory, the
// root included, change; the Directory attribute stays.
func TestSetDirectoryProperties(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "dirprops")
	dc := sc.NewDirectoryClient("d")
	cr, err := dc.Create(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	written := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)
	sr, err := dc.SetProperties(ctx, &directory.SetPropertiesOptions{FileSMBProperties: &file.SMBProperties{
		Attributes: &file.NTFSFileAttributes{Hidden: true}, LastWriteTime: &written}})
	if err != nil {
		t.Fatal(err)
	}
	if *sr.ETag == *cr.ETag || *sr.FileAttributes != "Hidden | Directory" || !sr.FileLastWriteTime.Equal(written) || !sr.FileCreationTime.Equal(*cr.FileCreationTime) {
		t.Errorf("set answered %q %v %v", *sr.FileAttributes, sr.FileLastWriteTime, sr.FileCreationTime)
	}
	p, err := dc.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *p.FileAttributes != "Hidden | Directory" || !p.FileLastWriteTime.Equal(written) {
		t.Errorf("get %q %v", *p.FileAttributes, p.FileLastWriteTime)
	}
	root := sc.NewRootDirectoryClient()
	if _, err := root.SetProperties(ctx, &directory.SetPropertiesOptions{FileSMBProperties: &file.SMBProperties{LastWriteTime: &written}}); err != nil {
		t.Fatal(err)
	}
	if p, err := root.GetProperties(ctx, nil); err != nil || !p.FileLastWriteTime.Equal(written) {
		t.Errorf("root after set: %v %v", p.FileLastWriteTime, err)
	}
	_, err = sc.NewDirectoryClient("none").SetProperties(ctx, nil)
	wantCode(t, err, fileerror.ResourceNotFound)
}

// TestLastWrittenMode: a range write with x-ms-file-last-write-time:
// preserve keeps the file's last write time; by default it takes the
// write's time.
func TestLastWrittenMode(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	f := newFixture(t, servertest.WithClock(clock.Now))
	ctx := t.Context()
	sc := f.share(t, "lwt")
	root := sc.NewRootDirectoryClient()
	src, fc := root.NewFileClient("src"), root.NewFileClient("f")
	for _, c := range []*file.Client{src, fc} {
		createFile(t, c, 10)
	}
	created := clock.Now()
	clock.Advance(time.Hour)
	ur, err := fc.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader([]byte("ab"))), &file.UploadRangeOptions{LastWrittenMode: to.Ptr(file.LastWrittenModePreserve)})
	if err != nil {
		t.Fatal(err)
	}
	if !ur.FileLastWriteTime.Equal(created) {
		t.Errorf("preserve: last write %v, want %v", ur.FileLastWriteTime, created)
	}
	fr, err := fc.UploadRangeFromURL(ctx, src.URL(), 0, 2, 2, &file.UploadRangeFromURLOptions{LastWrittenMode: to.Ptr(file.LastWrittenModePreserve)})
	if err != nil {
		t.Fatal(err)
	}
	if !fr.FileLastWriteTime.Equal(created) {
		t.Errorf("preserve from URL: last write %v, want %v", fr.FileLastWriteTime, created)
	}
	if ur, err = fc.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader([]byte("ab"))), nil); err != nil || !ur.FileLastWriteTime.Equal(clock.Now()) {
		t.Errorf("default: last write %v, want %v (%v)", ur.FileLastWriteTime, clock.Now(), err)
	}
	bad := f.fileWith(t, "lwt", "f", withHeader{"x-ms-file-last-write-time", "later"})
	_, err = bad.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader([]byte("ab"))), nil)
	wantCode(t, err, fileerror.InvalidHeaderValue)
}
