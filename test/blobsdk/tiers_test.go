package blobsdk_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// setTier runs Set Blob Tier and returns the status it answered.
func setTier(t *testing.T, bc *blob.Client, tier blob.AccessTier, opts *blob.SetTierOptions) int {
	t.Helper()
	var raw *http.Response
	_, err := bc.SetTier(policy.WithCaptureResponse(t.Context(), &raw), tier, opts)
	must(t, err, "Set Blob Tier %s on %s", tier, bc.URL())
	return raw.StatusCode
}

// listedItem returns the listing entry of one blob, with its properties.
func listedItem(t *testing.T, cc *container.Client, name string) *container.BlobItem {
	t.Helper()
	items, _ := listFlat(t, cc, &container.ListBlobsFlatOptions{Prefix: &name})
	if len(items) != 1 {
		t.Fatalf("listing %q: %d entries", name, len(items))
	}
	return items[0]
}

// TestBlobTiers: a blob without a tier is Hot and inferred; Put Blob, Put
// Block List and Copy Blob take x-ms-access-tier; Set Blob Tier between
// online tiers answers 200 at once, keeps the ETag, and records the change
// time, in properties and in listings.
func TestBlobTiers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("tiers"), nil)
	bb := cc.NewBlockBlobClient("plain")
	upload(t, bb, []byte("hot by default"), nil)
	p := props(t, bb.BlobClient())
	if deref(p.AccessTier) != string(blob.AccessTierHot) || deref(p.AccessTierInferred) != true || p.AccessTierChangeTime != nil {
		t.Fatalf("new blob: tier %v inferred %v changed %v, want Hot, true, none", deref(p.AccessTier), deref(p.AccessTierInferred), deref(p.AccessTierChangeTime))
	}
	it := listedItem(t, cc, "plain")
	if deref(it.Properties.AccessTier) != blob.AccessTierHot || deref(it.Properties.AccessTierInferred) != true {
		t.Fatalf("listed new blob: tier %v inferred %v", deref(it.Properties.AccessTier), deref(it.Properties.AccessTierInferred))
	}

	before := time.Now().Add(-time.Second)
	if st := setTier(t, bb.BlobClient(), blob.AccessTierCool, nil); st != http.StatusOK {
		t.Fatalf("Set Blob Tier Cool: status %d, want 200", st)
	}
	q := props(t, bb.BlobClient())
	if deref(q.AccessTier) != string(blob.AccessTierCool) || q.AccessTierInferred != nil || q.AccessTierChangeTime == nil || q.AccessTierChangeTime.Before(before) {
		t.Fatalf("after Set Tier: tier %v inferred %v changed %v", deref(q.AccessTier), deref(q.AccessTierInferred), deref(q.AccessTierChangeTime))
	}
	if !sameETag(etagOf(p.ETag), etagOf(q.ETag)) {
		t.Fatalf("Set Blob Tier changed the ETag from %v to %v", deref(p.ETag), deref(q.ETag))
	}
	it = listedItem(t, cc, "plain")
	if deref(it.Properties.AccessTier) != blob.AccessTierCool || it.Properties.AccessTierInferred != nil || it.Properties.AccessTierChangeTime == nil {
		t.Fatalf("listed after Set Tier: tier %v inferred %v changed %v", deref(it.Properties.AccessTier), deref(it.Properties.AccessTierInferred), deref(it.Properties.AccessTierChangeTime))
	}
	expectContent(t, bb.BlobClient(), []byte("hot by default"), "cool blob")

	cold := cc.NewBlockBlobClient("cold")
	upload(t, cold, []byte("cold"), &blockblob.UploadOptions{Tier: ptr(blob.AccessTierCold)})
	if got := deref(props(t, cold.BlobClient()).AccessTier); got != string(blob.AccessTierCold) {
		t.Fatalf("Put Blob with tier Cold: tier %v", got)
	}
	committed := cc.NewBlockBlobClient("committed")
	_, err := committed.StageBlock(t.Context(), blockID(0), rsc([]byte("block")), nil)
	must(t, err, "StageBlock")
	_, err = committed.CommitBlockList(t.Context(), []string{blockID(0)}, &blockblob.CommitBlockListOptions{Tier: ptr(blob.AccessTierCool)})
	must(t, err, "CommitBlockList with tier Cool")
	if got := deref(props(t, committed.BlobClient()).AccessTier); got != string(blob.AccessTierCool) {
		t.Fatalf("Put Block List with tier Cool: tier %v", got)
	}
	// An overwrite without a tier starts again from the inferred default.
	upload(t, committed, []byte("again"), nil)
	if r := props(t, committed.BlobClient()); deref(r.AccessTier) != string(blob.AccessTierHot) || deref(r.AccessTierInferred) != true {
		t.Fatalf("overwrite without a tier: tier %v inferred %v", deref(r.AccessTier), deref(r.AccessTierInferred))
	}
	copied := cc.NewBlockBlobClient("copied")
	_, err = copied.StartCopyFromURL(t.Context(), cold.URL(), &blob.StartCopyFromURLOptions{Tier: ptr(blob.AccessTierCool)})
	must(t, err, "Copy Blob with tier Cool")
	if got := deref(props(t, copied.BlobClient()).AccessTier); got != string(blob.AccessTierCool) {
		t.Fatalf("Copy Blob with tier Cool: tier %v", got)
	}
	ab := cc.NewAppendBlobClient("log")
	_, err = ab.Create(t.Context(), nil)
	must(t, err, "Create append blob")
	if r := props(t, ab.BlobClient()); r.AccessTier != nil || r.AccessTierInferred != nil {
		t.Fatalf("append blob reports tier %v inferred %v; Azure reports none", deref(r.AccessTier), deref(r.AccessTierInferred))
	}
	if it := listedItem(t, cc, "log"); it.Properties.AccessTier != nil {
		t.Fatalf("listed append blob has tier %v", deref(it.Properties.AccessTier))
	}
}

