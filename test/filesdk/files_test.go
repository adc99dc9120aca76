// Package filesdk_test holds black-box conformance tests that drive a
// cerulean server only through the official Azure Files SDK for Go
// (azfile), falling back to raw headers only where the SDK cannot express
// a request (If-Match).
package filesdk_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

type fixture struct {
	env  *servertest.Env
	cred *service.SharedKeyCredential
	svc  *service.Client
}

func newFixture(t *testing.T, opts ...servertest.Option) *fixture {
	t.Helper()
	env := servertest.Start(t, opts...)
	cred, svc := testkit.FileService(t, env.FileURL, env.Account, env.Key)
	return &fixture{env: env, cred: cred, svc: svc}
}

func (f *fixture) share(t *testing.T, name string) *share.Client {
	t.Helper()
	sc := f.svc.NewShareClient(name)
	if _, err := sc.Create(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	return sc
}

// withHeader is a pipeline policy that adds one header to every request.
type withHeader struct{ name, value string }

func (p withHeader) Do(req *policy.Request) (*http.Response, error) {
	req.Raw().Header.Set(p.name, p.value)
	return req.Next()
}

// fileWith returns a client for path that sends extra per-call policies.
func (f *fixture) fileWith(t *testing.T, shareName, path string, extra ...policy.Policy) *file.Client {
	t.Helper()
	cred, err := file.NewSharedKeyCredential(f.env.Account, f.env.Key)
	if err != nil {
		t.Fatal(err)
	}
	fc, err := file.NewClientWithSharedKeyCredential(f.env.FileURL+shareName+"/"+path, cred,
		&file.ClientOptions{ClientOptions: azcore.ClientOptions{PerCallPolicies: extra}})
	if err != nil {
		t.Fatal(err)
	}
	return fc
}

// meta looks a metadata value up by name: Go's HTTP client canonicalises
// header names, so the SDK reports them capitalised.
func meta(m map[string]*string, name string) string {
	for k, v := range m {
		if strings.EqualFold(k, name) && v != nil {
			return *v
		}
	}
	return ""
}

func wantCode(t *testing.T, err error, code fileerror.Code) {
	t.Helper()
	if !fileerror.HasCode(err, code) {
		t.Fatalf("got %v, want %s", err, code)
	}
}

// createFile creates fc with size bytes (zeros).
func createFile(t *testing.T, fc *file.Client, size int64) {
	t.Helper()
	if _, err := fc.Create(t.Context(), size, nil); err != nil {
		t.Fatal(err)
	}
}

// writeFile writes data at off into fc, creating fc first with size
// bytes unless size is negative.
func writeFile(t *testing.T, fc *file.Client, size int64, off int64, data []byte) {
	t.Helper()
	if size >= 0 {
		createFile(t, fc, size)
	}
	upload(t, fc, off, data)
}

func download(t *testing.T, fc *file.Client, r file.HTTPRange) []byte {
	t.Helper()
	resp, err := fc.DownloadStream(t.Context(), &file.DownloadStreamOptions{Range: r})
	if err != nil {
		t.Fatal(err)
	}
	b := testkit.ReadBody(t, resp.Body)
	return b
}

func TestShares(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.svc.NewShareClient("alpha")
	if _, err := sc.Create(ctx, &share.CreateOptions{Quota: to.Ptr[int32](100), Metadata: map[string]*string{"team": to.Ptr("x")}}); err != nil {
		t.Fatal(err)
	}
	_, err := sc.Create(ctx, nil)
	wantCode(t, err, fileerror.ShareAlreadyExists)
	p, err := sc.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *p.Quota != 100 || meta(p.Metadata, "team") != "x" {
		t.Errorf("properties: quota %d metadata %v", *p.Quota, p.Metadata)
	}
	m, err := sc.SetMetadata(ctx, &share.SetMetadataOptions{Metadata: map[string]*string{"k": to.Ptr("v")}})
	if err != nil {
		t.Fatal(err)
	}
	if *m.ETag == *p.ETag {
		t.Error("Set Metadata kept the ETag")
	}
	if _, err := sc.SetProperties(ctx, &share.SetPropertiesOptions{Quota: to.Ptr[int32](200)}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"beta", "gamma", "other"} {
		f.share(t, n)
	}
	var names []string
	pager := f.svc.NewListSharesPager(&service.ListSharesOptions{Prefix: to.Ptr("a"), Include: service.ListSharesInclude{Metadata: true}, MaxResults: to.Ptr[int32](1)})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range page.Shares {
			names = append(names, *s.Name)
			if *s.Properties.Quota != 200 || meta(s.Metadata, "k") != "v" {
				t.Errorf("listed share %s: quota %d metadata %v", *s.Name, *s.Properties.Quota, s.Metadata)
			}
		}
	}
	if len(names) != 1 || names[0] != "alpha" {
		t.Errorf("prefix listing %v", names)
	}
	names = nil
	pager = f.svc.NewListSharesPager(&service.ListSharesOptions{MaxResults: to.Ptr[int32](2)})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range page.Shares {
			names = append(names, *s.Name)
		}
	}
	if len(names) != 4 {
		t.Errorf("paged listing %v", names)
	}
	if _, err := sc.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err = sc.GetProperties(ctx, nil)
	wantCode(t, err, fileerror.ShareNotFound)
}

