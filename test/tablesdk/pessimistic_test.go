package tablesdk_test

import (
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
)

// TestPessimisticLock follows Azure's advice for tables that need a lock:
// take a lease on a designated blob, then work on the table. Workers
// doing unconditional (last-writer-wins) read-modify-writes lose nothing
// while they hold the lease, and a second lease is refused meanwhile.
func TestPessimisticLock(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	blobs, err := azblob.NewClientFromConnectionString(f.env.ConnectionString, &azblob.ClientOptions{ClientOptions: policy.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}})
	must(t, err, "blob client")
	_, err = blobs.CreateContainer(ctx, "locks", nil)
	must(t, err, "CreateContainer")
	_, err = blobs.UploadBuffer(ctx, "locks", "orders.lock", nil, nil)
	must(t, err, "upload lock blob")
	lockBlob := blobs.ServiceClient().NewContainerClient("locks").NewBlobClient("orders.lock")

	c := f.newTable()
	_, err = c.AddEntity(ctx, entity("p", "counter", map[string]any{"N": int32(0)}), nil)
	must(t, err, "AddEntity")

	// Probe: the Blob service must implement leases for this pattern.
	probe, err := lease.NewBlobClient(lockBlob, &lease.BlobClientOptions{LeaseID: to.Ptr("00000000-0000-0000-0000-0000000000aa")})
	must(t, err, "lease client")
	if _, err := probe.AcquireLease(ctx, 15, nil); err != nil {
		var re *azcore.ResponseError
		if errors.As(err, &re) && re.StatusCode == http.StatusNotImplemented {
			t.Skip("Lease Blob answers 501 NotImplemented: blob leases are not available yet")
		}
		t.Fatalf("AcquireLease: %v", err)
	}
	// While the probe holds the lease, nobody else gets it.
	other, err := lease.NewBlobClient(lockBlob, &lease.BlobClientOptions{LeaseID: to.Ptr("00000000-0000-0000-0000-0000000000bb")})
	must(t, err, "lease client")
	_, err = other.AcquireLease(ctx, 15, nil)
	wantCode(t, err, http.StatusConflict, "LeaseAlreadyPresent")
	_, err = probe.ReleaseLease(ctx, nil)
	must(t, err, "ReleaseLease")

	const workers, rounds = 4, 8
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			lc, err := lease.NewBlobClient(lockBlob, &lease.BlobClientOptions{LeaseID: to.Ptr("00000000-0000-0000-0000-00000000000" + string(rune('1'+w)))})
			if err != nil {
				errs <- err
				return
			}
			for range rounds {
				if err := withLease(t, lc, func() error {
					e, err := c.GetEntity(ctx, "p", "counter", nil)
					if err != nil {
						return err
					}
					var ent aztables.EDMEntity
					if err := ent.UnmarshalJSON(e.Value); err != nil {
						return err
					}
					// A pause between read and write invites a lost
					// update, which the lease must prevent.
					time.Sleep(time.Millisecond)
					_, err = c.UpsertEntity(ctx, entity("p", "counter", map[string]any{"N": ent.Properties["N"].(int32) + 1}),
						&aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeReplace})
					return err
				}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	e, _ := getEntity(t, c, "p", "counter")
	if got := e.Properties["N"]; got != int32(workers*rounds) {
		t.Fatalf("counter = %v, want %d", got, workers*rounds)
	}
}

// withLease runs fn holding the lease, waiting while another holds it.
// Renewing before the write confirms the lease is still held.
func withLease(t *testing.T, lc *lease.BlobClient, fn func() error) error {
	ctx := t.Context()
	for {
		_, err := lc.AcquireLease(ctx, 15, nil)
		if err == nil {
			break
		}
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.ErrorCode != "LeaseAlreadyPresent" {
			return err
		}
		time.Sleep(2 * time.Millisecond)
	}
	defer func() { _, _ = lc.ReleaseLease(ctx, nil) }()
	if _, err := lc.RenewLease(ctx, nil); err != nil {
		return err
	}
	return fn()
}