// TestSmartTier: Smart is taken by Put Blob and Set Blob Tier, and Get
// Blob Properties and listings report it with the tier the blob is in
// (x-ms-smart-access-tier, SmartAccessTier: Hot), as the Python SDK's
// recording test_block_blob.py test_smart_access_tier shows Azure doing;
// a blob moved out of Smart reports no smart tier.
func TestSmartTier(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("smart"), nil)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, []byte("smart"), &blockblob.UploadOptions{Tier: ptr(blob.AccessTier("Smart"))})
	smartTier := func(want string) {
		t.Helper()
		var raw *http.Response
		p, err := bb.GetProperties(policy.WithCaptureResponse(t.Context(), &raw), nil)
		must(t, err, "Get Blob Properties")
		wantTier := want
		if want == "" {
			wantTier = "Cool"
		}
		if deref(p.AccessTier) != wantTier || p.AccessTierInferred != nil || p.AccessTierChangeTime == nil {
			t.Fatalf("tier %v inferred %v changed %v, want %s", deref(p.AccessTier), deref(p.AccessTierInferred), deref(p.AccessTierChangeTime), wantTier)
		}
		smart := ""
		if want == "Smart" {
			smart = "Hot"
		}
		if got := raw.Header.Get("x-ms-smart-access-tier"); got != smart {
			t.Fatalf("x-ms-smart-access-tier %q, want %q", got, smart)
		}
		items, _ := listFlat(t, cc, nil)
		it := items[0]
		if it.Properties.AccessTier == nil || string(*it.Properties.AccessTier) != wantTier || it.Properties.AccessTierChangeTime == nil {
			t.Fatalf("listed tier %v changed %v, want %s", deref(it.Properties.AccessTier), deref(it.Properties.AccessTierChangeTime), wantTier)
		}
	}
	smartTier("Smart")
	if st := setTier(t, bb.BlobClient(), blob.AccessTierCool, nil); st != http.StatusOK {
		t.Fatalf("Set Blob Tier Cool: %d", st)
	}
	smartTier("")
	if st := setTier(t, bb.BlobClient(), blob.AccessTier("smart"), nil); st != http.StatusOK {
		t.Fatalf("Set Blob Tier smart: %d", st)
	}
	smartTier("Smart")
	listed := rawDo(t, http.MethodGet, withQuery(cc.URL(), "restype=container&comp=list&"+f.fullAccountSAS()), nil, nil)
	body := string(listed.Body)
	if !strings.Contains(body, "<AccessTier>Smart</AccessTier><AccessTierChangeTime>") || !strings.Contains(body, "</AccessTierChangeTime><SmartAccessTier>Hot</SmartAccessTier>") {
		t.Fatalf("listing does not carry Smart and SmartAccessTier in Azure's order:\n%s", body)
	}
}

