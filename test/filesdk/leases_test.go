package filesdk_test

import (
	"bytes"
	"errors"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/lease"

	"github.com/cerulean-db/cerulean/internal/servertest"
)

const (
	leaseA = "a0000000-0000-0000-0000-00000000000a"
	leaseB = "b0000000-0000-0000-0000-00000000000b"
	leaseC = "c0000000-0000-0000-0000-00000000000c"
)

// exactHeader is a pipeline policy that replaces one header the SDK sets
// under its lower-case name, which Header.Set would add beside it.
type exactHeader struct{ name, value string }

func (p exactHeader) Do(req *policy.Request) (*http.Response, error) {
	req.Raw().Header[p.name] = []string{p.value}
	return req.Next()
}

// wantStatus fails unless err is an Azure error with the given status and
// code.
func wantStatus(t *testing.T, err error, status int, code string) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != status || re.ErrorCode != code {
		t.Fatalf("got %v, want %d %s", err, status, code)
	}
}

func withLease(id string) *file.LeaseAccessConditions {
	return &file.LeaseAccessConditions{LeaseID: to.Ptr(id)}
}

// wantLease checks the lease headers of Get File Properties.
// leaseClient returns a lease client on fc that uses lease ID id.
func leaseClient(t *testing.T, fc *file.Client, id string) *lease.FileClient {
	t.Helper()
	lc, err := lease.NewFileClient(fc, &lease.FileClientOptions{LeaseID: to.Ptr(id)})
	if err != nil {
		t.Fatal(err)
	}
	return lc
}

