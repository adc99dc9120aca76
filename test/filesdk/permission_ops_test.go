package filesdk_test

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
)

// TestPermissionsOnChange: Set File/Directory Properties, Rename and Copy
// File take a permission by key or inline like a create does — a key
// resolves to its SDDL, an unknown key is refused, an inline SDDL is
// stored so the key reported for it resolves (the store checks run after
// the test verify every permission in use is stored).
func TestPermissionsOnChange(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "permops")
	const byKey = "O:BAG:SYD:(A;;FA;;;SY)(A;;0x1200a9;;;BU)"
	created, err := sc.CreatePermission(ctx, byKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := *created.FilePermissionKey
	root := sc.NewRootDirectoryClient()
	fc := root.NewFileClient("f")
	createFile(t, fc, 0)
	if _, err := fc.SetHTTPHeaders(ctx, &file.SetHTTPHeadersOptions{Permissions: &file.Permissions{PermissionKey: &key}}); err != nil {
		t.Fatal(err)
	}
	if p, err := fc.GetProperties(ctx, nil); err != nil || *p.FilePermissionKey != key {
		t.Fatalf("key after Set File Properties: %v", err)
	}
	_, err = fc.SetHTTPHeaders(ctx, &file.SetHTTPHeadersOptions{Permissions: &file.Permissions{PermissionKey: to.Ptr("1234567890*1234567890")}})
	wantCode(t, err, fileerror.Code("FileInvalidPermissionKey"))

	const inline = "O:SYG:SYD:P(A;OICI;FA;;;SY)"
	dc := root.NewSubdirectoryClient("d")
	if _, err := dc.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	set, err := dc.SetProperties(ctx, &directory.SetPropertiesOptions{FilePermissions: &file.Permissions{Permission: to.Ptr(inline)}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := sc.GetPermission(ctx, *set.FilePermissionKey, nil); err != nil || *got.Permission != inline+"S:NO_ACCESS_CONTROL" {
		t.Fatalf("permission of the key Set Directory Properties reported: %v", err)
	}

	// A rename setting a permission, and a copy taking the source's.
	moved, err := fc.Rename(ctx, "g", &file.RenameOptions{Permissions: &file.Permissions{Permission: to.Ptr(inline)}})
	if err != nil {
		t.Fatal(err)
	}
	g := root.NewFileClient("g")
	if p, err := g.GetProperties(ctx, nil); err != nil || *p.FilePermissionKey != *moved.FilePermissionKey {
		t.Fatalf("key after Rename: %v", err)
	}
	copied := root.NewFileClient("copy")
	if _, err := copied.StartCopyFromURL(ctx, g.URL(), &file.StartCopyFromURLOptions{
		Permissions:     &file.Permissions{PermissionKey: &key},
		CopyFileSMBInfo: &file.CopyFileSMBInfo{PermissionCopyMode: to.Ptr(file.PermissionCopyModeTypeOverride)},
	}); err != nil {
		t.Fatal(err)
	}
	if p, err := copied.GetProperties(ctx, nil); err != nil || *p.FilePermissionKey != key {
		t.Fatalf("key after Copy File with a key: %v", err)
	}
}