func TestDirectories(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "dirs")
	d := sc.NewDirectoryClient("a")
	cr, err := d.Create(ctx, &directory.CreateOptions{Metadata: map[string]*string{"m": to.Ptr("1")}})
	if err != nil {
		t.Fatal(err)
	}
	if cr.ID == nil || *cr.FileAttributes != "Directory" || cr.FileCreationTime == nil || cr.FilePermissionKey == nil {
		t.Errorf("create answer lacks SMB properties: %+v", cr)
	}
	_, err = d.Create(ctx, nil)
	wantCode(t, err, fileerror.ResourceAlreadyExists)
	_, err = sc.NewDirectoryClient("missing/b").Create(ctx, nil)
	wantCode(t, err, fileerror.ParentNotFound)
	p, err := d.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if meta(p.Metadata, "m") != "1" || *p.ID != *cr.ID {
		t.Errorf("properties %+v", p)
	}
	sub := d.NewSubdirectoryClient("sub")
	if _, err := sub.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"f1", "f2", "x1"} {
		if _, err := d.NewFileClient(n).Create(ctx, 5, nil); err != nil {
			t.Fatal(err)
		}
	}
	var dirs, files []string
	pager := d.NewListFilesAndDirectoriesPager(&directory.ListFilesAndDirectoriesOptions{MaxResults: to.Ptr[int32](2),
		Include: directory.ListFilesInclude{Timestamps: true, ETag: true, Attributes: true, PermissionKey: true}})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Segment.Directories {
			dirs = append(dirs, *e.Name)
		}
		for _, e := range page.Segment.Files {
			files = append(files, *e.Name)
			if *e.Properties.ContentLength != 5 || e.Properties.ETag == nil {
				t.Errorf("listed file %+v", e.Properties)
			}
		}
	}
	if len(dirs) != 1 || len(files) != 3 {
		t.Errorf("listing dirs %v files %v", dirs, files)
	}
	pager = d.NewListFilesAndDirectoriesPager(&directory.ListFilesAndDirectoriesOptions{Prefix: to.Ptr("f")})
	page, err := pager.NextPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Segment.Files) != 2 || len(page.Segment.Directories) != 0 {
		t.Errorf("prefix listing %d files %d dirs", len(page.Segment.Files), len(page.Segment.Directories))
	}
	_, err = d.Delete(ctx, nil)
	wantCode(t, err, fileerror.DirectoryNotEmpty)
	if _, err := sub.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	root, err := sc.NewRootDirectoryClient().GetProperties(ctx, nil)
	if err != nil || *root.FileAttributes != "Directory" {
		t.Fatalf("root properties: %v", err)
	}
	_, err = sub.GetProperties(ctx, nil)
	wantCode(t, err, fileerror.ResourceNotFound)
}

func TestFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "files")
	fc := sc.NewRootDirectoryClient().NewFileClient("doc.txt")
	cr, err := fc.Create(ctx, 1024, &file.CreateOptions{
		HTTPHeaders: &file.HTTPHeaders{ContentType: to.Ptr("text/plain")},
		Metadata:    map[string]*string{"a": to.Ptr("b")},
		SMBProperties: &file.SMBProperties{Attributes: &file.NTFSFileAttributes{Hidden: true},
			CreationTime: to.Ptr(time.Date(2020, 1, 2, 3, 4, 5, 600, time.UTC))},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !cr.FileCreationTime.Equal(time.Date(2020, 1, 2, 3, 4, 5, 600, time.UTC)) || *cr.FileAttributes != "Hidden | Archive" && *cr.FileAttributes != "Hidden" {
		t.Errorf("create echoed %v %q", cr.FileCreationTime, *cr.FileAttributes)
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), 32)
	sum := md5.Sum(data)
	ur, err := fc.UploadRange(ctx, 100, streaming.NopCloser(bytes.NewReader(data)), &file.UploadRangeOptions{
		TransactionalValidation: file.TransferValidationTypeMD5(sum[:])})
	if err != nil {
		t.Fatal(err)
	}
	if *ur.ETag == *cr.ETag {
		t.Error("Put Range kept the ETag")
	}
	bad := md5.Sum([]byte("other"))
	_, err = fc.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader(data)), &file.UploadRangeOptions{
		TransactionalValidation: file.TransferValidationTypeMD5(bad[:])})
	wantCode(t, err, fileerror.MD5Mismatch)
	_, err = fc.UploadRange(ctx, 1000, streaming.NopCloser(bytes.NewReader(data)), nil)
	wantCode(t, err, fileerror.InvalidRange)

	whole := download(t, fc, file.HTTPRange{})
	want := make([]byte, 1024)
	copy(want[100:], data)
	if !bytes.Equal(whole, want) {
		t.Error("whole download differs")
	}
	if got := download(t, fc, file.HTTPRange{Offset: 98, Count: 4}); !bytes.Equal(got, []byte{0, 0, '0', '1'}) {
		t.Errorf("ranged download %q", got)
	}
	if _, err := fc.ClearRange(ctx, file.HTTPRange{Offset: 200, Count: 100}, nil); err != nil {
		t.Fatal(err)
	}
	rl, err := fc.GetRangeList(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Ranges are whole 512-byte pages: bytes 100-199 and 300-611 are
	// left in pages 0-511 and 512-1023, which no clear emptied
	// (@azure/storage-file-share's recording getRangeList).
	if len(rl.Ranges) != 1 || *rl.Ranges[0].Start != 0 || *rl.Ranges[0].End != 1023 {
		t.Errorf("ranges %+v", rl.Ranges)
	}
	p, err := fc.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *p.ContentLength != 1024 || *p.ContentType != "text/plain" || meta(p.Metadata, "a") != "b" || p.FileLastWriteTime == nil || p.ID == nil {
		t.Errorf("properties %+v", p)
	}
	if _, err := fc.SetMetadata(ctx, &file.SetMetadataOptions{Metadata: map[string]*string{"c": to.Ptr("d")}}); err != nil {
		t.Fatal(err)
	}
	if p, err = fc.GetProperties(ctx, nil); err != nil || meta(p.Metadata, "a") != "" || meta(p.Metadata, "c") != "d" {
		t.Errorf("metadata after set: %v %v", p.Metadata, err)
	}
	_, err = sc.NewDirectoryClient("nodir").NewFileClient("x").Create(ctx, 1, nil)
	wantCode(t, err, fileerror.ParentNotFound)
	if _, err := fc.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err = fc.GetProperties(ctx, nil)
	wantCode(t, err, fileerror.ResourceNotFound)
}

