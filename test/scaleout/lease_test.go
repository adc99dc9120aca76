package scaleout_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
)

// leasedBlob is the blob "l" in container "leases" as client i's front end
// serves it.
func leasedBlob(d *deployment, i int) *blockblob.Client {
	return d.blob(i).ServiceClient().NewContainerClient("leases").NewBlockBlobClient("l")
}

// startLeaseDeployment starts a deployment with container "leases"
// holding the blob leasedBlob names, its content "v0".
func startLeaseDeployment(t *testing.T) *deployment {
	t.Helper()
	d := startDeployment(t)
	if _, err := d.blob(0).CreateContainer(t.Context(), "leases", nil); err != nil {
		t.Fatal(err)
	}
	if err := upload(leasedBlob(d, 0), t, "v0", ""); err != nil {
		t.Fatal(err)
	}
	return d
}

func upload(bb *blockblob.Client, t *testing.T, body, leaseID string) error {
	var o *blockblob.UploadOptions
	if leaseID != "" {
		o = &blockblob.UploadOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: &leaseID}}}
	}
	_, err := bb.Upload(t.Context(), streaming.NopCloser(strings.NewReader(body)), o)
	return err
}

func contentOf(t *testing.T, bb *blockblob.Client) string {
	t.Helper()
	resp, err := bb.DownloadStream(t.Context(), nil)
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantRefused checks that err is the status and error code Azure answers.
func wantRefused(t *testing.T, err error, status int, code, what string) {
	t.Helper()
	if statusOf(err) != status || errorCode(err) != code {
		t.Errorf("%s: got %v, want %d %s", what, err, status, code)
	}
}

// TestBlobLeaseAcrossFrontEnds: a lease acquired through front end 0
// binds the blob on all of them. Writers without the lease, or with
// another, are refused on front ends 1 and 2 as Azure refuses them
// (412 LeaseIdMissing / LeaseIdMismatchWithBlobOperation, 409
// LeaseAlreadyPresent for a second acquire), while the holder writes
// through front end 1; after the release through front end 2 anyone
// writes again.
func TestBlobLeaseAcrossFrontEnds(t *testing.T) {
	t.Parallel()
	d := startLeaseDeployment(t)
	ctx := t.Context()
	holder, other := "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"
	lc, err := lease.NewBlobClient(leasedBlob(d, 0), &lease.BlobClientOptions{LeaseID: &holder})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.AcquireLease(ctx, -1, nil); err != nil {
		t.Fatalf("acquire through front end 0: %v", err)
	}

	for fe := 1; fe < frontEnds; fe++ {
		bb := leasedBlob(d, fe)
		wantRefused(t, upload(bb, t, "intruder", ""), http.StatusPreconditionFailed, "LeaseIdMissing",
			fmt.Sprintf("Put Blob without the lease through front end %d", fe))
		wantRefused(t, upload(bb, t, "intruder", other), http.StatusPreconditionFailed, "LeaseIdMismatchWithBlobOperation",
			fmt.Sprintf("Put Blob with another lease through front end %d", fe))
		_, err := bb.SetMetadata(ctx, map[string]*string{"k": new("v")}, nil)
		wantRefused(t, err, http.StatusPreconditionFailed, "LeaseIdMissing", fmt.Sprintf("Set Blob Metadata without the lease through front end %d", fe))
		_, err = bb.Delete(ctx, nil)
		wantRefused(t, err, http.StatusPreconditionFailed, "LeaseIdMissing", fmt.Sprintf("Delete Blob without the lease through front end %d", fe))
		olc, err := lease.NewBlobClient(bb, &lease.BlobClientOptions{LeaseID: &other})
		if err != nil {
			t.Fatal(err)
		}
		_, err = olc.AcquireLease(ctx, -1, nil)
		wantRefused(t, err, http.StatusConflict, "LeaseAlreadyPresent", fmt.Sprintf("second acquire through front end %d", fe))
		if got := contentOf(t, bb); got != "v0" {
			t.Fatalf("front end %d serves %q after refused writes, want v0", fe, got)
		}
	}

	if err := upload(leasedBlob(d, 1), t, "holder", holder); err != nil {
		t.Fatalf("the holder's Put Blob through front end 1: %v", err)
	}
	for fe := range frontEnds {
		if got := contentOf(t, leasedBlob(d, fe)); got != "holder" {
			t.Errorf("front end %d serves %q, want the holder's write", fe, got)
		}
	}
	props, err := leasedBlob(d, 2).GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if props.LeaseState == nil || *props.LeaseState != lease.StateTypeLeased {
		t.Errorf("front end 2 reports lease state %v after the holder's write, want leased", props.LeaseState)
	}

	rlc, err := lease.NewBlobClient(leasedBlob(d, 2), &lease.BlobClientOptions{LeaseID: &holder})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rlc.ReleaseLease(ctx, nil); err != nil {
		t.Fatalf("release through front end 2: %v", err)
	}
	if err := upload(leasedBlob(d, 1), t, "free", ""); err != nil {
		t.Fatalf("Put Blob without a lease after the release, through front end 1: %v", err)
	}
	if got := contentOf(t, leasedBlob(d, 0)); got != "free" {
		t.Errorf("front end 0 serves %q, want free", got)
	}
}

// TestBlobLeaseRaceAcrossFrontEnds: in each round one client per front
// end tries to acquire the free blob with its own lease ID at the same
// time; exactly one wins (the others get 409 LeaseAlreadyPresent), and
// only the winner's Put Blob succeeds before it releases.
func TestBlobLeaseRaceAcrossFrontEnds(t *testing.T) {
	t.Parallel()
	d := startLeaseDeployment(t)
	ctx := t.Context()
	const rounds = 20
	for r := range rounds {
		won := make([]bool, frontEnds)
		var wg sync.WaitGroup
		for fe := range frontEnds {
			id := fmt.Sprintf("%08d-0000-0000-0000-%012d", r, fe)
			lc, err := lease.NewBlobClient(leasedBlob(d, fe), &lease.BlobClientOptions{LeaseID: &id})
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				_, err := lc.AcquireLease(ctx, -1, nil)
				switch {
				case err == nil:
					won[fe] = true
				case statusOf(err) != http.StatusConflict || errorCode(err) != "LeaseAlreadyPresent":
					t.Errorf("round %d, front end %d: acquire: %v", r, fe, err)
				}
			})
		}
		wg.Wait()
		winner, winners := -1, 0
		for fe, w := range won {
			if w {
				winner, winners = fe, winners+1
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d front ends granted the lease (%v), want exactly one", r, winners, won)
		}
		for fe := range frontEnds {
			id := fmt.Sprintf("%08d-0000-0000-0000-%012d", r, fe)
			err := upload(leasedBlob(d, (fe+1)%frontEnds), t, fmt.Sprintf("r%d", r), id)
			if fe == winner && err != nil {
				t.Fatalf("round %d: the winner's write: %v", r, err)
			}
			if fe != winner {
				wantRefused(t, err, http.StatusPreconditionFailed, "LeaseIdMismatchWithBlobOperation", fmt.Sprintf("round %d: a loser's write", r))
			}
		}
		id := fmt.Sprintf("%08d-0000-0000-0000-%012d", r, winner)
		lc, err := lease.NewBlobClient(leasedBlob(d, winner+1), &lease.BlobClientOptions{LeaseID: &id})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lc.ReleaseLease(ctx, nil); err != nil {
			t.Fatalf("round %d: release through another front end: %v", r, err)
		}
	}
}
