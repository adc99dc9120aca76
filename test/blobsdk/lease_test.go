package blobsdk_test

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func blobLease(t *testing.T, bb *blockblob.Client, id string) *lease.BlobClient {
	t.Helper()
	opts := &lease.BlobClientOptions{}
	if id != "" {
		opts.LeaseID = &id
	}
	lc, err := lease.NewBlobClient(bb, opts)
	must(t, err, "lease.NewBlobClient")
	return lc
}

// TestLeaseDocumentedFlow: acquire a 15 s lease; a write with the lease ID
// succeeds, one without fails 412; after release anyone may write.
func TestLeaseDocumentedFlow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("lease-flow"), nil)
	bb := cc.NewBlockBlobClient("locked")
	upload(t, bb, []byte("v1"), nil)
	before := props(t, bb.BlobClient())

	lc := blobLease(t, bb, "")
	acq, err := lc.AcquireLease(t.Context(), 15, nil)
	must(t, err, "AcquireLease")
	if deref(acq.LeaseID) != deref(lc.LeaseID()) {
		t.Fatalf("acquired lease id %v, client proposed %v", deref(acq.LeaseID), deref(lc.LeaseID()))
	}
	if !sameETag(etagOf(acq.ETag), etagOf(before.ETag)) {
		t.Fatalf("leasing changed the ETag: %v -> %v", etagOf(before.ETag), etagOf(acq.ETag))
	}
	p := props(t, bb.BlobClient())
	if deref(p.LeaseState) != lease.StateTypeLeased || deref(p.LeaseStatus) != lease.StatusTypeLocked || deref(p.LeaseDuration) != lease.DurationTypeFixed {
		t.Fatalf("lease headers: state %v status %v duration %v", deref(p.LeaseState), deref(p.LeaseStatus), deref(p.LeaseDuration))
	}

	_, err = bb.Upload(t.Context(), rsc([]byte("intruder")), nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "write without the lease id")
	_, err = bb.SetMetadata(t.Context(), map[string]*string{"a": ptr("b")}, nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "set metadata without the lease id")
	_, err = bb.Delete(t.Context(), nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "delete without the lease id")
	wrong := &blob.LeaseAccessConditions{LeaseID: ptr("00000000-0000-0000-0000-000000000000")}
	_, err = bb.Upload(t.Context(), rsc([]byte("intruder")), &blockblob.UploadOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: wrong}})
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMismatchWithBlobOperation, "write with a wrong lease id")
	_, err = bb.DownloadStream(t.Context(), &blob.DownloadStreamOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: wrong}})
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMismatchWithBlobOperation, "read with a wrong lease id")
	expectContent(t, bb.BlobClient(), []byte("v1"), "reads need no lease id (shared read)")

	mine := &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: lc.LeaseID()}}
	_, err = bb.Upload(t.Context(), rsc([]byte("v2")), &blockblob.UploadOptions{AccessConditions: mine})
	must(t, err, "write with the lease id")
	_, err = bb.StageBlock(t.Context(), blockID(1), rsc([]byte("blk")), &blockblob.StageBlockOptions{LeaseAccessConditions: mine.LeaseAccessConditions})
	must(t, err, "stage block with the lease id")
	_, err = bb.StageBlock(t.Context(), blockID(2), rsc([]byte("blk")), nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "stage block without the lease id")
	p = props(t, bb.BlobClient())
	if deref(p.LeaseState) != lease.StateTypeLeased {
		t.Fatalf("overwrite dropped the lease: %v", deref(p.LeaseState))
	}

	_, err = lc.ReleaseLease(t.Context(), nil)
	must(t, err, "ReleaseLease")
	_, err = bb.Upload(t.Context(), rsc([]byte("v3")), nil)
	must(t, err, "write after release")
	_, err = bb.Upload(t.Context(), rsc([]byte("v4")), &blockblob.UploadOptions{AccessConditions: mine})
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseNotPresentWithBlobOperation, "write with a released lease id")
	expectContent(t, bb.BlobClient(), []byte("v3"), "after release")
}

