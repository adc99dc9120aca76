package filesdk_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"
)

// TestCopyFromShareSnapshot: Start Copy File and Upload Range From URL
// take a file of a share snapshot as their source, by the URL of a
// snapshot client (share.Client.WithSnapshot: the file's URL with
// ?sharesnapshot=), with or without a SAS. Azure restores files from
// snapshots this way: the Azure CLI's `az storage file copy start
// --file-snapshot` (its March 2019 release notes) sends such a URL as
// x-ms-copy-source.
func TestCopyFromShareSnapshot(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "copysnap")
	root := sc.NewRootDirectoryClient()
	src := root.NewFileClient("src")
	before := patterned(3000, 5)
	createFile(t, src, int64(len(before)))
	upload(t, src, 0, before)
	snap := createSnapshot(t, sc, nil)
	upload(t, src, 0, patterned(3000, 9))
	snapFile := withSnapshot(t, sc, snap).NewRootDirectoryClient().NewFileClient("src")
	if !strings.Contains(snapFile.URL(), "sharesnapshot=") {
		t.Fatalf("snapshot client URL %s", snapFile.URL())
	}

	// Restoring the file over itself brings the snapshot's bytes back.
	cr, err := src.StartCopyFromURL(ctx, snapFile.URL(), &file.StartCopyFromURLOptions{Metadata: map[string]*string{"restored": to.Ptr("yes")}})
	if err != nil {
		t.Fatal(err)
	}
	if *cr.CopyStatus != file.CopyStatusTypeSuccess {
		t.Fatalf("copy status %v", *cr.CopyStatus)
	}
	if got := download(t, src, file.HTTPRange{}); !bytes.Equal(got, before) {
		t.Error("restore from the snapshot differs from the snapshot")
	}
	p, err := src.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *p.CopySource != snapFile.URL() || meta(p.Metadata, "restored") != "yes" {
		t.Errorf("copy source %q metadata %v", *p.CopySource, p.Metadata)
	}
	// The snapshot still reads as it was.
	if got := download(t, snapFile, file.HTTPRange{}); !bytes.Equal(got, before) {
		t.Error("the snapshot changed")
	}

	// Through a SAS: a destination SAS alone does not cover the source,
	// a read SAS of the snapshot's file does.
	expiry := time.Now().Add(time.Hour)
	dst := root.NewFileClient("dst")
	createFile(t, dst, 4096)
	dstSAS, err := dst.GetSASURL(sas.FilePermissions{Read: true, Write: true, Create: true}, expiry, nil)
	if err != nil {
		t.Fatal(err)
	}
	viaSAS, err := file.NewClientWithNoCredential(dstSAS, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = viaSAS.UploadRangeFromURL(ctx, snapFile.URL(), 1000, 0, 1024, nil)
	wantStatus(t, err, http.StatusForbidden, "CannotVerifyCopySource")
	srcSAS, err := snapFile.GetSASURL(sas.FilePermissions{Read: true}, expiry, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(srcSAS, "sharesnapshot=") || !strings.Contains(srcSAS, "sig=") {
		t.Fatalf("snapshot SAS URL %s", srcSAS)
	}
	if _, err := viaSAS.UploadRangeFromURL(ctx, srcSAS, 1000, 0, 1024, nil); err != nil {
		t.Fatal(err)
	}
	if got := download(t, dst, file.HTTPRange{Offset: 0, Count: 1024}); !bytes.Equal(got, before[1000:2024]) {
		t.Error("range copied from the snapshot differs")
	}
	copied := root.NewFileClient("copied")
	if _, err := copied.StartCopyFromURL(ctx, srcSAS, nil); err != nil {
		t.Fatal(err)
	}
	if got := download(t, copied, file.HTTPRange{}); !bytes.Equal(got, before) {
		t.Error("copy through the snapshot's SAS differs from the snapshot")
	}
}
