package blobsdk_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// A transactional CRC64 is verified against the bytes received, echoed
// back, and a wrong one stores nothing — for a staged block and an
// appended block alike.
func TestTransactionalCRC64(t *testing.T) {
	f := newFixture(t)
	cc := f.createContainer(testkit.Name("crc"), nil)
	data := testkit.RandBytes(7, 5000)

	bb := cc.NewBlockBlobClient("staged")
	id := blockID(0)
	resp, err := bb.StageBlock(t.Context(), id, rsc(data), &blockblob.StageBlockOptions{
		TransactionalValidation: blob.TransferValidationTypeComputeCRC64(),
	})
	testkit.Must(t, err, "stage block with CRC64")
	want := binary.LittleEndian.AppendUint64(nil, testkit.AzureCRC64(data))
	if !bytes.Equal(resp.ContentCRC64, want) {
		t.Fatalf("echoed x-ms-content-crc64 %x, want %x", resp.ContentCRC64, want)
	}

	_, err = bb.StageBlock(t.Context(), blockID(1), rsc(data), &blockblob.StageBlockOptions{
		TransactionalValidation: blob.TransferValidationTypeCRC64(testkit.AzureCRC64(data) ^ 1),
	})
	testkit.MustErr(t, err, 400, bloberror.CRC64Mismatch, "stage block with a wrong CRC64")
	list, err := bb.GetBlockList(t.Context(), blockblob.BlockListTypeUncommitted, nil)
	testkit.Must(t, err, "get block list")
	if n := len(list.UncommittedBlocks); n != 1 {
		t.Fatalf("%d uncommitted blocks after a rejected one, want 1", n)
	}

	ab := cc.NewAppendBlobClient("appended")
	_, err = ab.Create(t.Context(), nil)
	testkit.Must(t, err, "create append blob")
	_, err = ab.AppendBlock(t.Context(), rsc(data), &appendblob.AppendBlockOptions{
		TransactionalValidation: blob.TransferValidationTypeCRC64(testkit.AzureCRC64(data) + 1),
	})
	testkit.MustErr(t, err, 400, bloberror.CRC64Mismatch, "append with a wrong CRC64")
	_, err = ab.AppendBlock(t.Context(), rsc(data), &appendblob.AppendBlockOptions{
		TransactionalValidation: blob.TransferValidationTypeCRC64(testkit.AzureCRC64(data)),
	})
	testkit.Must(t, err, "append with the right CRC64")
	expectContent(t, ab.BlobClient(), data, "append blob after one rejected and one accepted append")
}