// TestLeaseRace: 16 clients race to acquire the same lease; exactly one wins.
func TestLeaseRace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("lease-race"), nil)
	upload(t, cc.NewBlockBlobClient("contended"), []byte("x"), nil)
	var wins, losses atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			svc := f.newServiceClient()
			bb := svc.NewContainerClient(cc.URL()[len(f.env.BlobURL):]).NewBlockBlobClient("contended")
			lc := blobLease(t, bb, "")
			_, err := lc.AcquireLease(t.Context(), 60, nil)
			if err == nil {
				wins.Add(1)
				return
			}
			if checkErr(t, err, http.StatusConflict, bloberror.LeaseAlreadyPresent, "losing acquire") {
				losses.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 || losses.Load() != 15 {
		t.Fatalf("%d acquires won and %d lost, want 1 and 15", wins.Load(), losses.Load())
	}
}

// TestLeaseExpiryWithClock: a 15 s lease expires exactly at 15 s on the
// server's clock; its ID is then refused on writes (LeaseLost) and anyone
// may write.
func TestLeaseExpiryWithClock(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock(time.Now())
	f := newFixture(t, servertest.WithClock(clock.Now))
	cc := f.createContainer(cname("lease-expiry"), nil)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, []byte("v1"), nil)
	lc := blobLease(t, bb, "")
	_, err := lc.AcquireLease(t.Context(), 15, nil)
	must(t, err, "AcquireLease")
	clock.Advance(14 * time.Second)
	_, err = bb.Upload(t.Context(), rsc([]byte("early")), nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "write 14 s into a 15 s lease")
	clock.Advance(2 * time.Second)
	p := props(t, bb.BlobClient())
	if deref(p.LeaseState) != lease.StateTypeExpired || deref(p.LeaseStatus) != lease.StatusTypeUnlocked {
		t.Fatalf("after 16 s: state %v status %v, want expired/unlocked", deref(p.LeaseState), deref(p.LeaseStatus))
	}
	mine := &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: lc.LeaseID()}}
	_, err = bb.Upload(t.Context(), rsc([]byte("late")), &blockblob.UploadOptions{AccessConditions: mine})
	// LeaseLost: "A lease ID was specified, but the lease for the
	// blob/container has expired" (the REST reference's error codes;
	// recorded for a broken share lease in test_lease_share_break_period).
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseLost, "write with an expired lease id")
	_, err = bb.Upload(t.Context(), rsc([]byte("anyone")), nil)
	must(t, err, "write after expiry without an id")
	_, err = lc.RenewLease(t.Context(), nil)
	must(t, err, "renewing an expired lease")
	_, err = bb.Upload(t.Context(), rsc([]byte("again")), nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "write after renewal")
}

// TestLeaseBreakRealTime breaks leases with period 0 and 1 s over the wire.
func TestLeaseBreakRealTime(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("lease-break"), nil)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, []byte("v1"), nil)
	lc := blobLease(t, bb, "")
	_, err := lc.AcquireLease(t.Context(), -1, nil)
	must(t, err, "AcquireLease infinite")
	if p := props(t, bb.BlobClient()); deref(p.LeaseDuration) != lease.DurationTypeInfinite {
		t.Fatalf("duration %v, want infinite", deref(p.LeaseDuration))
	}
	br, err := lc.BreakLease(t.Context(), &lease.BlobBreakOptions{BreakPeriod: ptr(int32(0))})
	must(t, err, "BreakLease 0")
	if deref(br.LeaseTime) != int32(0) {
		t.Fatalf("lease time %v, want 0", deref(br.LeaseTime))
	}
	if p := props(t, bb.BlobClient()); deref(p.LeaseState) != lease.StateTypeBroken {
		t.Fatalf("state %v, want broken", deref(p.LeaseState))
	}
	_, err = lc.RenewLease(t.Context(), nil)
	mustErr(t, err, http.StatusConflict, bloberror.LeaseIsBrokenAndCannotBeRenewed, "renew a broken lease")

	other := blobLease(t, bb, "")
	_, err = other.AcquireLease(t.Context(), 15, nil)
	must(t, err, "acquire a broken lease")
	br, err = other.BreakLease(t.Context(), &lease.BlobBreakOptions{BreakPeriod: ptr(int32(1))})
	must(t, err, "BreakLease 1")
	if deref(br.LeaseTime) != int32(1) {
		t.Fatalf("lease time %v, want 1", deref(br.LeaseTime))
	}
	if p := props(t, bb.BlobClient()); deref(p.LeaseState) != lease.StateTypeBreaking {
		t.Fatalf("state %v, want breaking", deref(p.LeaseState))
	}
	_, err = blobLease(t, bb, "").AcquireLease(t.Context(), 15, nil)
	mustErr(t, err, http.StatusConflict, bloberror.LeaseAlreadyPresent, "acquire while breaking")
	_, err = bb.Upload(t.Context(), rsc([]byte("x")), nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "write while breaking")
	time.Sleep(1100 * time.Millisecond)
	if p := props(t, bb.BlobClient()); deref(p.LeaseState) != lease.StateTypeBroken {
		t.Fatalf("after the break period: state %v, want broken", deref(p.LeaseState))
	}
	_, err = bb.Upload(t.Context(), rsc([]byte("free")), nil)
	must(t, err, "write after the break")
}

