package blob_test

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/cerulean-db/cerulean/internal/servertest"
)

// benchClient starts a durable server and returns an SDK client and a fresh
// container.
func benchClient(b *testing.B) (*azblob.Client, string) {
	env := servertest.Start(b, servertest.WithDataDir(b.TempDir()))
	client, err := azblob.NewClientFromConnectionString(env.ConnectionString, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := client.CreateContainer(context.Background(), "bench", nil); err != nil {
		b.Fatal(err)
	}
	return client, "bench"
}

// BenchmarkPutBlob1K measures durable 1 KiB uploads from parallel clients.
func BenchmarkPutBlob1K(b *testing.B) {
	client, container := benchClient(b)
	data := bytes.Repeat([]byte("x"), 1024)
	var n atomic.Int64
	b.SetBytes(int64(len(data)))
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			name := fmt.Sprintf("blob-%d", n.Add(1))
			if _, err := client.UploadBuffer(context.Background(), container, name, data, nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkGetBlob1K measures 1 KiB downloads of one blob from parallel clients.
func BenchmarkGetBlob1K(b *testing.B) {
	client, container := benchClient(b)
	data := bytes.Repeat([]byte("x"), 1024)
	if _, err := client.UploadBuffer(context.Background(), container, "hot", data, nil); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		buf := make([]byte, len(data))
		for pb.Next() {
			if _, err := client.DownloadBuffer(context.Background(), container, "hot", buf, nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