// TestBlobTierErrors: unknown tiers, premium tiers, tiers on page and
// append blobs, missing blobs and leases.
func TestBlobTierErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("tier-errors"), nil)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, []byte("x"), nil)
	_, err := bb.SetTier(t.Context(), blob.AccessTier("Lukewarm"), nil)
	mustErr(t, err, http.StatusBadRequest, bloberror.InvalidHeaderValue, "Set Blob Tier Lukewarm")
	_, err = bb.SetTier(t.Context(), blob.AccessTierP10, nil)
	mustErr(t, err, http.StatusBadRequest, bloberror.InvalidBlobTier, "premium tier on a block blob")
	_, err = bb.SetTier(t.Context(), blob.AccessTierHot, &blob.SetTierOptions{RehydratePriority: ptr(blob.RehydratePriority("Urgent"))})
	mustErr(t, err, http.StatusBadRequest, bloberror.InvalidHeaderValue, "rehydrate priority Urgent")
	_, err = cc.NewBlockBlobClient("missing").SetTier(t.Context(), blob.AccessTierCool, nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Set Blob Tier on a missing blob")
	_, err = bb.Upload(t.Context(), rsc([]byte("x")), &blockblob.UploadOptions{Tier: ptr(blob.AccessTier("Frozen"))})
	mustErr(t, err, http.StatusBadRequest, bloberror.InvalidHeaderValue, "Put Blob with tier Frozen")

	ab := cc.NewAppendBlobClient("log")
	_, err = ab.Create(t.Context(), nil)
	must(t, err, "Create append blob")
	_, err = ab.BlobClient().SetTier(t.Context(), blob.AccessTierCool, nil)
	mustErr(t, err, http.StatusConflict, bloberror.InvalidBlobType, "Set Blob Tier on an append blob")
	pb := cc.NewPageBlobClient("disk")
	_, err = pb.Create(t.Context(), 512, nil)
	must(t, err, "Create page blob")
	_, err = pb.BlobClient().SetTier(t.Context(), blob.AccessTierArchive, nil)
	mustErr(t, err, http.StatusConflict, bloberror.InvalidBlobType, "Set Blob Tier on a page blob")
	_, err = cc.NewPageBlobClient("disk2").Create(t.Context(), 512, &pageblob.CreateOptions{Tier: ptr(pageblob.PremiumPageBlobAccessTierP10)})
	mustErr(t, err, http.StatusBadRequest, bloberror.InvalidBlobTier, "premium tier on a standard account's page blob")

	lc := blobLease(t, bb, "")
	_, err = lc.AcquireLease(t.Context(), -1, nil)
	must(t, err, "AcquireLease")
	_, err = bb.SetTier(t.Context(), blob.AccessTierCool, nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "Set Blob Tier on a leased blob without its lease")
	_, err = bb.SetTier(t.Context(), blob.AccessTierCool, &blob.SetTierOptions{AccessConditions: &blob.AccessConditions{
		LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: ptr("00000000-0000-0000-0000-000000000000")}}})
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMismatchWithBlobOperation, "Set Blob Tier with another lease")
	if st := setTier(t, bb.BlobClient(), blob.AccessTierCool, &blob.SetTierOptions{AccessConditions: &blob.AccessConditions{
		LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: lc.LeaseID()}}}); st != http.StatusOK {
		t.Fatalf("Set Blob Tier with the lease: status %d", st)
	}
}