// TestContainerLease: only Delete Container needs the lease ID; other
// operations succeed without it and fail with a wrong one.
func TestContainerLease(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	name := cname("lease-container")
	cc := f.createContainer(name, nil)
	lc, err := lease.NewContainerClient(cc, nil)
	must(t, err, "lease.NewContainerClient")
	_, err = lc.AcquireLease(t.Context(), -1, nil)
	must(t, err, "AcquireLease")
	_, err = cc.SetMetadata(t.Context(), &container.SetMetadataOptions{Metadata: map[string]*string{"k": ptr("v")}})
	must(t, err, "set metadata without the lease id")
	_, err = cc.SetMetadata(t.Context(), &container.SetMetadataOptions{Metadata: map[string]*string{"k": ptr("v")},
		LeaseAccessConditions: &container.LeaseAccessConditions{LeaseID: ptr("11111111-1111-1111-1111-111111111111")}})
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMismatchWithContainerOperation, "set metadata with a wrong lease id")
	_, err = cc.Delete(t.Context(), nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "delete without the lease id")
	upload(t, cc.NewBlockBlobClient("inside"), []byte("ok"), nil)

	p, err := cc.GetProperties(t.Context(), nil)
	must(t, err, "GetProperties")
	if deref(p.LeaseState) != lease.StateTypeLeased || deref(p.LeaseDuration) != lease.DurationTypeInfinite {
		t.Fatalf("container lease headers: %v %v", deref(p.LeaseState), deref(p.LeaseDuration))
	}
	pager := f.svc.NewListContainersPager(nil)
	found := false
	for pager.More() {
		page, err := pager.NextPage(t.Context())
		must(t, err, "list containers")
		for _, it := range page.ContainerItems {
			if deref(it.Name) == name {
				found = true
				if it.Properties.LeaseState == nil || *it.Properties.LeaseState != lease.StateTypeLeased {
					t.Errorf("listed lease state %v", deref(it.Properties.LeaseState))
				}
			}
		}
	}
	if !found {
		t.Fatal("leased container not listed")
	}
	_, err = cc.Delete(t.Context(), &container.DeleteOptions{AccessConditions: &container.AccessConditions{
		LeaseAccessConditions: &container.LeaseAccessConditions{LeaseID: lc.LeaseID()}}})
	must(t, err, "delete with the lease id")
}

// TestLeaseHeadersInListing checks List Blobs' lease properties.
func TestLeaseHeadersInListing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("lease-list"), nil)
	bb := cc.NewBlockBlobClient("leased")
	upload(t, bb, []byte("x"), nil)
	upload(t, cc.NewBlockBlobClient("free"), []byte("y"), nil)
	_, err := blobLease(t, bb, "").AcquireLease(t.Context(), 30, nil)
	must(t, err, "AcquireLease")
	items, _ := listFlat(t, cc, nil)
	for _, it := range items {
		state, status := deref(it.Properties.LeaseState), deref(it.Properties.LeaseStatus)
		switch deref(it.Name) {
		case "leased":
			if state != lease.StateTypeLeased || status != lease.StatusTypeLocked || deref(it.Properties.LeaseDuration) != lease.DurationTypeFixed {
				t.Errorf("leased blob listed as %v/%v/%v", state, status, deref(it.Properties.LeaseDuration))
			}
		case "free":
			if state != lease.StateTypeAvailable || status != lease.StatusTypeUnlocked {
				t.Errorf("free blob listed as %v/%v", state, status)
			}
		}
	}
}

