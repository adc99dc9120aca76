package powerloss_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

const blobKeys = 4

// blobLoad writes block blobs with Put Blob, and with Put Block then Put
// Block List, each conditional on the ETag the worker last saw (or on the
// blob not existing), and deletes them conditionally.
type blobLoad struct{ cc *container.Client }

func (*blobLoad) name() string { return "blob" }

func (l *blobLoad) connect(n *node) error {
	svc, err := service.NewClientFromConnectionString(n.connectionString, &service.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		return err
	}
	l.cc = svc.NewContainerClient("powerloss")
	return nil
}

func (l *blobLoad) setup(ctx context.Context) error {
	_, err := l.cc.Create(ctx, nil)
	return err
}

func blobConditions(it item, exists bool) *blob.AccessConditions {
	if !exists {
		return &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: ptr(azcore.ETagAny)}}
	}
	return &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: ptr(azcore.ETag(it.etag))}}
}

func (l *blobLoad) step(ctx context.Context, w *worker) error {
	key := fmt.Sprintf("w%d/b%d", w.id, w.rng.IntN(blobKeys))
	cur, exists := w.state[key]
	bb := l.cc.NewBlockBlobClient(key)
	r := w.rng.IntN(10)
	if exists && r < 2 {
		w.begin(map[string]string{key: ""})
		if _, err := bb.Delete(ctx, &blob.DeleteOptions{AccessConditions: blobConditions(cur, true)}); err != nil {
			return fmt.Errorf("delete blob %s: %w", key, err)
		}
		return w.commit(map[string]item{key: {}})
	}
	size := 1 + w.rng.IntN(16<<10)
	switch w.rng.IntN(40) {
	case 0:
		// Past the inline limit (4 MiB) the content is staged first, in
		// transactions of 8 MiB, and swept at start if a crash cut it off.
		size = 4<<20 + w.rng.IntN(6<<20)
	case 1, 2, 3, 4:
		size = 1 + w.rng.IntN(256<<10)
	}
	data, sum := w.payload(size)
	w.begin(map[string]string{key: sum})
	var etag *azcore.ETag
	if r < 6 {
		resp, err := bb.Upload(ctx, streaming.NopCloser(bytes.NewReader(data)), &blockblob.UploadOptions{AccessConditions: blobConditions(cur, exists)})
		if err != nil {
			return fmt.Errorf("put blob %s: %w", key, err)
		}
		etag = resp.ETag
	} else {
		// Block ids of one blob must all have the same length.
		var ids []string
		op := w.opID()
		parts := 1 + w.rng.IntN(3)
		for i := range parts {
			id := base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "%-40s%02d", op, i))
			part := data[i*len(data)/parts : (i+1)*len(data)/parts]
			if _, err := bb.StageBlock(ctx, id, streaming.NopCloser(bytes.NewReader(part)), nil); err != nil {
				return fmt.Errorf("put block %s: %w", key, err)
			}
			ids = append(ids, id)
		}
		resp, err := bb.CommitBlockList(ctx, ids, &blockblob.CommitBlockListOptions{AccessConditions: blobConditions(cur, exists)})
		if err != nil {
			return fmt.Errorf("put block list %s: %w", key, err)
		}
		etag = resp.ETag
	}
	if etag == nil {
		return fmt.Errorf("write of blob %s: no ETag", key)
	}
	return w.commit(map[string]item{key: {content: sum, etag: string(*etag)}})
}

// observe lists the worker's blobs and reads each: a listed blob must read
// with the ETag it is listed with, and every blob must be listed.
func (l *blobLoad) observe(ctx context.Context, w *worker) (map[string]item, error) {
	prefix := fmt.Sprintf("w%d/", w.id)
	listed := map[string]string{}
	pager := l.cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: &prefix})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list blobs: %w", err)
		}
		for _, b := range page.Segment.BlobItems {
			listed[*b.Name] = string(*b.Properties.ETag)
		}
	}
	out := map[string]item{}
	for k := range blobKeys {
		key := fmt.Sprintf("%sb%d", prefix, k)
		resp, err := l.cc.NewBlobClient(key).DownloadStream(ctx, nil)
		if isStatus(err, 404) {
			if etag, ok := listed[key]; ok {
				return nil, fmt.Errorf("blob %s is listed (ETag %s) but reads as missing", key, etag)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("get blob %s: %w", key, err)
		}
		body, err := io.ReadAll(resp.Body)
		if err := errors.Join(err, resp.Body.Close()); err != nil {
			return nil, fmt.Errorf("read blob %s: %w", key, err)
		}
		// Listings carry the ETag unquoted, as Azure's do.
		etag := string(*resp.ETag)
		if listed[key] != strings.Trim(etag, `"`) {
			return nil, fmt.Errorf("blob %s reads with ETag %s but is listed with %q", key, etag, listed[key])
		}
		delete(listed, key)
		out[key] = item{content: digest(body), etag: etag}
	}
	for key := range listed {
		return nil, fmt.Errorf("blob %s is listed but no worker writes it", key)
	}
	return out, nil
}
