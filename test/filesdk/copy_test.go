package filesdk_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// azureCRC64 is Azure Storage's CRC64, computed here independently of the
// server.
func azureCRC64(b []byte) []byte {
	return binary.LittleEndian.AppendUint64(nil, testkit.AzureCRC64(b))
}

// patterned returns n bytes that differ from offset to offset.
func patterned(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + seed
	}
	return b
}

// TestCopyFile: a copy carries the source's content, content headers and
// metadata, completes before it answers and reports itself on Get File
// Properties until the destination is written.
func TestCopyFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "copy")
	root := sc.NewRootDirectoryClient()
	src := root.NewFileClient("src.bin")
	if _, err := src.Create(ctx, 4096, &file.CreateOptions{HTTPHeaders: &file.HTTPHeaders{ContentType: to.Ptr("image/png")},
		Metadata: map[string]*string{"k": to.Ptr("v")}}); err != nil {
		t.Fatal(err)
	}
	data := patterned(1000, 1)
	upload(t, src, 100, data)
	upload(t, src, 3000, data[:50])
	dst := root.NewFileClient("dst.bin")
	cr, err := dst.StartCopyFromURL(ctx, src.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if *cr.CopyStatus != file.CopyStatusTypeSuccess || *cr.CopyID == "" {
		t.Fatalf("copy answered %v %v", cr.CopyStatus, cr.CopyID)
	}
	if got, want := download(t, dst, file.HTTPRange{}), download(t, src, file.HTTPRange{}); !bytes.Equal(got, want) {
		t.Error("copy differs from its source")
	}
	p, err := dst.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *p.CopyID != *cr.CopyID || *p.CopyStatus != file.CopyStatusTypeSuccess || *p.CopySource != src.URL() || *p.CopyProgress != "4096/4096" || p.CopyCompletionTime == nil {
		t.Errorf("copy properties %v %v %v %v", *p.CopyID, *p.CopyStatus, *p.CopySource, *p.CopyProgress)
	}
	if *p.ContentType != "image/png" || meta(p.Metadata, "k") != "v" {
		t.Errorf("copy headers %q %v", *p.ContentType, p.Metadata)
	}
	rl, err := dst.GetRangeList(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rl.Ranges) != 2 || *rl.Ranges[0].Start != 0 || *rl.Ranges[1].End != 3071 { // whole 512-byte pages
		t.Errorf("copied ranges %+v", rl.Ranges)
	}
	// A copy that has finished has nothing to abort: 409
	// NoPendingCopyOperation, whatever the GUID (the Python SDK's
	// recording test_file.py::test_abort_copy_file_with_synchronous_copy_fails,
	// which aborts a copy that answered x-ms-copy-status: success).
	_, err = dst.AbortCopy(ctx, *cr.CopyID, nil)
	wantStatus(t, err, http.StatusConflict, "NoPendingCopyOperation")
	_, err = src.AbortCopy(ctx, *cr.CopyID, nil)
	wantStatus(t, err, http.StatusConflict, "NoPendingCopyOperation")
	_, err = dst.AbortCopy(ctx, "ca761232-ed42-11ce-bacd-00aa0057b223", nil)
	wantStatus(t, err, http.StatusConflict, "NoPendingCopyOperation")
	// A copy ID that is no GUID is refused as such (the azfile recording
	// TestFileAbortCopyNoCopyStarted).
	_, err = dst.AbortCopy(ctx, "other", nil)
	wantStatus(t, err, http.StatusBadRequest, "InvalidQueryParameterValue")

	// Metadata given replaces the source's; a write ends the copy report.
	if _, err := dst.StartCopyFromURL(ctx, src.URL(), &file.StartCopyFromURLOptions{Metadata: map[string]*string{"own": to.Ptr("x")}}); err != nil {
		t.Fatal(err)
	}
	upload(t, dst, 0, []byte("w"))
	if p, err = dst.GetProperties(ctx, nil); err != nil || p.CopyID != nil || meta(p.Metadata, "own") != "x" || meta(p.Metadata, "k") != "" {
		t.Errorf("after a write: copy %v metadata %v err %v", p.CopyID, p.Metadata, err)
	}

	_, err = dst.StartCopyFromURL(ctx, root.NewFileClient("missing").URL(), nil)
	wantCode(t, err, fileerror.ResourceNotFound)
	_, err = sc.NewDirectoryClient("nodir").NewFileClient("x").StartCopyFromURL(ctx, src.URL(), nil)
	wantCode(t, err, fileerror.ParentNotFound)
	_, err = dst.StartCopyFromURL(ctx, "http://elsewhere.example/acct/share/file", nil)
	wantStatus(t, err, http.StatusNotImplemented, "NotImplemented")
	_, err = dst.StartCopyFromURL(ctx, "not a url %", nil)
	wantCode(t, err, fileerror.InvalidHeaderValue)
}

