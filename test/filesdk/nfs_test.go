package filesdk_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"
)

// TestNFSShareThroughSDK drives an NFS share through azfile's NFS
// options, as its recorded live tests against a premium account do
// (TestCreateFileNFS, TestDirCreateNfs, TestCreateHardLinkNFS,
// TestGetSymbolicLinkNFS): POSIX properties with Azure's defaults, a
// hard link sharing its file's content and link count, a symbolic link's
// text, and an NFS property refused on an SMB share.
func TestNFSShareThroughSDK(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	sc := f.svc.NewShareClient("nfsshare")
	if _, err := sc.Create(ctx, &share.CreateOptions{EnabledProtocols: to.Ptr("NFS"), RootSquash: to.Ptr(share.RootSquashRootSquash)}); err != nil {
		t.Fatal(err)
	}
	props, err := sc.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if props.EnabledProtocols == nil || *props.EnabledProtocols != "NFS" || props.RootSquash == nil || *props.RootSquash != share.RootSquashRootSquash {
		t.Errorf("share properties: protocols %v, root squash %v", props.EnabledProtocols, props.RootSquash)
	}

	dir := sc.NewRootDirectoryClient().NewSubdirectoryClient("dir")
	d, err := dir.Create(ctx, &directory.CreateOptions{FileNFSProperties: &file.NFSProperties{Owner: to.Ptr("345"), Group: to.Ptr("123")}})
	if err != nil {
		t.Fatal(err)
	}
	if *d.FileMode != "0755" || *d.Owner != "345" || *d.Group != "123" || *d.NFSFileType != "Directory" {
		t.Errorf("directory: mode %s owner %s group %s type %s", *d.FileMode, *d.Owner, *d.Group, *d.NFSFileType)
	}

	src := dir.NewFileClient("file1")
	c, err := src.Create(ctx, 5, &file.CreateOptions{NFSProperties: &file.NFSProperties{FileMode: to.Ptr("0640")}})
	if err != nil {
		t.Fatal(err)
	}
	if *c.FileMode != "0640" || *c.Owner != "0" || *c.NFSFileType != "Regular" {
		t.Errorf("file: mode %s owner %s type %s", *c.FileMode, *c.Owner, *c.NFSFileType)
	}
	link := dir.NewFileClient("file2")
	hl, err := link.CreateHardLink(ctx, "/dir/file1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if *hl.LinkCount != 2 || *hl.ID != *c.ID || *hl.FileMode != "0640" {
		t.Errorf("hard link: count %d id %s (file %s) mode %s", *hl.LinkCount, *hl.ID, *c.ID, *hl.FileMode)
	}
	if _, err := link.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader([]byte("hello"))), nil); err != nil {
		t.Fatal(err)
	}
	got, err := src.DownloadStream(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(got.Body)
	_ = got.Body.Close()
	if err != nil || string(body) != "hello" || *got.LinkCount != 2 {
		t.Errorf("read through the first name: %q %v, link count %d", body, err, *got.LinkCount)
	}

	sym := dir.NewFileClient("file3")
	if _, err := sym.CreateSymbolicLink(ctx, "file1", &file.CreateSymbolicLinkOptions{FileNFSProperties: &file.NFSProperties{Owner: to.Ptr("7")}}); err != nil {
		t.Fatal(err)
	}
	text, err := sym.GetSymbolicLink(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *text.LinkText != "file1" {
		t.Errorf("link text %q", *text.LinkText)
	}

	if _, err := src.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	p, err := link.GetProperties(ctx, nil)
	if err != nil || *p.LinkCount != 1 {
		t.Fatalf("the other name after a delete: %v", err)
	}

	smb := f.share(t, "smbshare")
	_, err = smb.NewRootDirectoryClient().NewFileClient("f").Create(ctx, 0, &file.CreateOptions{NFSProperties: &file.NFSProperties{FileMode: to.Ptr("0664")}})
	if !fileerror.HasCode(err, fileerror.InvalidHeaderValue) {
		t.Errorf("NFS property on an SMB share: %v, want InvalidHeaderValue", err)
	}
}