// TestBlobArchiveRehydrate: an archived blob refuses reads, metadata and
// snapshots; moving it out of Archive answers 202 and stays pending (Archive,
// rehydrate-pending-to-<tier>) until the rehydration time passes on the
// server's clock — 15 h at Standard priority, 1 h at High — which cannot be
// redirected to another tier, only sped up.
func TestBlobArchiveRehydrate(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock(time.Now())
	f := newFixture(t, servertest.WithClock(clock.Now))
	cc := f.createContainer(cname("archive"), nil)
	bb := cc.NewBlockBlobClient("old")
	data := []byte("cold storage")
	upload(t, bb, data, &blockblob.UploadOptions{Tier: ptr(blob.AccessTierArchive)})
	bc := bb.BlobClient()
	if p := props(t, bc); deref(p.AccessTier) != string(blob.AccessTierArchive) || p.ArchiveStatus != nil {
		t.Fatalf("archived upload: tier %v status %v", deref(p.AccessTier), deref(p.ArchiveStatus))
	}
	_, err := bc.DownloadStream(t.Context(), nil)
	mustErr(t, err, http.StatusConflict, bloberror.BlobArchived, "read an archived blob")
	_, err = bc.SetMetadata(t.Context(), map[string]*string{"k": ptr("v")}, nil)
	mustErr(t, err, http.StatusConflict, bloberror.BlobArchived, "Set Blob Metadata on an archived blob")
	_, err = bc.CreateSnapshot(t.Context(), nil)
	mustErr(t, err, http.StatusConflict, bloberror.BlobArchived, "snapshot an archived blob")
	_, err = cc.NewBlockBlobClient("copy").StartCopyFromURL(t.Context(), bb.URL(), nil)
	mustErr(t, err, http.StatusConflict, bloberror.BlobArchived, "copy from an archived blob")
	if st := setTier(t, bc, blob.AccessTierArchive, nil); st != http.StatusOK {
		t.Fatalf("Archive to Archive: status %d, want 200", st)
	}

	if st := setTier(t, bc, blob.AccessTierCool, nil); st != http.StatusAccepted {
		t.Fatalf("rehydrate to Cool: status %d, want 202", st)
	}
	p := props(t, bc)
	if deref(p.AccessTier) != string(blob.AccessTierArchive) || deref(p.ArchiveStatus) != string(blob.ArchiveStatusRehydratePendingToCool) || deref(p.RehydratePriority) != string(blob.RehydratePriorityStandard) {
		t.Fatalf("pending: tier %v status %v priority %v", deref(p.AccessTier), deref(p.ArchiveStatus), deref(p.RehydratePriority))
	}
	it := listedItem(t, cc, "old")
	if deref(it.Properties.AccessTier) != blob.AccessTierArchive || deref(it.Properties.ArchiveStatus) != blob.ArchiveStatusRehydratePendingToCool {
		t.Fatalf("listed pending: tier %v status %v", deref(it.Properties.AccessTier), deref(it.Properties.ArchiveStatus))
	}
	_, err = bc.SetTier(t.Context(), blob.AccessTierHot, nil)
	mustErr(t, err, http.StatusConflict, bloberror.BlobBeingRehydrated, "redirect a pending rehydration")
	_, err = bc.SetTier(t.Context(), blob.AccessTierArchive, nil)
	mustErr(t, err, http.StatusConflict, bloberror.BlobBeingRehydrated, "archive a rehydrating blob")

	clock.Advance(10 * time.Minute)
	start := clock.Now()
	if st := setTier(t, bc, blob.AccessTierCool, &blob.SetTierOptions{RehydratePriority: ptr(blob.RehydratePriorityHigh)}); st != http.StatusAccepted {
		t.Fatalf("raise the priority: status %d, want 202", st)
	}
	clock.Advance(time.Hour - time.Second)
	_, err = bc.DownloadStream(t.Context(), nil)
	mustErr(t, err, http.StatusConflict, bloberror.BlobArchived, "read before High priority rehydration ends")
	clock.Advance(time.Second)
	p = props(t, bc)
	if deref(p.AccessTier) != string(blob.AccessTierCool) || p.ArchiveStatus != nil || p.RehydratePriority != nil {
		t.Fatalf("rehydrated: tier %v status %v priority %v", deref(p.AccessTier), deref(p.ArchiveStatus), deref(p.RehydratePriority))
	}
	if got := deref(p.AccessTierChangeTime); !p.AccessTierChangeTime.Equal(start.Add(time.Hour).Truncate(time.Second)) {
		t.Fatalf("rehydrated change time %v, want %v", got, start.Add(time.Hour))
	}
	expectContent(t, bc, data, "rehydrated blob")
	_, err = bc.SetMetadata(t.Context(), map[string]*string{"k": ptr("v")}, nil)
	must(t, err, "Set Blob Metadata after rehydration")

	// Standard priority takes 15 hours.
	if st := setTier(t, bc, blob.AccessTierArchive, nil); st != http.StatusOK {
		t.Fatalf("archive again: status %d", st)
	}
	if st := setTier(t, bc, blob.AccessTierHot, nil); st != http.StatusAccepted {
		t.Fatalf("rehydrate to Hot: status %d", st)
	}
	clock.Advance(15*time.Hour - time.Second)
	if got := deref(listedItem(t, cc, "old").Properties.ArchiveStatus); got != blob.ArchiveStatusRehydratePendingToHot {
		t.Fatalf("listed 1 s before 15 h: archive status %v", got)
	}
	clock.Advance(time.Second)
	if it := listedItem(t, cc, "old"); deref(it.Properties.AccessTier) != blob.AccessTierHot || it.Properties.ArchiveStatus != nil {
		t.Fatalf("listed after 15 h: tier %v status %v", deref(it.Properties.AccessTier), deref(it.Properties.ArchiveStatus))
	}
	expectContent(t, bc, data, "rehydrated to Hot")
}