// TestCopyLargeFile: a copy larger than one transaction holds is written
// in several and still reads back whole.
func TestCopyLargeFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "copylarge")
	root := sc.NewRootDirectoryClient()
	src := root.NewFileClient("big")
	const size = 12 << 20
	createFile(t, src, size)
	for i, off := range []int64{0, 4 << 20, 8 << 20} {
		upload(t, src, off, patterned(3<<20+12345, byte(i)))
	}
	dst := root.NewFileClient("big-copy")
	if _, err := dst.StartCopyFromURL(ctx, src.URL(), nil); err != nil {
		t.Fatal(err)
	}
	if got, want := download(t, dst, file.HTTPRange{}), download(t, src, file.HTTPRange{}); !bytes.Equal(got, want) {
		t.Error("large copy differs from its source")
	}
	// A copy onto itself keeps the content.
	before := download(t, src, file.HTTPRange{})
	if _, err := src.StartCopyFromURL(ctx, src.URL(), nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(download(t, src, file.HTTPRange{}), before) {
		t.Error("a copy onto itself changed the content")
	}
}

// TestCopySMB: attributes and times come from the source, or are given;
// a read-only destination is replaced only when told to ignore that.
func TestCopySMB(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "copysmb")
	root := sc.NewRootDirectoryClient()
	created := time.Date(2018, 3, 4, 5, 6, 7, 0, time.UTC)
	src := root.NewFileClient("src")
	if _, err := src.Create(ctx, 10, &file.CreateOptions{SMBProperties: &file.SMBProperties{
		Attributes: &file.NTFSFileAttributes{Hidden: true}, CreationTime: &created}}); err != nil {
		t.Fatal(err)
	}
	dst := root.NewFileClient("dst")
	if _, err := dst.StartCopyFromURL(ctx, src.URL(), &file.StartCopyFromURLOptions{CopyFileSMBInfo: &file.CopyFileSMBInfo{
		Attributes: file.SourceCopyFileAttributes{}, CreationTime: file.SourceCopyFileCreationTime{}}}); err != nil {
		t.Fatal(err)
	}
	p, err := dst.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The source was created Hidden, and a new file gets Archive too.
	if *p.FileAttributes != "Hidden | Archive" || !p.FileCreationTime.Equal(created) {
		t.Errorf("from source: %q %v", *p.FileAttributes, p.FileCreationTime)
	}
	ro := root.NewFileClient("ro")
	if _, err := ro.Create(ctx, 1, &file.CreateOptions{SMBProperties: &file.SMBProperties{Attributes: &file.NTFSFileAttributes{ReadOnly: true}}}); err != nil {
		t.Fatal(err)
	}
	_, err = ro.StartCopyFromURL(ctx, src.URL(), nil)
	wantStatus(t, err, http.StatusPreconditionFailed, "ReadOnlyAttribute")
	if _, err := ro.StartCopyFromURL(ctx, src.URL(), &file.StartCopyFromURLOptions{CopyFileSMBInfo: &file.CopyFileSMBInfo{
		IgnoreReadOnly: to.Ptr(true), Attributes: file.DestinationCopyFileAttributes{Temporary: true}, SetArchiveAttribute: to.Ptr(true)}}); err != nil {
		t.Fatal(err)
	}
	if p, err := ro.GetProperties(ctx, nil); err != nil || *p.FileAttributes != "Archive | Temporary" {
		t.Errorf("given attributes: %v %v", p.FileAttributes, err)
	}
	_, err = ro.StartCopyFromURL(ctx, src.URL(), &file.StartCopyFromURLOptions{CopyFileSMBInfo: &file.CopyFileSMBInfo{
		PermissionCopyMode: to.Ptr(file.PermissionCopyModeTypeOverride)}})
	wantCode(t, err, fileerror.MissingRequiredHeader)
}