// acquireLease takes the (infinite) lease id on fc.
func acquireLease(t *testing.T, fc *file.Client, id string) *lease.FileClient {
	t.Helper()
	lc := leaseClient(t, fc, id)
	if _, err := lc.Acquire(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	return lc
}

func wantLease(t *testing.T, fc *file.Client, state, status, duration string) {
	t.Helper()
	p, err := fc.GetProperties(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	gotState, gotStatus, gotDuration := "", "", ""
	if p.LeaseState != nil {
		gotState = string(*p.LeaseState)
	}
	if p.LeaseStatus != nil {
		gotStatus = string(*p.LeaseStatus)
	}
	if p.LeaseDuration != nil {
		gotDuration = string(*p.LeaseDuration)
	}
	if gotState != state || gotStatus != status || gotDuration != duration {
		t.Errorf("lease %s/%s/%s, want %s/%s/%s", gotState, gotStatus, gotDuration, state, status, duration)
	}
}

// TestFileLease: an acquired lease locks writes and deletes to its
// holder, leaves reads open, and can be changed, broken and released.
func TestFileLease(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "leases")
	fc := sc.NewRootDirectoryClient().NewFileClient("locked.bin")
	createFile(t, fc, 1024)
	wantLease(t, fc, "available", "unlocked", "")
	lc := leaseClient(t, fc, leaseA)
	acq, err := lc.Acquire(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if acq.LeaseID == nil || *acq.LeaseID != leaseA {
		t.Fatalf("acquire answered lease %v", acq.LeaseID)
	}
	wantLease(t, fc, "leased", "locked", "infinite")
	other := leaseClient(t, fc, leaseB)
	_, err = other.Acquire(ctx, nil)
	wantStatus(t, err, http.StatusConflict, "LeaseAlreadyPresent")

	body := func() *bytes.Reader { return bytes.NewReader([]byte("leased bytes")) }
	_, err = fc.UploadRange(ctx, 0, streaming.NopCloser(body()), nil)
	wantStatus(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	_, err = fc.UploadRange(ctx, 0, streaming.NopCloser(body()), &file.UploadRangeOptions{LeaseAccessConditions: withLease(leaseB)})
	wantStatus(t, err, http.StatusPreconditionFailed, "LeaseIdMismatchWithFileOperation")
	if _, err := fc.UploadRange(ctx, 0, streaming.NopCloser(body()), &file.UploadRangeOptions{LeaseAccessConditions: withLease(leaseA)}); err != nil {
		t.Fatalf("Put Range with the lease ID: %v", err)
	}
	_, err = fc.SetMetadata(ctx, &file.SetMetadataOptions{Metadata: map[string]*string{"k": to.Ptr("v")}})
	wantStatus(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	if _, err := fc.SetMetadata(ctx, &file.SetMetadataOptions{Metadata: map[string]*string{"k": to.Ptr("v")}, LeaseAccessConditions: withLease(leaseA)}); err != nil {
		t.Fatalf("Set Metadata with the lease ID: %v", err)
	}
	_, err = fc.Create(ctx, 10, nil)
	wantStatus(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	_, err = fc.Delete(ctx, nil)
	wantStatus(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	if got := download(t, fc, file.HTTPRange{Count: 12}); string(got) != "leased bytes" {
		t.Errorf("read without the lease ID: %q", got)
	}

	_, err = other.Change(ctx, leaseC, nil)
	wantStatus(t, err, http.StatusConflict, "LeaseIdMismatchWithLeaseOperation")
	if _, err := lc.Change(ctx, leaseB, nil); err != nil {
		t.Fatalf("change: %v", err)
	}
	_, err = fc.SetMetadata(ctx, &file.SetMetadataOptions{LeaseAccessConditions: withLease(leaseA)})
	wantStatus(t, err, http.StatusPreconditionFailed, "LeaseIdMismatchWithFileOperation")
	if _, err := fc.SetMetadata(ctx, &file.SetMetadataOptions{LeaseAccessConditions: withLease(leaseB)}); err != nil {
		t.Fatalf("Set Metadata with the changed lease ID: %v", err)
	}

	// Files have no break period: the break is immediate.
	if _, err := lc.Break(ctx, nil); err != nil {
		t.Fatalf("break: %v", err)
	}
	wantLease(t, fc, "broken", "unlocked", "")
	if _, err := fc.SetMetadata(ctx, nil); err != nil {
		t.Fatalf("write after break: %v", err)
	}
	if _, err := lc.Acquire(ctx, nil); err != nil {
		t.Fatalf("acquire after break: %v", err)
	}
	if _, err := lc.Release(ctx, nil); err != nil {
		t.Fatalf("release: %v", err)
	}
	wantLease(t, fc, "available", "unlocked", "")
	_, err = lc.Release(ctx, nil)
	wantStatus(t, err, http.StatusConflict, "LeaseNotPresentWithLeaseOperation")
	if _, err := fc.Delete(ctx, nil); err != nil {
		t.Fatalf("delete after release: %v", err)
	}
	_, err = lc.Acquire(ctx, nil)
	wantCode(t, err, fileerror.ResourceNotFound)
}

// TestFileLeaseDurationIsInfinite: Lease File takes no fixed duration.
func TestFileLeaseDurationIsInfinite(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sc := f.share(t, "fixed")
	if _, err := sc.NewRootDirectoryClient().NewFileClient("f").Create(t.Context(), 1, nil); err != nil {
		t.Fatal(err)
	}
	fixed := f.fileWith(t, "fixed", "f", exactHeader{"x-ms-lease-duration", "15"})
	lc, err := lease.NewFileClient(fixed, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = lc.Acquire(t.Context(), nil)
	wantStatus(t, err, http.StatusBadRequest, "InvalidHeaderValue")
	lc, err = lease.NewFileClient(f.fileWith(t, "fixed", "f"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.Acquire(t.Context(), nil); err != nil {
		t.Fatalf("acquire with duration -1: %v", err)
	}
}

// TestFileLeaseSurvivesRestart: a lease is part of the file's durable
// record.
func TestFileLeaseSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := newFixture(t, servertest.WithDataDir(dir))
	ctx := t.Context()
	fc := f.share(t, "durable").NewRootDirectoryClient().NewFileClient("f")
	createFile(t, fc, 10)
	acquireLease(t, fc, leaseA)
	if err := f.env.Server.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	g := newFixture(t, servertest.WithDataDir(dir))
	fc2 := g.svc.NewShareClient("durable").NewRootDirectoryClient().NewFileClient("f")
	wantLease(t, fc2, "leased", "locked", "infinite")
	_, err := fc2.SetMetadata(ctx, nil)
	wantStatus(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	lc2 := leaseClient(t, fc2, leaseA)
	if _, err := lc2.Release(ctx, nil); err != nil {
		t.Fatalf("release after restart: %v", err)
	}
}
