package filesdk_test

import (
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	filestore "github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// fileSAS returns a client for a file through a service SAS signed with
// the account key.
func (f *fixture) fileSAS(t *testing.T, fc *file.Client, v sas.SignatureValues) *file.Client {
	t.Helper()
	qp, err := v.SignWithSharedKey(f.cred)
	if err != nil {
		t.Fatal(err)
	}
	c, err := file.NewClientWithNoCredential(fc.URL()+"?"+qp.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestShareACL: stored access policies round-trip through Set/Get Share
// ACL, change the share's ETag, authorise a SAS naming them with si, and
// stop authorising it once removed.
func TestShareACL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "acl")
	fc := sc.NewRootDirectoryClient().NewFileClient("f")
	createFile(t, fc, 3)
	empty, err := sc.GetAccessPolicy(ctx, nil)
	if err != nil || len(empty.SignedIdentifiers) != 0 {
		t.Fatalf("fresh share ACL: %+v %v", empty, err)
	}
	start := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	expiry := start.Add(3 * time.Hour)
	set, err := sc.SetAccessPolicy(ctx, &share.SetAccessPolicyOptions{ShareACL: []*share.SignedIdentifier{
		{ID: to.Ptr("readers"), AccessPolicy: &share.AccessPolicy{Start: &start, Expiry: &expiry, Permission: to.Ptr("r")}},
		{ID: to.Ptr("bare")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if *set.ETag == *empty.ETag {
		t.Error("Set Share ACL kept the ETag")
	}
	got, err := sc.GetAccessPolicy(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *got.ETag != *set.ETag || len(got.SignedIdentifiers) != 2 {
		t.Fatalf("ACL: %+v", got)
	}
	p := got.SignedIdentifiers[0]
	if *p.ID != "readers" || !p.AccessPolicy.Start.Equal(start) || !p.AccessPolicy.Expiry.Equal(expiry) || *p.AccessPolicy.Permission != "r" {
		t.Fatalf("policy: %+v %+v", *p.ID, *p.AccessPolicy)
	}

	reader := f.fileSAS(t, fc, sas.SignatureValues{Identifier: "readers", ShareName: "acl", FilePath: "f"})
	if _, err := reader.GetProperties(ctx, nil); err != nil {
		t.Fatalf("read through si: %v", err)
	}
	_, err = reader.SetMetadata(ctx, nil)
	wantCode(t, err, fileerror.AuthorizationPermissionMismatch)

	// A policy that sets the permissions leaves none to the SAS.
	both := f.fileSAS(t, fc, sas.SignatureValues{Identifier: "readers", Permissions: "r", ShareName: "acl", FilePath: "f"})
	_, err = both.GetProperties(ctx, nil)
	wantCode(t, err, fileerror.AuthenticationFailed)

	if _, err := sc.SetAccessPolicy(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err = reader.GetProperties(ctx, nil)
	wantCode(t, err, fileerror.AuthenticationFailed)

	six := make([]*share.SignedIdentifier, 6)
	for i := range six {
		six[i] = &share.SignedIdentifier{ID: to.Ptr(string(rune('a' + i)))}
	}
	_, err = sc.SetAccessPolicy(ctx, &share.SetAccessPolicyOptions{ShareACL: six})
	wantCode(t, err, fileerror.InvalidXMLDocument)
	_, err = f.svc.NewShareClient("nosuch").GetAccessPolicy(ctx, nil)
	wantCode(t, err, fileerror.ShareNotFound)
}

// TestAuthenticationErrorDetail: a 403 AuthenticationFailed names its
// reason in an AuthenticationErrorDetail element beside Azure's fixed
// message, as azfile's live TestAuthenticationErrorDetailError (a share
// SAS whose stored policy has expired) requires of Azure.
func TestAuthenticationErrorDetail(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "expiredpolicy")
	if _, err := sc.SetAccessPolicy(ctx, &share.SetAccessPolicyOptions{ShareACL: []*share.SignedIdentifier{{
		ID:           to.Ptr("testAccessPolicy"),
		AccessPolicy: &share.AccessPolicy{Expiry: to.Ptr(time.Now().Add(-time.Hour)), Permission: to.Ptr("w")},
	}}}); err != nil {
		t.Fatal(err)
	}
	qp, err := sas.SignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, Identifier: "testAccessPolicy", ShareName: "expiredpolicy"}.SignWithSharedKey(f.cred)
	if err != nil {
		t.Fatal(err)
	}
	viaSAS, err := share.NewClientWithNoCredential(sc.URL()+"?"+qp.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = viaSAS.NewRootDirectoryClient().NewSubdirectoryClient("d").Create(ctx, nil)
	wantCode(t, err, fileerror.AuthenticationFailed)
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("%T", err)
	}
	body := re.Error()
	detail := regexp.MustCompile(`<AuthenticationErrorDetail>Signature not valid in the specified time frame: [^<]+</AuthenticationErrorDetail>`)
	if !detail.MatchString(body) {
		t.Errorf("no AuthenticationErrorDetail for the expired policy in:\n%s", body)
	}
	if !strings.Contains(body, "<Message>Server failed to authenticate the request. Make sure the value of Authorization header is formed correctly including the signature.\nRequestId:") {
		t.Errorf("not Azure's AuthenticationFailed message:\n%s", body)
	}
}

func wantShareLease(t *testing.T, sc *share.Client, state, status, duration string) {
	t.Helper()
	p, err := sc.GetProperties(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	gotDuration := ""
	if p.LeaseDuration != nil {
		gotDuration = string(*p.LeaseDuration)
	}
	if string(*p.LeaseState) != state || string(*p.LeaseStatus) != status || gotDuration != duration {
		t.Fatalf("lease %s/%s/%s, want %s/%s/%s", *p.LeaseState, *p.LeaseStatus, gotDuration, state, status, duration)
	}
}

// TestShareSnapshotLease: a share snapshot takes a lease of its own, apart
// from its share's (azure-storage-file-share's recording
// test_acquire_lease_on_sharesnapshot); the lease guards deleting the
// snapshot, and x-ms-delete-snapshots: include refuses a share whose
// snapshot holds one, 409 DeleteShareWhenSnapshotLeased (the Files error
// codes), where include-leased deletes it.
func TestShareSnapshotLease(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "snaplease")
	snap, err := sc.CreateSnapshot(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	snapClient, err := sc.WithSnapshot(*snap.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	shareLease, err := lease.NewShareClient(sc, &lease.ShareClientOptions{LeaseID: to.Ptr(leaseA)})
	if err != nil {
		t.Fatal(err)
	}
	snapLease, err := lease.NewShareClient(snapClient, &lease.ShareClientOptions{LeaseID: to.Ptr(leaseB)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shareLease.Acquire(ctx, -1, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := snapLease.Acquire(ctx, -1, nil); err != nil {
		t.Fatalf("lease on a share snapshot: %v", err)
	}
	_, err = sc.GetProperties(ctx, &share.GetPropertiesOptions{LeaseAccessConditions: &share.LeaseAccessConditions{LeaseID: to.Ptr(leaseB)}})
	wantCode(t, err, fileerror.Code("LeaseIdMismatchWithContainerOperation"))
	_, err = snapClient.GetProperties(ctx, &share.GetPropertiesOptions{LeaseAccessConditions: &share.LeaseAccessConditions{LeaseID: to.Ptr(leaseA)}})
	wantCode(t, err, fileerror.Code("LeaseIdMismatchWithContainerOperation"))
	_, err = snapClient.Delete(ctx, nil)
	wantCode(t, err, fileerror.Code("LeaseIdMissing"))
	if _, err := shareLease.Release(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err = sc.Delete(ctx, &share.DeleteOptions{DeleteSnapshots: to.Ptr(share.DeleteSnapshotsOptionTypeInclude)})
	wantCode(t, err, fileerror.Code("DeleteShareWhenSnapshotLeased"))
	if _, err := sc.Delete(ctx, &share.DeleteOptions{DeleteSnapshots: to.Ptr(share.DeleteSnapshotsOptionTypeIncludeLeased)}); err != nil {
		t.Fatalf("include-leased: %v", err)
	}
}

// TestShareLease: acquire, renew, change, break and release a share lease
// on the server's clock; a leased share refuses deletion without its
// lease ID and serves other operations, which check an ID they carry.
func TestShareLease(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock(time.Now().UTC())
	f := newFixture(t, servertest.WithClock(clock.Now))
	ctx := t.Context()
	sc := f.share(t, "leased")
	lc, err := lease.NewShareClient(sc, &lease.ShareClientOptions{LeaseID: to.Ptr(leaseA)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = lc.Acquire(ctx, 10, nil)
	wantCode(t, err, fileerror.InvalidHeaderValue)
	before, err := sc.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	acq, err := lc.Acquire(ctx, 15, nil)
	if err != nil || *acq.LeaseID != leaseA || *acq.ETag != *before.ETag {
		t.Fatalf("acquire: %+v %v", acq, err)
	}
	wantShareLease(t, sc, "leased", "locked", "fixed")

	_, err = sc.Delete(ctx, nil)
	wantStatus(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	_, err = sc.Delete(ctx, &share.DeleteOptions{LeaseAccessConditions: &share.LeaseAccessConditions{LeaseID: to.Ptr(leaseB)}})
	wantStatus(t, err, http.StatusPreconditionFailed, "LeaseIdMismatchWithContainerOperation")
	if _, err := sc.SetMetadata(ctx, &share.SetMetadataOptions{Metadata: map[string]*string{"k": to.Ptr("v")}}); err != nil {
		t.Fatalf("set metadata without the lease ID: %v", err)
	}
	_, err = sc.SetProperties(ctx, &share.SetPropertiesOptions{Quota: to.Ptr(int32(7)), LeaseAccessConditions: &share.LeaseAccessConditions{LeaseID: to.Ptr(leaseB)}})
	wantStatus(t, err, http.StatusPreconditionFailed, "LeaseIdMismatchWithContainerOperation")
	if _, err := sc.SetProperties(ctx, &share.SetPropertiesOptions{Quota: to.Ptr(int32(7)), LeaseAccessConditions: &share.LeaseAccessConditions{LeaseID: to.Ptr(leaseA)}}); err != nil {
		t.Fatalf("set properties with the lease ID: %v", err)
	}

	clock.Advance(10 * time.Second)
	if _, err := lc.Renew(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := lc.Change(ctx, leaseC, nil); err != nil || *lc.LeaseID() != leaseC {
		t.Fatalf("change: %v", err)
	}
	clock.Advance(14 * time.Second)
	wantShareLease(t, sc, "leased", "locked", "fixed")
	clock.Advance(2 * time.Second)
	wantShareLease(t, sc, "expired", "unlocked", "")

	other, err := lease.NewShareClient(sc, &lease.ShareClientOptions{LeaseID: to.Ptr(leaseB)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Acquire(ctx, -1, nil); err != nil {
		t.Fatalf("acquire after expiry: %v", err)
	}
	wantShareLease(t, sc, "leased", "locked", "infinite")
	brk, err := other.Break(ctx, &lease.ShareBreakOptions{BreakPeriod: to.Ptr(int32(20))})
	if err != nil || *brk.LeaseTime != 20 {
		t.Fatalf("break: %+v %v", brk, err)
	}
	wantShareLease(t, sc, "breaking", "locked", "")
	_, err = lc.Acquire(ctx, -1, nil)
	wantCode(t, err, fileerror.Code("LeaseAlreadyPresent"))
	clock.Advance(20 * time.Second)
	wantShareLease(t, sc, "broken", "unlocked", "")
	if _, err := other.Acquire(ctx, -1, nil); err != nil {
		t.Fatal(err)
	}
	_, err = lc.Release(ctx, nil)
	wantStatus(t, err, http.StatusConflict, "LeaseIdMismatchWithLeaseOperation")
	if _, err := other.Release(ctx, nil); err != nil {
		t.Fatal(err)
	}
	wantShareLease(t, sc, "available", "unlocked", "")
	page, err := f.svc.NewListSharesPager(nil).NextPage(ctx)
	if err != nil || len(page.Shares) != 1 || *page.Shares[0].Properties.LeaseState != "available" {
		t.Fatalf("listing: %+v %v", page, err)
	}
	if _, err := sc.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// TestShareStatsAndQuota: Get Share Stats reports the files' sizes, and a
// create that would take them past the quota is ShareSizeLimitReached.
func TestShareStatsAndQuota(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.svc.NewShareClient("quota")
	if _, err := sc.Create(ctx, &share.CreateOptions{Quota: to.Ptr(int32(1))}); err != nil {
		t.Fatal(err)
	}
	usage := func() int64 {
		t.Helper()
		st, err := sc.GetStatistics(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return *st.ShareUsageBytes
	}
	if got := usage(); got != 0 {
		t.Fatalf("empty share uses %d", got)
	}
	root := sc.NewRootDirectoryClient()
	a, b := root.NewFileClient("a"), root.NewFileClient("b")
	createFile(t, a, 600<<20)
	if _, err := a.UploadRange(ctx, 0, streaming.NopCloser(strings.NewReader("data")), nil); err != nil {
		t.Fatal(err)
	}
	if got := usage(); got != 600<<20 {
		t.Fatalf("usage %d, want %d", got, 600<<20)
	}
	_, err := b.Create(ctx, 500<<20, nil)
	wantStatus(t, err, http.StatusForbidden, "ShareSizeLimitReached")
	if _, err := sc.SetProperties(ctx, &share.SetPropertiesOptions{Quota: to.Ptr(int32(2))}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Create(ctx, 500<<20, nil); err != nil {
		t.Fatalf("create after raising the quota: %v", err)
	}
	if _, err := a.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := usage(); got != 500<<20 {
		t.Fatalf("usage %d after delete, want %d", got, 500<<20)
	}
}

// TestPermissions: Create Permission gives one key per SDDL, Get
// Permission returns it, and files and directories take a permission by
// key or inline and report the key.
func TestPermissions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "perms")
	const sddl = "O:BAG:SYD:(A;;FA;;;SY)(A;;0x1200a9;;;BU)"
	created, err := sc.CreatePermission(ctx, sddl, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := *created.FilePermissionKey
	again, err := sc.CreatePermission(ctx, sddl, nil)
	if err != nil || *again.FilePermissionKey != key {
		t.Fatalf("same SDDL again: %v", err)
	}
	// Read back with Azure's explicit null SACL appended, under the key
	// the SDDL with it has too (azure-storage-file-share's recording
	// test_create_permission_for_share).
	got, err := sc.GetPermission(ctx, key, nil)
	if err != nil || *got.Permission != sddl+"S:NO_ACCESS_CONTROL" {
		t.Fatalf("get permission: %q %v", *got.Permission, err)
	}
	if withSACL, err := sc.CreatePermission(ctx, sddl+"S:NO_ACCESS_CONTROL", nil); err != nil || *withSACL.FilePermissionKey != key {
		t.Fatalf("the SDDL with its null SACL: another key (%v)", err)
	}
	_, err = sc.GetPermission(ctx, "123*456", nil)
	wantCode(t, err, fileerror.Code("FileInvalidPermissionKey"))
	// Not of the key's form: a malformed header (Java's recording
	// ShareApiTests.getPermissionError).
	_, err = sc.GetPermission(ctx, "abcde", nil)
	wantCode(t, err, fileerror.InvalidHeaderValue)
	bin, err := sc.GetPermission(ctx, key, &share.GetPermissionOptions{FilePermissionFormat: to.Ptr(share.FilePermissionFormatBinary)})
	// Azure names the format in lowercase, whatever the SDK's constant
	// (test_get_permission_format).
	if err != nil || *bin.Format != "binary" {
		t.Fatalf("get permission as binary: format %v %v", bin.Format, err)
	}
	if back, err := filestore.BinaryToSDDL(*bin.Permission); err != nil || back != sddl+"S:NO_ACCESS_CONTROL" {
		t.Fatalf("binary permission decodes to %q, %v", back, err)
	}
	_, err = sc.CreatePermission(ctx, "not an SDDL", nil)
	wantCode(t, err, fileerror.Code("FileInvalidPermission"))

	root := sc.NewRootDirectoryClient()
	fc := root.NewFileClient("f")
	if _, err := fc.Create(ctx, 0, &file.CreateOptions{Permissions: &file.Permissions{PermissionKey: &key}}); err != nil {
		t.Fatal(err)
	}
	props, err := fc.GetProperties(ctx, nil)
	if err != nil || *props.FilePermissionKey != key {
		t.Fatalf("file permission key: %v", err)
	}
	const inline = "O:SYG:SYD:P(A;OICI;FA;;;SY)"
	dc := root.NewSubdirectoryClient("d")
	if _, err := dc.Create(ctx, &directory.CreateOptions{FilePermissions: &file.Permissions{Permission: to.Ptr(inline)}}); err != nil {
		t.Fatal(err)
	}
	dp, err := dc.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := sc.GetPermission(ctx, *dp.FilePermissionKey, nil)
	if err != nil || *back.Permission != inline+"S:NO_ACCESS_CONTROL" {
		t.Fatalf("inline permission by its key: %+v %v", back, err)
	}
	// A permission in the binary format is stored as its SDDL.
	const binSDDL = "O:SYG:SYD:(A;;FA;;;WD)"
	b64, err := filestore.SDDLToBinary(binSDDL)
	if err != nil {
		t.Fatal(err)
	}
	bf := root.NewFileClient("binary")
	if _, err := bf.Create(ctx, 0, &file.CreateOptions{Permissions: &file.Permissions{Permission: &b64}, FilePermissionFormat: to.Ptr(file.FilePermissionFormatBinary)}); err != nil {
		t.Fatal(err)
	}
	bp, err := bf.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := sc.GetPermission(ctx, *bp.FilePermissionKey, nil); err != nil || *got.Permission != binSDDL+"S:NO_ACCESS_CONTROL" {
		t.Fatalf("binary permission as SDDL: %+v %v", got, err)
	}
	_, err = root.NewFileClient("badbin").Create(ctx, 0, &file.CreateOptions{Permissions: &file.Permissions{Permission: to.Ptr("AQAE")}, FilePermissionFormat: to.Ptr(file.FilePermissionFormatBinary)})
	wantCode(t, err, fileerror.Code("FileInvalidPermission"))
	// The default permission's key resolves too.
	plain := root.NewFileClient("plain")
	createFile(t, plain, 0)
	pp, err := plain.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.GetPermission(ctx, *pp.FilePermissionKey, nil); err != nil {
		t.Fatalf("default permission: %v", err)
	}
	_, err = root.NewFileClient("g").Create(ctx, 0, &file.CreateOptions{Permissions: &file.Permissions{PermissionKey: to.Ptr("1*2")}})
	wantCode(t, err, fileerror.Code("FileInvalidPermissionKey"))
	_, err = root.NewFileClient("g").Create(ctx, 0, &file.CreateOptions{Permissions: &file.Permissions{Permission: to.Ptr("O:BA")}})
	wantCode(t, err, fileerror.Code("FileInvalidPermission"))
}

// TestSASResponseOverrides: a file SAS's rscc/rscd/rsce/rscl/rsct replace
// the headers of Get File and Get File Properties answered through it.
func TestSASResponseOverrides(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "overrides")
	fc := sc.NewRootDirectoryClient().NewFileClient("f")
	if _, err := fc.Create(ctx, 4, &file.CreateOptions{HTTPHeaders: &file.HTTPHeaders{ContentType: to.Ptr("application/x-stored"), CacheControl: to.Ptr("stored")}}); err != nil {
		t.Fatal(err)
	}
	c := f.fileSAS(t, fc, sas.SignatureValues{
		Permissions: "r", ExpiryTime: time.Now().Add(time.Hour), ShareName: "overrides", FilePath: "f",
		CacheControl: testkit.OverrideCacheControl, ContentDisposition: testkit.OverrideContentDisposition, ContentEncoding: testkit.OverrideContentEncoding,
		ContentLanguage: testkit.OverrideContentLanguage, ContentType: testkit.OverrideContentType,
	})
	p, err := c.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	testkit.CheckOverrides(t, "get properties", p.CacheControl, p.ContentDisposition, p.ContentEncoding, p.ContentLanguage, p.ContentType)
	d, err := c.DownloadStream(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = d.Body.Close()
	testkit.CheckOverrides(t, "get file", d.CacheControl, d.ContentDisposition, d.ContentEncoding, d.ContentLanguage, d.ContentType)
	// The stored headers stand for everyone else.
	own, err := fc.GetProperties(ctx, nil)
	if err != nil || *own.ContentType != "application/x-stored" || *own.CacheControl != "stored" {
		t.Fatalf("shared key read: %v", err)
	}
}

// TestDirectoryIgnoresLeaseID: directories cannot be leased and Azure's
// directory operations take no x-ms-lease-id (the SDK never sends one),
// so a stray one is ignored, on a leased share too.
func TestDirectoryIgnoresLeaseID(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "dirlease")
	lc, err := lease.NewShareClient(sc, &lease.ShareClientOptions{LeaseID: to.Ptr(leaseA)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.Acquire(ctx, -1, nil); err != nil {
		t.Fatal(err)
	}
	cred, err := directory.NewSharedKeyCredential(f.env.Account, f.env.Key)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := directory.NewClientWithSharedKeyCredential(f.env.FileURL+"dirlease/d", cred,
		&directory.ClientOptions{ClientOptions: azcore.ClientOptions{PerCallPolicies: []policy.Policy{withHeader{"x-ms-lease-id", leaseB}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dc.Create(ctx, nil); err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := dc.SetMetadata(ctx, &directory.SetMetadataOptions{Metadata: map[string]*string{"k": to.Ptr("v")}}); err != nil {
		t.Fatalf("set metadata: %v", err)
	}
	if _, err := dc.GetProperties(ctx, nil); err != nil {
		t.Fatalf("get properties: %v", err)
	}
	if _, err := dc.Delete(ctx, nil); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := lc.Release(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// TestDefaultShareQuota: a share created without a quota gets 5120 GiB,
// or 102400 on an account with large file shares (--file-large-shares),
// as the JavaScript and .NET SDKs' recording accounts report; a quota
// asked for is kept either way.
func TestDefaultShareQuota(t *testing.T) {
	for _, c := range []struct {
		name  string
		opts  []servertest.Option
		quota int32
	}{
		{"default", nil, 5120},
		{"large file shares", []servertest.Option{servertest.WithFileLargeShares()}, 102400},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, c.opts...)
			ctx := t.Context()
			sc := f.share(t, "quota")
			p, err := sc.GetProperties(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if *p.Quota != c.quota {
				t.Errorf("quota %d, want %d", *p.Quota, c.quota)
			}
			asked := f.svc.NewShareClient("asked")
			if _, err := asked.Create(ctx, &share.CreateOptions{Quota: to.Ptr(int32(3))}); err != nil {
				t.Fatal(err)
			}
			if p, err := asked.GetProperties(ctx, nil); err != nil || *p.Quota != 3 {
				t.Errorf("asked for 3: %v %v", p.Quota, err)
			}
		})
	}
}

// TestAnonymousAsksForCredentials: shares have no public access, and Azure
// asks a caller without credentials for some: 401
// NoAuthenticationInformation (the .NET SDK's recording
// DirectoryClientTests/CreateIfNotExists_Error at 2025-05-05).
func TestAnonymousAsksForCredentials(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sc := f.share(t, "anonymous")
	dc, err := directory.NewClientWithNoCredential(sc.NewDirectoryClient("d").URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = dc.Create(t.Context(), nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusUnauthorized || re.ErrorCode != "NoAuthenticationInformation" {
		t.Fatalf("anonymous Create Directory: %v, want 401 NoAuthenticationInformation", err)
	}
	if _, err := sc.NewDirectoryClient("d").GetProperties(t.Context(), nil); !fileerror.HasCode(err, fileerror.ResourceNotFound) {
		t.Errorf("the anonymous create made the directory: %v", err)
	}
}