// TestLeaseErrors covers the lease operations' own error paths.
func TestLeaseErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("lease-errors"), nil)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, []byte("x"), nil)
	lc := blobLease(t, bb, "")
	_, err := lc.RenewLease(t.Context(), nil)
	mustErr(t, err, http.StatusConflict, bloberror.LeaseNotPresentWithLeaseOperation, "renew with no lease")
	_, err = lc.AcquireLease(t.Context(), 5, nil)
	mustErr(t, err, http.StatusBadRequest, bloberror.InvalidHeaderValue, "acquire for 5 s")
	_, err = blobLease(t, cc.NewBlockBlobClient("missing"), "").AcquireLease(t.Context(), 15, nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "acquire on a missing blob")
	_, err = lc.AcquireLease(t.Context(), 15, nil)
	must(t, err, "AcquireLease")
	stranger := blobLease(t, bb, "")
	_, err = stranger.ReleaseLease(t.Context(), nil)
	mustErr(t, err, http.StatusConflict, bloberror.LeaseIDMismatchWithLeaseOperation, "release with another id")
	_, err = stranger.ChangeLease(t.Context(), "22222222-2222-2222-2222-222222222222", nil)
	mustErr(t, err, http.StatusConflict, bloberror.LeaseIDMismatchWithLeaseOperation, "change with another id")
	newID := "33333333-3333-3333-3333-333333333333"
	ch, err := lc.ChangeLease(t.Context(), newID, nil)
	must(t, err, "ChangeLease")
	if deref(ch.LeaseID) != newID {
		t.Fatalf("changed lease id %v, want %s", deref(ch.LeaseID), newID)
	}
	stale := p0(props(t, bb.BlobClient()).ETag)
	_, err = blobLease(t, bb, newID).RenewLease(t.Context(), &lease.BlobRenewOptions{ModifiedAccessConditions: &lease.ModifiedAccessConditions{IfNoneMatch: &stale}})
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "renew with a failing condition")
	// A fixed lease broken with no period breaks when it would expire.
	br, err := stranger.BreakLease(t.Context(), nil)
	must(t, err, "BreakLease by anyone")
	if lt := deref(br.LeaseTime).(int32); lt < 13 || lt > 15 {
		t.Fatalf("lease time %d, want the remaining term (about 15 s)", lt)
	}
	_, err = blobLease(t, bb, newID).ChangeLease(t.Context(), "44444444-4444-4444-4444-444444444444", nil)
	mustErr(t, err, http.StatusConflict, bloberror.LeaseIsBreakingAndCannotBeChanged, "change while breaking")
}

func p0(p *azcore.ETag) azcore.ETag { return etagOf(p) }

