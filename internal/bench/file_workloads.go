package bench

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"
)

// fileWorkload marks workloads that need the Files client.
type fileWorkload interface {
	Workload
	fileService()
}

// newFileClient reaches the connection string's FileEndpoint (Azurite
// has none: the file workloads are cerulean's alone).
func newFileClient(conn string) (*service.Client, error) {
	if !strings.Contains(conn, "FileEndpoint=") {
		return nil, fmt.Errorf("the connection string names no FileEndpoint")
	}
	return service.NewClientFromConnectionString(conn, &service.ClientOptions{ClientOptions: clientOptions()})
}

// filePutRange writes 4 KiB ranges at random page-aligned offsets of a
// 4 MiB file per client, so writers of different files share nothing.
type filePutRange struct {
	share *share.Client
	files []*file.Client
	data  []byte
}

const (
	filePutRangeSize = 4 << 10
	filePutRangeFile = 4 << 20
	// filePutRangeFiles covers the widest run measured (64 clients).
	filePutRangeFiles = 64
)

func (*filePutRange) fileService()                 {}
func (*filePutRange) Verify(context.Context) error { return nil }
func (*filePutRange) Name() string                 { return "file-put-range" }

// Setup makes a share and filePutRangeFiles files: client i writes file
// i modulo that.
func (w *filePutRange) Setup(ctx context.Context, c *Clients) error {
	w.data = bytes.Repeat([]byte("f"), filePutRangeSize)
	w.share = c.Files.NewShareClient(uniqueName("bench-files"))
	if _, err := w.share.Create(ctx, nil); err != nil {
		return err
	}
	for i := range filePutRangeFiles {
		f := w.share.NewRootDirectoryClient().NewFileClient(fmt.Sprintf("f%d", i))
		if _, err := f.Create(ctx, filePutRangeFile, nil); err != nil {
			return err
		}
		w.files = append(w.files, f)
	}
	return nil
}

func (w *filePutRange) Op(ctx context.Context, worker int) (int64, error) {
	off := rand.Int64N(filePutRangeFile/filePutRangeSize) * filePutRangeSize
	_, err := w.files[worker%len(w.files)].UploadRange(ctx, off, nopCloser{bytes.NewReader(w.data)}, nil)
	return filePutRangeSize, err
}
