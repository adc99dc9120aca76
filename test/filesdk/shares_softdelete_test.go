package filesdk_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// listWithDeleted lists the shares named with prefix through the SDK's
// pager, deleted ones included.
func listWithDeleted(t *testing.T, svc *service.Client, prefix string, snapshots bool) []*service.Share {
	t.Helper()
	pager := svc.NewListSharesPager(&service.ListSharesOptions{Prefix: &prefix, Include: service.ListSharesInclude{Deleted: true, Snapshots: snapshots}})
	var out []*service.Share
	for pager.More() {
		page, err := pager.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Shares...)
	}
	return out
}

// TestShareSoftDeleteSDK: on a server keeping deleted shares 7 days, the
// Go SDK's flow of TestShareRestoreWithSnapshotsAgain works: a share
// deleted with its snapshot is gone, listed as deleted with its version,
// deletion time and remaining days, and Restore brings back the share,
// its file and its snapshot.
func TestShareSoftDeleteSDK(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock(time.Now().UTC())
	f := newFixture(t, servertest.WithClock(clock.Now), servertest.WithShareRetention(7))
	ctx := t.Context()
	sc := f.share(t, "soft")
	fc := sc.NewRootDirectoryClient().NewFileClient("f")
	writeFile(t, fc, 5, 0, []byte("hello"))
	snap, err := sc.CreateSnapshot(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Delete(ctx, &share.DeleteOptions{DeleteSnapshots: to.Ptr(share.DeleteSnapshotsOptionTypeInclude)}); err != nil {
		t.Fatal(err)
	}
	_, err = sc.GetProperties(ctx, nil)
	wantCode(t, err, fileerror.ShareNotFound)
	_, err = fc.GetProperties(ctx, nil)
	wantCode(t, err, fileerror.ShareNotFound)

	clock.Advance(time.Minute)
	listed := listWithDeleted(t, f.svc, "soft", false)
	if len(listed) != 1 {
		t.Fatalf("listed %d shares", len(listed))
	}
	d := listed[0]
	if d.Deleted == nil || !*d.Deleted || d.Version == nil || d.Properties.DeletedTime == nil || d.Properties.RemainingRetentionDays == nil || *d.Properties.RemainingRetentionDays != 7 {
		t.Fatalf("deleted share listed as %+v %+v", d, d.Properties)
	}
	if *d.Properties.LeaseState != lease.StateTypeBroken || *d.Properties.LeaseStatus != lease.StatusTypeUnlocked {
		t.Errorf("deleted share's lease %s %s", *d.Properties.LeaseState, *d.Properties.LeaseStatus)
	}
	pager := f.svc.NewListSharesPager(&service.ListSharesOptions{Prefix: to.Ptr("soft")})
	page, err := pager.NextPage(ctx)
	if err != nil || len(page.Shares) != 0 {
		t.Fatalf("listed without include=deleted: %v %v", page.Shares, err)
	}

	restored, err := sc.Restore(ctx, *d.Version, nil)
	if err != nil {
		t.Fatal(err)
	}
	if restored.ETag == nil || restored.LastModified == nil {
		t.Fatalf("restore answered %+v", restored)
	}
	if got := download(t, fc, file.HTTPRange{}); !bytes.Equal(got, []byte("hello")) {
		t.Fatalf("restored file reads %q", got)
	}
	all := listWithDeleted(t, f.svc, "soft", true)
	if len(all) != 2 || all[0].Snapshot == nil || *all[0].Snapshot != *snap.Snapshot || all[1].Deleted != nil && *all[1].Deleted {
		t.Fatalf("after the restore: %+v", all)
	}
}

// TestShareRestoreFailuresSDK: Restore without a version is
// MissingRequiredHeader (the Go SDK's TestShareRestoreFailures), an
// unknown version ShareNotFound (its service tests' invalid version),
// and a deleted share whose name a new share took ShareAlreadyExists
// (the Python SDK's test_restore_to_existing_share).
func TestShareRestoreFailuresSDK(t *testing.T) {
	t.Parallel()
	f := newFixture(t, servertest.WithShareRetention(7))
	ctx := t.Context()
	sc := f.share(t, "again")
	_, err := sc.Restore(ctx, "", nil)
	wantCode(t, err, fileerror.MissingRequiredHeader)
	_, err = f.svc.RestoreShare(ctx, "again", "01D60F8BB59A4652", nil)
	wantCode(t, err, fileerror.ShareNotFound)

	if _, err := sc.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Create(ctx, nil); err != nil {
		t.Fatalf("create over a deleted share: %v", err)
	}
	listed := listWithDeleted(t, f.svc, "again", false)
	if len(listed) != 2 || listed[0].Deleted == nil || !*listed[0].Deleted || listed[1].Deleted != nil {
		t.Fatalf("a deleted and a live share of one name, deleted first: %+v", listed)
	}
	_, err = sc.Restore(ctx, *listed[0].Version, nil)
	wantCode(t, err, fileerror.ShareAlreadyExists)
}

// TestShareSoftDeleteExpiresSDK: past its retention a deleted share is
// neither listed nor restorable; without soft delete nothing is kept.
func TestShareSoftDeleteExpiresSDK(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock(time.Now().UTC())
	f := newFixture(t, servertest.WithClock(clock.Now), servertest.WithShareRetention(1))
	ctx := t.Context()
	sc := f.share(t, "brief")
	if _, err := sc.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	listed := listWithDeleted(t, f.svc, "brief", false)
	if len(listed) != 1 || *listed[0].Properties.RemainingRetentionDays != 1 {
		t.Fatalf("deleted %+v", listed)
	}
	clock.Advance(23 * time.Hour)
	if again := listWithDeleted(t, f.svc, "brief", false); len(again) != 1 || *again[0].Properties.RemainingRetentionDays != 0 {
		t.Fatalf("a day less an hour later: %+v", again)
	}
	clock.Advance(time.Hour)
	if gone := listWithDeleted(t, f.svc, "brief", false); len(gone) != 0 {
		t.Fatalf("listed past its retention: %+v", gone)
	}
	_, err := sc.Restore(ctx, *listed[0].Version, nil)
	wantCode(t, err, fileerror.ShareNotFound)

	plain := newFixture(t)
	hard := plain.share(t, "hard")
	if _, err := hard.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if kept := listWithDeleted(t, plain.svc, "hard", false); len(kept) != 0 {
		t.Fatalf("kept without soft delete: %+v", kept)
	}
}