// TestLeaseOfUncommittedBlob: a blob of uncommitted blocks only can be
// leased. Azure answers the acquire 201 with the placeholder's ETag
// "0x701CE1722770000" and Last-Modified 1601-01-01, and commits the block
// list that names the lease (test/parity recording
// net-BlockBlobClientTests-CommitBlockListAsync_Lease); a block list naming
// a lease the blob does not hold fails 412 LeaseNotPresentWithBlobOperation
// (net-BlockBlobClientTests-CommitBlockListAsync_LeaseFail). No recording
// shows the rest, which is the blob lease rule applied to the placeholder:
// the lease guards the blob's writes as a committed blob's lease does
// (412 LeaseIdMissing without its ID), and the blob keeps it once
// committed.
func TestLeaseOfUncommittedBlob(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("lease-uncommitted"), nil)
	bb := cc.NewBlockBlobClient("staged")
	_, err := bb.StageBlock(t.Context(), blockID(1), rsc([]byte("one")), nil)
	must(t, err, "StageBlock")

	lc := blobLease(t, bb, "")
	acq, err := lc.AcquireLease(t.Context(), -1, nil)
	must(t, err, "AcquireLease on a blob of uncommitted blocks")
	if got := string(etagOf(acq.ETag)); got != `"0x701CE1722770000"` {
		t.Errorf("acquire ETag %s, want the placeholder's \"0x701CE1722770000\"", got)
	}
	if lm := acq.LastModified; lm == nil || !lm.Equal(time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("acquire Last-Modified %v, want 1601-01-01", lm)
	}
	_, err = bb.GetProperties(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "properties of a leased blob with no committed content")

	mine := &blob.LeaseAccessConditions{LeaseID: lc.LeaseID()}
	_, err = bb.StageBlock(t.Context(), blockID(2), rsc([]byte("two")), nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "stage block without the lease id")
	_, err = bb.StageBlock(t.Context(), blockID(2), rsc([]byte("two")), &blockblob.StageBlockOptions{LeaseAccessConditions: mine})
	must(t, err, "stage block with the lease id")
	_, err = bb.Upload(t.Context(), rsc([]byte("intruder")), nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "put blob without the lease id")
	_, err = bb.CommitBlockList(t.Context(), []string{blockID(1), blockID(2)}, nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "commit without the lease id")
	_, err = bb.Delete(t.Context(), nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "delete without the lease id")

	_, err = bb.CommitBlockList(t.Context(), []string{blockID(1), blockID(2)}, &blockblob.CommitBlockListOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: mine}})
	must(t, err, "commit with the lease id")
	expectContent(t, bb.BlobClient(), []byte("onetwo"), "committed under the lease")
	p := props(t, bb.BlobClient())
	if deref(p.LeaseState) != lease.StateTypeLeased || deref(p.LeaseDuration) != lease.DurationTypeInfinite {
		t.Fatalf("committed blob: lease state %v duration %v, want leased, infinite", deref(p.LeaseState), deref(p.LeaseDuration))
	}
	_, err = bb.Upload(t.Context(), rsc([]byte("intruder")), nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "overwrite of the committed blob without the lease id")
	_, err = lc.ReleaseLease(t.Context(), nil)
	must(t, err, "ReleaseLease of the committed blob")

	// A block list naming a lease that a blob of uncommitted blocks does
	// not hold.
	other := cc.NewBlockBlobClient("unleased")
	_, err = other.StageBlock(t.Context(), blockID(1), rsc([]byte("x")), nil)
	must(t, err, "StageBlock")
	stranger := &blob.LeaseAccessConditions{LeaseID: ptr("00000000-0000-0000-0000-000000000001")}
	_, err = other.CommitBlockList(t.Context(), []string{blockID(1)}, &blockblob.CommitBlockListOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: stranger}})
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseNotPresentWithBlobOperation, "commit naming a lease the blob does not hold")

	// Released before the commit, the lease leaves the blob free; deleting
	// the blocks takes a held lease with them.
	third := cc.NewBlockBlobClient("released")
	_, err = third.StageBlock(t.Context(), blockID(1), rsc([]byte("x")), nil)
	must(t, err, "StageBlock")
	tl := blobLease(t, third, "")
	_, err = tl.AcquireLease(t.Context(), 15, nil)
	must(t, err, "AcquireLease")
	_, err = tl.ReleaseLease(t.Context(), nil)
	must(t, err, "ReleaseLease of a blob of uncommitted blocks")
	_, err = third.CommitBlockList(t.Context(), []string{blockID(1)}, nil)
	must(t, err, "commit after release")
	if p := props(t, third.BlobClient()); deref(p.LeaseState) != lease.StateTypeAvailable {
		t.Fatalf("released before the commit: lease state %v", deref(p.LeaseState))
	}
	fourth := cc.NewBlockBlobClient("deleted")
	_, err = fourth.StageBlock(t.Context(), blockID(1), rsc([]byte("x")), nil)
	must(t, err, "StageBlock")
	fl := blobLease(t, fourth, "")
	_, err = fl.AcquireLease(t.Context(), -1, nil)
	must(t, err, "AcquireLease")
	_, err = fourth.Delete(t.Context(), &blob.DeleteOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: fl.LeaseID()}}})
	must(t, err, "delete the uncommitted blocks with the lease id")
	_, err = fourth.StageBlock(t.Context(), blockID(1), rsc([]byte("y")), nil)
	must(t, err, "stage again once the blocks and their lease are gone")

	// Deleting the container takes a held lease of uncommitted blocks
	// with it. The server's stored invariants, checked as it stops, hold
	// that every such lease has blocks, and no record, beside it.
	left := cc.NewBlockBlobClient("left")
	_, err = left.StageBlock(t.Context(), blockID(1), rsc([]byte("x")), nil)
	must(t, err, "StageBlock")
	_, err = blobLease(t, left, "").AcquireLease(t.Context(), -1, nil)
	must(t, err, "AcquireLease")
	_, err = cc.Delete(t.Context(), nil)
	must(t, err, "Delete Container")
}
