package smbclient_test

import (
	"encoding/base64"
	"testing"

	sharefile "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"

	"github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/smb/smbtest"
)

// TestSMBSecurityMatchesREST: the security descriptor an SMB client
// reads is the permission Files REST set, and one it sets is the
// permission Files REST then reads (Azure Files keeps one permission,
// SDDL over REST and a binary descriptor over SMB).
func TestSMBSecurityMatchesREST(t *testing.T) {
	f := restFixture(t)
	sddl := "O:BAG:SYD:(A;;FA;;;BA)(A;;0x1200a9;;;WD)"
	fc := f.file("acl.txt")
	if _, err := fc.Create(t.Context(), 0, &sharefile.CreateOptions{Permissions: &sharefile.Permissions{Permission: &sddl}}); err != nil {
		t.Fatal(err)
	}
	c := f.dial(t)
	const all = 0x1 | 0x2 | 0x4 // owner, group, DACL
	// READ_CONTROL | WRITE_DAC | WRITE_OWNER | SYNCHRONIZE
	id := f.open(t, c, "acl.txt", 0x001e0000, 7, 1, 0)
	sd, st, err := c.QueryInfo(id, 3, 0, all, 4096)
	if err != nil || st != smbtest.StatusSuccess {
		t.Fatalf("query security: %#x %v", st, err)
	}
	if got, err := file.BinaryToSDDL(base64.StdEncoding.EncodeToString(sd)); err != nil || got != sddl {
		t.Errorf("SMB reads %q (%v), REST set %q", got, err, sddl)
	}

	set := "O:SYG:BAD:(A;;FA;;;AU)"
	bin, err := file.Descriptor(set)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := c.SetInfo(id, 3, 0, all, bin); err != nil || st != smbtest.StatusSuccess {
		t.Fatalf("set security: %#x %v", st, err)
	}
	props, err := fc.GetProperties(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	perm, err := f.share.GetPermission(t.Context(), *props.FilePermissionKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Kept, as every permission without a SACL, with the explicit null
	// one Azure reads back (test_create_permission_for_share).
	if *perm.Permission != set+"S:NO_ACCESS_CONTROL" {
		t.Errorf("SMB set %q, REST reads %q", set, *perm.Permission)
	}
}
