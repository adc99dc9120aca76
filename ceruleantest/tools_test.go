package ceruleantest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"

	"github.com/cerulean-db/cerulean/ceruleantest"
)

// TestClockExpiresALease: a 15 s lease expires at once when the test
// moves the clock 16 s.
func TestClockExpiresALease(t *testing.T) {
	srv := ceruleantest.Start(t, ceruleantest.WithTestClock())
	ctx := context.Background()
	blobs, err := azblob.NewClientFromConnectionString(srv.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blobs.CreateContainer(ctx, "leases", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := blobs.UploadBuffer(ctx, "leases", "b", []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	b := blobs.ServiceClient().NewContainerClient("leases").NewBlobClient("b")
	first, _ := lease.NewBlobClient(b, nil)
	second, _ := lease.NewBlobClient(b, nil)
	if _, err := first.AcquireLease(ctx, 15, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := second.AcquireLease(ctx, 15, nil); err == nil {
		t.Fatal("a second lease was granted while the first is held")
	}
	before := srv.Now()
	if now, err := srv.AdvanceClock(16 * time.Second); err != nil || now.Sub(before) < 16*time.Second {
		t.Fatalf("AdvanceClock: %v, %v", now, err)
	}
	if _, err := second.AcquireLease(ctx, 15, nil); err != nil {
		t.Fatalf("the first lease did not expire: %v", err)
	}
	if _, err := ceruleantest.Start(t).AdvanceClock(time.Second); !errors.Is(err, ceruleantest.ErrNoTestClock) {
		t.Errorf("AdvanceClock without a test clock: %v", err)
	}
}

// TestFaultsAndRetries: with half the Put Blob requests throttled, the
// SDK's default retry policy completes every upload, and /metrics counts
// the injected faults.
func TestFaultsAndRetries(t *testing.T) {
	srv := ceruleantest.Start(t, ceruleantest.WithFaults("blob/PutBlob=busy@50%;retry-after=5ms"))
	ctx := context.Background()
	blobs, err := azblob.NewClientFromConnectionString(srv.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blobs.CreateContainer(ctx, "retries", nil); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if _, err := blobs.UploadBuffer(ctx, "retries", fmt.Sprint(i), bytes.Repeat([]byte("y"), i), nil); err != nil {
			t.Fatalf("upload %d: %v", i, err)
		}
	}
	resp, err := http.Get(srv.AdminURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	want := `cerulean_injected_faults_total{kind="busy",operation="PutBlob",service="blob"} 99`
	if !strings.Contains(string(body), want) {
		t.Errorf("/metrics lacks %s", want)
	}
	if err := srv.SetFaults("blob=explode@1%"); err == nil {
		t.Error("SetFaults accepted an unknown kind")
	}
	if err := srv.SetFaults(""); err != nil {
		t.Fatal(err)
	}
}