// TestSparseTerabyte: a 1 TiB file costs nothing until written; two
// ranges far apart read back, zeros elsewhere, and List Ranges names
// exactly them.
func TestSparseTerabyte(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	fc := f.share(t, "sparse").NewRootDirectoryClient().NewFileClient("big")
	const size = 1 << 40
	createFile(t, fc, size)
	a, b := bytes.Repeat([]byte("A"), 4<<20), bytes.Repeat([]byte("B"), 1000)
	if _, err := fc.UploadRange(ctx, 512<<30, streaming.NopCloser(bytes.NewReader(a)), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := fc.UploadRange(ctx, size-1000, streaming.NopCloser(bytes.NewReader(b)), nil); err != nil {
		t.Fatal(err)
	}
	got := download(t, fc, file.HTTPRange{Offset: 512<<30 - 10, Count: 20})
	if !bytes.Equal(got, append(make([]byte, 10), bytes.Repeat([]byte("A"), 10)...)) {
		t.Errorf("around the first range: %q", got)
	}
	if got := download(t, fc, file.HTTPRange{Offset: size - 1010, Count: 1010}); !bytes.Equal(got, append(make([]byte, 10), b...)) {
		t.Error("the last range differs")
	}
	if got := download(t, fc, file.HTTPRange{Offset: 5 << 30, Count: 1 << 20}); !bytes.Equal(got, make([]byte, 1<<20)) {
		t.Error("an unwritten region is not zeros")
	}
	rl, err := fc.GetRangeList(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *rl.FileContentLength != size || len(rl.Ranges) != 2 ||
		*rl.Ranges[0].Start != 512<<30 || *rl.Ranges[0].End != 512<<30+4<<20-1 ||
		*rl.Ranges[1].Start != size-1024 || *rl.Ranges[1].End != size-1 { // the last 1000 bytes' two pages
		t.Errorf("ranges %+v", rl.Ranges)
	}
	_, err = fc.Create(ctx, 4<<40+1, nil)
	if err == nil {
		t.Error("a file over 4 TiB was created")
	}
}

// TestLastWriterWins: two writers racing on one range without conditions
// both succeed, and the file holds exactly one of their writes.
func TestLastWriterWins(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fc := f.share(t, "lww").NewRootDirectoryClient().NewFileClient("f")
	createFile(t, fc, 1<<16)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, c := range []byte("xy") {
		wg.Go(func() {
			_, err := fc.UploadRange(context.Background(), 0, streaming.NopCloser(bytes.NewReader(bytes.Repeat([]byte{c}, 1<<16))), nil)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := download(t, fc, file.HTTPRange{})
	if !bytes.Equal(got, bytes.Repeat([]byte("x"), 1<<16)) && !bytes.Equal(got, bytes.Repeat([]byte("y"), 1<<16)) {
		t.Error("the file mixes the two writes")
	}
}

// TestIfMatch: a write naming a stale ETag is refused with 412 and changes
// nothing; one naming the current ETag goes through.
func TestIfMatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	f.share(t, "cond")
	fc := f.fileWith(t, "cond", "f")
	cr, err := fc.Create(ctx, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	stale := f.fileWith(t, "cond", "f", withHeader{"If-Match", string(*cr.ETag)})
	if _, err := stale.SetMetadata(ctx, &file.SetMetadataOptions{Metadata: map[string]*string{"v": to.Ptr("1")}}); err != nil {
		t.Fatal(err)
	}
	_, err = stale.SetMetadata(ctx, &file.SetMetadataOptions{Metadata: map[string]*string{"v": to.Ptr("2")}})
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusPreconditionFailed || re.ErrorCode != "ConditionNotMet" {
		t.Fatalf("stale If-Match: %v, want 412 ConditionNotMet", err)
	}
	_, err = stale.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader([]byte("z"))), nil)
	if !errors.As(err, &re) || re.StatusCode != http.StatusPreconditionFailed {
		t.Fatalf("stale If-Match on Put Range: %v, want 412", err)
	}
	p, err := fc.GetProperties(ctx, nil)
	if err != nil || meta(p.Metadata, "v") != "1" {
		t.Fatalf("after the refused write: %v %v", p.Metadata, err)
	}
}

// TestAuth: account SAS works within its permissions, a wrong key is 403.
func TestAuth(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	f.share(t, "auth")
	sasURL, err := f.svc.GetSASURL(sas.AccountResourceTypes{Service: true, Container: true, Object: true},
		sas.AccountPermissions{Read: true, List: true}, time.Now().Add(time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := service.NewClientWithNoCredential(sasURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.NewListSharesPager(nil).NextPage(ctx); err != nil {
		t.Fatalf("list with a read SAS: %v", err)
	}
	_, err = ro.NewShareClient("auth").NewDirectoryClient("d").Create(ctx, nil)
	wantCode(t, err, fileerror.AuthorizationPermissionMismatch)
	badCred, err := service.NewSharedKeyCredential(f.env.Account, "AAAA"+f.env.Key[4:])
	if err != nil {
		t.Fatal(err)
	}
	bad, err := service.NewClientWithSharedKeyCredential(f.env.FileURL, badCred, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.NewListSharesPager(nil).NextPage(ctx)
	wantCode(t, err, fileerror.AuthenticationFailed)
	cs, err := service.NewClientFromConnectionString(f.env.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.NewShareClient("auth").GetProperties(ctx, nil); err != nil {
		t.Fatalf("connection string client: %v", err)
	}
}
