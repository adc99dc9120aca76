package ceruleantest_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/cerulean-db/cerulean/ceruleantest"
)

// TestFaultsAndRetries: with half the Put Blob requests throttled, the
// SDK's default retry policy completes every upload, and /metrics counts
// the injected faults.
func TestFaultsAndRetries(t *testing.T) {
	srv := ceruleantest.Start(t, ceruleantest.WithFaults("blob/PutBlob=busy@50%;retry-after=5ms"))
	ctx := context.Background()
	blobs := connect(t, azblob.NewClientFromConnectionString, srv.ConnectionString)
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