// TestCopySourceAuth: a source is readable through the request's Shared
// Key, a SAS on the source URL or the request's own SAS when it covers
// the source; otherwise the copy is refused.
func TestCopySourceAuth(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "copyauth")
	root := sc.NewRootDirectoryClient()
	src := root.NewFileClient("src")
	writeFile(t, src, 3, 0, []byte("sas"))
	dst := root.NewFileClient("dst")
	createFile(t, dst, 0)
	expiry := time.Now().Add(time.Hour)
	// A SAS for the destination file alone does not cover the source.
	dstSAS, err := dst.GetSASURL(sas.FilePermissions{Read: true, Write: true, Create: true}, expiry, nil)
	if err != nil {
		t.Fatal(err)
	}
	viaSAS, err := file.NewClientWithNoCredential(dstSAS, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = viaSAS.StartCopyFromURL(ctx, src.URL(), nil)
	wantStatus(t, err, http.StatusForbidden, "CannotVerifyCopySource")
	srcSAS, err := src.GetSASURL(sas.FilePermissions{Read: true}, expiry, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := viaSAS.StartCopyFromURL(ctx, srcSAS, nil); err != nil {
		t.Fatal(err)
	}
	if got := download(t, dst, file.HTTPRange{}); string(got) != "sas" {
		t.Errorf("copied through a source SAS: %q", got)
	}
	writeOnly, err := src.GetSASURL(sas.FilePermissions{Write: true}, expiry, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = viaSAS.StartCopyFromURL(ctx, writeOnly, nil)
	wantStatus(t, err, http.StatusForbidden, "CannotVerifyCopySource")

	// An account SAS on the request covers a source URL that has none.
	acctSAS, err := f.svc.GetSASURL(sas.AccountResourceTypes{Container: true, Object: true},
		sas.AccountPermissions{Read: true, Write: true, Create: true}, expiry, nil)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.NewClientWithNoCredential(acctSAS, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.NewShareClient("copyauth").NewRootDirectoryClient().NewFileClient("dst2").StartCopyFromURL(ctx, src.URL(), nil); err != nil {
		t.Fatal(err)
	}
}

// TestPutRangeFromURL: a range of another file is written into the
// destination, its CRC64 verified when the client sends one.
func TestPutRangeFromURL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "rangeurl")
	root := sc.NewRootDirectoryClient()
	src, dst := root.NewFileClient("src"), root.NewFileClient("dst")
	createFile(t, src, 2048)
	data := patterned(1024, 3)
	upload(t, src, 512, data)
	createFile(t, dst, 4096)
	// Bytes [256, 1280) of the source: 256 zeros, then 768 written bytes.
	want := append(make([]byte, 256), data[:768]...)
	r, err := dst.UploadRangeFromURL(ctx, src.URL(), 256, 1000, 1024, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.XMSContentCRC64, azureCRC64(want)) {
		t.Errorf("crc64 answered %x", r.XMSContentCRC64)
	}
	if got := download(t, dst, file.HTTPRange{Offset: 1000, Count: 1024}); !bytes.Equal(got, want) {
		t.Error("range copied wrongly")
	}
	crc := binary.LittleEndian.Uint64(azureCRC64(want))
	if _, err := dst.UploadRangeFromURL(ctx, src.URL(), 256, 0, 1024, &file.UploadRangeFromURLOptions{
		SourceContentValidation: file.SourceContentValidationTypeCRC64(crc)}); err != nil {
		t.Fatal(err)
	}
	_, err = dst.UploadRangeFromURL(ctx, src.URL(), 256, 0, 1024, &file.UploadRangeFromURLOptions{
		SourceContentValidation: file.SourceContentValidationTypeCRC64(crc + 1)})
	wantStatus(t, err, http.StatusBadRequest, "Crc64Mismatch")
	_, err = dst.UploadRangeFromURL(ctx, src.URL(), 256, 0, 1024, &file.UploadRangeFromURLOptions{
		SourceModifiedAccessConditions: &file.SourceModifiedAccessConditions{SourceIfNoneMatchCRC64: azureCRC64(want)}})
	wantStatus(t, err, http.StatusPreconditionFailed, "SourceConditionNotMet")
	_, err = dst.UploadRangeFromURL(ctx, src.URL(), 2000, 0, 100, nil)
	wantCode(t, err, fileerror.InvalidRange)
	_, err = dst.UploadRangeFromURL(ctx, src.URL(), 0, 4000, 200, nil)
	wantCode(t, err, fileerror.InvalidRange)
	_, err = dst.UploadRangeFromURL(ctx, root.NewFileClient("none").URL(), 0, 0, 10, nil)
	wantCode(t, err, fileerror.ResourceNotFound)
}

// captureCRC64 records the x-ms-content-crc64 of each answer.
type captureCRC64 struct{ got *string }

func (p captureCRC64) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if err == nil {
		*p.got = resp.Header.Get("x-ms-content-crc64")
	}
	return resp, err
}

// TestPutRangeCRC64: Put Range verifies x-ms-content-crc64 and echoes it;
// the SDK cannot send one, so a policy adds it.
func TestPutRangeCRC64(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "crc")
	fc := sc.NewRootDirectoryClient().NewFileClient("c")
	createFile(t, fc, 100)
	data := []byte("crc64 checked")
	sum := base64.StdEncoding.EncodeToString(azureCRC64(data))
	var echoed string
	good := f.fileWith(t, "crc", "c", withHeader{"x-ms-content-crc64", sum}, captureCRC64{&echoed})
	if _, err := good.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader(data)), nil); err != nil {
		t.Fatal(err)
	}
	if echoed != sum {
		t.Errorf("echoed %q, want %q", echoed, sum)
	}
	wrong := f.fileWith(t, "crc", "c", withHeader{"x-ms-content-crc64", base64.StdEncoding.EncodeToString(azureCRC64([]byte("other")))})
	_, err := wrong.UploadRange(ctx, 50, streaming.NopCloser(bytes.NewReader(data)), nil)
	wantStatus(t, err, http.StatusBadRequest, "Crc64Mismatch")
	malformed := f.fileWith(t, "crc", "c", withHeader{"x-ms-content-crc64", "short"})
	_, err = malformed.UploadRange(ctx, 50, streaming.NopCloser(bytes.NewReader(data)), nil)
	wantCode(t, err, fileerror.InvalidHeaderValue)
	if got := download(t, fc, file.HTTPRange{Offset: 50, Count: 13}); !bytes.Equal(got, make([]byte, 13)) {
		t.Error("a refused Put Range wrote")
	}
}