// TestDeleteBlobAccessTierConditions: Delete Blob's
// x-ms-access-tier-if-modified-since and -unmodified-since compare with
// when the tier was set, and a failed one is 412
// AccessTierChangeTimeConditionNotMet (the Go SDK's recording
// TestBlobDeleteAccessTierIfModifiedSinceFalse and its tests
// TestBlobDeleteAccessTierIf{Modified,Unmodified}Since{True,False}:
// ten seconds either side of x-ms-access-tier-change-time).
func TestDeleteBlobAccessTierConditions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("tierdelete"), nil)
	for _, tc := range []struct {
		name    string
		offset  time.Duration
		since   bool // If-Modified-Since, else If-Unmodified-Since
		deletes bool
	}{
		{"modified since 10s before", -10 * time.Second, true, true},
		{"modified since 10s after", 10 * time.Second, true, false},
		{"unmodified since 10s after", 10 * time.Second, false, true},
		{"unmodified since 10s before", -10 * time.Second, false, false},
	} {
		bb := cc.NewBlockBlobClient(tc.name)
		upload(t, bb, []byte("x"), &blockblob.UploadOptions{Tier: ptr(blob.AccessTierHot)})
		p := props(t, bb.BlobClient())
		if p.AccessTierChangeTime == nil {
			t.Fatalf("%s: a blob uploaded with a tier has no x-ms-access-tier-change-time", tc.name)
		}
		at := p.AccessTierChangeTime.Add(tc.offset)
		cond := &blob.AccessTierConditions{IfUnmodifiedSince: &at}
		if tc.since {
			cond = &blob.AccessTierConditions{IfModifiedSince: &at}
		}
		_, err := bb.Delete(t.Context(), &blob.DeleteOptions{AccessTierConditions: cond})
		if tc.deletes {
			must(t, err, "Delete Blob with access tier %s", tc.name)
			continue
		}
		checkErr(t, err, http.StatusPreconditionFailed, "AccessTierChangeTimeConditionNotMet", "Delete Blob with access tier %s", tc.name)
		props(t, bb.BlobClient()) // still there
	}
}
