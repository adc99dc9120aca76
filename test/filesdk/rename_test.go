package filesdk_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"
)

// TestRenameFile: a file moves with its ID, content and lease; the new
// path takes the request's metadata and content type.
func TestRenameFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "rename")
	root := sc.NewRootDirectoryClient()
	if _, err := sc.NewDirectoryClient("sub").Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	src := root.NewFileClient("a.txt")
	cr, err := src.Create(ctx, 64, &file.CreateOptions{Metadata: map[string]*string{"old": to.Ptr("1")}})
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("r"), 64)
	upload(t, src, 0, data)
	rr, err := src.Rename(ctx, "sub/b.txt", &file.RenameOptions{
		Metadata: map[string]*string{"new": to.Ptr("2")}, ContentType: to.Ptr("text/csv")})
	if err != nil {
		t.Fatal(err)
	}
	if *rr.ID != *cr.ID || *rr.ParentID == *cr.ParentID || *rr.ETag == *cr.ETag {
		t.Errorf("rename answered id %s parent %s etag %s", *rr.ID, *rr.ParentID, *rr.ETag)
	}
	_, err = src.GetProperties(ctx, nil)
	wantCode(t, err, fileerror.ResourceNotFound)
	dst := sc.NewDirectoryClient("sub").NewFileClient("b.txt")
	p, err := dst.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *p.ContentType != "text/csv" || meta(p.Metadata, "new") != "2" || meta(p.Metadata, "old") != "" || *p.ContentLength != 64 {
		t.Errorf("renamed file: %q %v %d", *p.ContentType, p.Metadata, *p.ContentLength)
	}
	if got := download(t, dst, file.HTTPRange{}); !bytes.Equal(got, data) {
		t.Error("renamed file lost its content")
	}

	// Without options the metadata stays.
	if _, err := dst.Rename(ctx, "c.txt", nil); err != nil {
		t.Fatal(err)
	}
	if p, err := root.NewFileClient("c.txt").GetProperties(ctx, nil); err != nil || meta(p.Metadata, "new") != "2" {
		t.Errorf("metadata after a plain rename: %v %v", p.Metadata, err)
	}

	_, err = root.NewFileClient("gone").Rename(ctx, "x", nil)
	wantCode(t, err, fileerror.ResourceNotFound)
	_, err = root.NewFileClient("c.txt").Rename(ctx, "nodir/x", nil)
	wantCode(t, err, fileerror.ParentNotFound)
	_, err = root.NewFileClient("c.txt").Rename(ctx, "sub", &file.RenameOptions{ReplaceIfExists: to.Ptr(true)})
	wantCode(t, err, fileerror.ResourceTypeMismatch)
	// A directory replaces a file, as Azure's does (the azfile recording
	// TestDirectoryRenameIgnoreReadOnly).
	if _, err := sc.NewDirectoryClient("sub").Rename(ctx, "c.txt", &directory.RenameOptions{ReplaceIfExists: to.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if p, err := sc.NewDirectoryClient("c.txt").GetProperties(ctx, nil); err != nil || *p.FileAttributes != "Directory" {
		t.Errorf("the directory that replaced c.txt: %v", err)
	}
}

// TestRenameReplace: an existing destination is replaced only when asked
// to, a read-only one only when told to ignore that.
func TestRenameReplace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "replace")
	root := sc.NewRootDirectoryClient()
	a, b := root.NewFileClient("a"), root.NewFileClient("b")
	writeFile(t, a, 3, 0, []byte("aaa"))
	writeFile(t, b, 3, 0, []byte("bbb"))
	if _, err := b.SetHTTPHeaders(ctx, &file.SetHTTPHeadersOptions{SMBProperties: &file.SMBProperties{Attributes: &file.NTFSFileAttributes{ReadOnly: true}}}); err != nil {
		t.Fatal(err)
	}
	_, err := a.Rename(ctx, "b", nil)
	wantCode(t, err, fileerror.ResourceAlreadyExists)
	// 409, not the 412 of a write to a read-only file (the azfile
	// recording TestDirectoryRenameIgnoreReadOnly).
	_, err = a.Rename(ctx, "b", &file.RenameOptions{ReplaceIfExists: to.Ptr(true)})
	wantStatus(t, err, http.StatusConflict, "ReadOnlyAttribute")
	_, err = a.Rename(ctx, "b", &file.RenameOptions{IgnoreReadOnly: to.Ptr(true)})
	wantCode(t, err, fileerror.InvalidHeaderValue)
	if _, err := a.Rename(ctx, "b", &file.RenameOptions{ReplaceIfExists: to.Ptr(true), IgnoreReadOnly: to.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if got := download(t, b, file.HTTPRange{}); string(got) != "aaa" {
		t.Errorf("replaced file reads %q", got)
	}
	if _, err := a.GetProperties(ctx, nil); !fileerror.HasCode(err, fileerror.ResourceNotFound) {
		t.Errorf("source after rename: %v", err)
	}
}

// TestRenameLeases: a leased source moves only with x-ms-source-lease-id
// and keeps its lease; a leased destination is replaced only with
// x-ms-destination-lease-id.
func TestRenameLeases(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "renamelease")
	root := sc.NewRootDirectoryClient()
	src, dst := root.NewFileClient("src"), root.NewFileClient("dst")
	for _, fc := range []*file.Client{src, dst} {
		createFile(t, fc, 1)
	}
	acquire := func(fc *file.Client, id string) {
		acquireLease(t, fc, id)
	}
	acquire(src, leaseA)
	acquire(dst, leaseB)
	replace := to.Ptr(true)
	_, err := src.Rename(ctx, "dst", &file.RenameOptions{ReplaceIfExists: replace,
		DestinationLeaseAccessConditions: &file.DestinationLeaseAccessConditions{DestinationLeaseID: to.Ptr(leaseB)}})
	wantStatus(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	_, err = src.Rename(ctx, "dst", &file.RenameOptions{ReplaceIfExists: replace,
		SourceLeaseAccessConditions: &file.SourceLeaseAccessConditions{SourceLeaseID: to.Ptr(leaseA)}})
	wantStatus(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	if _, err := src.Rename(ctx, "dst", &file.RenameOptions{ReplaceIfExists: replace,
		SourceLeaseAccessConditions:      &file.SourceLeaseAccessConditions{SourceLeaseID: to.Ptr(leaseA)},
		DestinationLeaseAccessConditions: &file.DestinationLeaseAccessConditions{DestinationLeaseID: to.Ptr(leaseB)}}); err != nil {
		t.Fatal(err)
	}
	wantLease(t, dst, "leased", "locked", "infinite")
	_, err = dst.Resize(ctx, 5, &file.ResizeOptions{LeaseAccessConditions: withLease(leaseB)})
	wantStatus(t, err, http.StatusPreconditionFailed, "LeaseIdMismatchWithFileOperation")
}

// TestRenameDirectory: a directory moves with its whole subtree, but not
// into it.
func TestRenameDirectory(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "renamedir")
	top := sc.NewDirectoryClient("top")
	if _, err := top.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	inner := top.NewSubdirectoryClient("inner")
	if _, err := inner.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	leaf := inner.NewFileClient("leaf")
	writeFile(t, leaf, 4, 0, []byte("leaf"))
	_, err := top.Rename(ctx, "top/inner/deeper", nil)
	wantCode(t, err, fileerror.InvalidInput)
	if _, err := sc.NewDirectoryClient("other").Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err = top.Rename(ctx, "other", nil)
	wantCode(t, err, fileerror.ResourceAlreadyExists)
	rr, err := top.Rename(ctx, "other/moved", &directory.RenameOptions{Metadata: map[string]*string{"m": to.Ptr("v")}})
	if err != nil {
		t.Fatal(err)
	}
	moved := sc.NewDirectoryClient("other/moved")
	p, err := moved.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *p.ID != *rr.ID || meta(p.Metadata, "m") != "v" || *p.FileAttributes != "Directory" {
		t.Errorf("moved directory %s %v %q", *p.ID, p.Metadata, *p.FileAttributes)
	}
	if got := download(t, moved.NewSubdirectoryClient("inner").NewFileClient("leaf"), file.HTTPRange{}); string(got) != "leaf" {
		t.Errorf("subtree file reads %q", got)
	}
	_, err = top.GetProperties(ctx, nil)
	wantCode(t, err, fileerror.ResourceNotFound)
	_, err = sc.NewDirectoryClient("nothere").Rename(ctx, "x", nil)
	wantCode(t, err, fileerror.ResourceNotFound)
}

// TestRenameWithSAS: a rename authorized by an account SAS, whose query
// the SDK sends with the destination, covers the source too.
func TestRenameWithSAS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	f.share(t, "renamesas")
	sasURL, err := f.svc.GetSASURL(sas.AccountResourceTypes{Service: true, Container: true, Object: true},
		sas.AccountPermissions{Read: true, Write: true, Create: true, Delete: true, List: true}, time.Now().Add(time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.NewClientWithNoCredential(sasURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	root := svc.NewShareClient("renamesas").NewRootDirectoryClient()
	fc := root.NewFileClient("a")
	createFile(t, fc, 1)
	if _, err := fc.Rename(ctx, "b", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := root.NewFileClient("b").GetProperties(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// TestRenameWithShareSASWithoutDelete: a share SAS granting read, create
// and write, not delete, renames files and directories, as azfile's live
// TestFileRenameUsingSAS and TestDirectoryRenameUsingSAS require of
// Azure; one that only lists does not.
func TestRenameWithShareSASWithoutDelete(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	f.share(t, "renamercw")
	shareClient := func(perms string) *share.Client {
		qp, err := sas.SignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour),
			Permissions: perms, ShareName: "renamercw"}.SignWithSharedKey(f.cred)
		if err != nil {
			t.Fatal(err)
		}
		c, err := share.NewClientWithNoCredential(f.svc.NewShareClient("renamercw").URL()+"?"+qp.Encode(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	root := shareClient("rcw").NewRootDirectoryClient()
	fc := root.NewFileClient("file1")
	createFile(t, fc, 1)
	if _, err := fc.Rename(ctx, "file2", nil); err != nil {
		t.Fatalf("file rename with an rcw share SAS: %v", err)
	}
	_, err := fc.GetProperties(ctx, nil)
	wantCode(t, err, fileerror.ResourceNotFound)
	dc := root.NewSubdirectoryClient("dir1")
	if _, err := dc.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := dc.Rename(ctx, "dir2", nil); err != nil {
		t.Fatalf("directory rename with an rcw share SAS: %v", err)
	}
	_, err = dc.GetProperties(ctx, nil)
	wantCode(t, err, fileerror.ResourceNotFound)

	_, err = shareClient("l").NewRootDirectoryClient().NewFileClient("file2").Rename(ctx, "file3", nil)
	wantCode(t, err, fileerror.AuthorizationPermissionMismatch)
}

// frontDoor is a transport standing for a proxy in front of the server:
// the client speaks to the account's production URL
// (https://account.file.core.windows.net/...), and each request reaches
// the server path style, on its own host.
type frontDoor struct{ base *url.URL }

func (d frontDoor) Do(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	acct, _, _ := strings.Cut(req.URL.Host, ".")
	u := *d.base
	u.Path = strings.TrimSuffix(d.base.Path, "/") + "/" + acct + req.URL.Path
	u.RawPath = ""
	u.RawQuery = req.URL.RawQuery
	out.URL, out.Host, out.RequestURI = &u, u.Host, ""
	return http.DefaultTransport.RoundTrip(out)
}

// TestRenameProductionURL: a client configured with the account's
// production-style URL sends that URL, SAS and all, as
// x-ms-file-rename-source (as the azfile recordings show); the server
// behind a front door that forwards path style takes it as its own.
func TestRenameProductionURL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sc := f.share(t, "renameprod")
	sasURL, err := f.svc.GetSASURL(sas.AccountResourceTypes{Service: true, Container: true, Object: true},
		sas.AccountPermissions{Read: true, Write: true, Create: true, Delete: true, List: true}, time.Now().Add(time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, query, _ := strings.Cut(sasURL, "?")
	base, err := url.Parse(f.env.FileURL)
	if err != nil {
		t.Fatal(err)
	}
	base.Path = strings.TrimSuffix(base.Path, "/"+f.env.Account+"/")
	prod := "https://" + f.env.Account + ".file.core.windows.net/?" + query
	svc, err := service.NewClientWithNoCredential(prod, &service.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: frontDoor{base}}})
	if err != nil {
		t.Fatal(err)
	}
	renameFileAndDirectory(t, svc.NewShareClient("renameprod").NewRootDirectoryClient(), sc.NewRootDirectoryClient())
}

// TestRenameSourceTrailingDot: with AllowTrailingDot a client keeps the
// dots of its own paths, but a rename's source loses them unless it also
// sets AllowSourceTrailingDot, so renaming "name.." finds no "name" and
// is ResourceNotFound (the azfile recordings
// TestFileRenameNegativeSourceTrailingDot and
// TestDirectoryRenameNegativeSourceTrailingDot); with both set the rename
// moves the entry whose name ends in dots.
func TestRenameSourceTrailingDot(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	f.share(t, "renamedots")
	client := func(opts *service.ClientOptions) *share.Client {
		svc, err := service.NewClientWithSharedKeyCredential(f.env.FileURL, f.cred, opts)
		if err != nil {
			t.Fatal(err)
		}
		return svc.NewShareClient("renamedots")
	}
	dots := client(&service.ClientOptions{AllowTrailingDot: to.Ptr(true)})
	root := dots.NewRootDirectoryClient()
	createFile(t, root.NewFileClient("file.."), 2048)
	_, err := root.NewFileClient("file..").Rename(ctx, "renamed..", nil)
	wantCode(t, err, fileerror.ResourceNotFound)
	dir := dots.NewDirectoryClient("dir..")
	if _, err := dir.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err = dir.Rename(ctx, "dir1..", nil)
	wantCode(t, err, fileerror.ResourceNotFound)
	// Nothing moved.
	if _, err := root.NewFileClient("file..").GetProperties(ctx, nil); err != nil {
		t.Errorf("file.. after the refused rename: %v", err)
	}
	if _, err := dir.GetProperties(ctx, nil); err != nil {
		t.Errorf("dir.. after the refused rename: %v", err)
	}

	both := client(&service.ClientOptions{AllowTrailingDot: to.Ptr(true), AllowSourceTrailingDot: to.Ptr(true)})
	if _, err := both.NewRootDirectoryClient().NewFileClient("file..").Rename(ctx, "renamed..", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := both.NewDirectoryClient("dir..").Rename(ctx, "dir1..", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := root.NewFileClient("renamed..").GetProperties(ctx, nil); err != nil {
		t.Errorf("renamed.. after the rename: %v", err)
	}
	if _, err := dots.NewDirectoryClient("dir1..").GetProperties(ctx, nil); err != nil {
		t.Errorf("dir1.. after the rename: %v", err)
	}
	_, err = root.NewFileClient("file..").GetProperties(ctx, nil)
	wantCode(t, err, fileerror.ResourceNotFound)
}

// TestRenameHostStyle: a client of a production-style endpoint on this
// server (http://account.file.localhost:port, the account in the host)
// sends that URL as x-ms-file-rename-source; the server takes it as its
// own, for files and directories.
func TestRenameHostStyle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	u, err := url.Parse(f.env.FileURL)
	if err != nil {
		t.Fatal(err)
	}
	// *.localhost names resolve to nothing here: dial the server itself.
	dial := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, u.Host)
	}}
	t.Cleanup(dial.CloseIdleConnections)
	svc, err := service.NewClientWithSharedKeyCredential("http://"+f.env.Account+".file.localhost:"+u.Port()+"/", f.cred,
		&service.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: &http.Client{Transport: dial}}})
	if err != nil {
		t.Fatal(err)
	}
	sc := svc.NewShareClient("renamehost")
	if _, err := sc.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	renameFileAndDirectory(t, sc.NewRootDirectoryClient(), f.svc.NewShareClient("renamehost").NewRootDirectoryClient())
}

// renameFileAndDirectory renames a new file a to b and a new directory d
// to e through root, a client of the endpoint form under test, and finds
// them under their new names through check, a path-style client of the
// same share.
func renameFileAndDirectory(t *testing.T, root, check *directory.Client) {
	t.Helper()
	ctx := t.Context()
	createFile(t, root.NewFileClient("a"), 1)
	if _, err := root.NewFileClient("a").Rename(ctx, "b", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := root.NewSubdirectoryClient("d").Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := root.NewSubdirectoryClient("d").Rename(ctx, "e", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := check.NewFileClient("b").GetProperties(ctx, nil); err != nil {
		t.Errorf("b after the rename: %v", err)
	}
	if _, err := check.NewSubdirectoryClient("e").GetProperties(ctx, nil); err != nil {
		t.Errorf("e after the rename: %v", err)
	}
}
