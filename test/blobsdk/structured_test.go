package blobsdk_test

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

func smValidation(seg int) blob.TransferValidationType {
	return blob.TransferValidationTypeComputeStructuredMessageCRC64(seg)
}

// The SDK's structured-message transfer validation works for every kind
// of upload, and the server echoes x-ms-structured-body on each.
func TestStructuredUploads(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(testkit.Name("xsm"), nil)
	data := testkit.RandBytes(11, 10_000)
	echoed := func(raw *http.Response, what string) {
		t.Helper()
		if got := raw.Header.Get("x-ms-structured-body"); got != testkit.XSMHeader {
			t.Errorf("%s: x-ms-structured-body %q, want %q", what, got, testkit.XSMHeader)
		}
	}

	var raw *http.Response
	bb := cc.NewBlockBlobClient("put")
	_, err := bb.Upload(policy.WithCaptureResponse(t.Context(), &raw), rsc(data), &blockblob.UploadOptions{TransactionalValidation: smValidation(1000)})
	must(t, err, "Put Blob with a structured body")
	echoed(raw, "Put Blob")
	expectContent(t, bb.BlobClient(), data, "Put Blob with a structured body")

	empty := cc.NewBlockBlobClient("empty")
	_, err = empty.Upload(t.Context(), rsc(nil), &blockblob.UploadOptions{TransactionalValidation: smValidation(0)})
	must(t, err, "empty Put Blob with a structured body")
	expectContent(t, empty.BlobClient(), []byte{}, "empty structured Put Blob")

	staged := cc.NewBlockBlobClient("staged")
	for i, part := range [][]byte{data[:4000], data[4000:]} {
		_, err := staged.StageBlock(policy.WithCaptureResponse(t.Context(), &raw), blockID(i), rsc(part), &blockblob.StageBlockOptions{TransactionalValidation: smValidation(512)})
		must(t, err, "Put Block %d with a structured body", i)
		echoed(raw, "Put Block")
	}
	_, err = staged.CommitBlockList(t.Context(), []string{blockID(0), blockID(1)}, nil)
	must(t, err, "commit structured blocks")
	expectContent(t, staged.BlobClient(), data, "blocks staged with structured bodies")

	ab := cc.NewAppendBlobClient("appended")
	_, err = ab.Create(t.Context(), nil)
	must(t, err, "create append blob")
	resp, err := ab.AppendBlock(policy.WithCaptureResponse(t.Context(), &raw), rsc(data), &appendblob.AppendBlockOptions{TransactionalValidation: smValidation(4096)})
	must(t, err, "Append Block with a structured body")
	echoed(raw, "Append Block")
	if resp.BlobAppendOffset == nil || *resp.BlobAppendOffset != "0" {
		t.Errorf("append offset %v, want 0", deref(resp.BlobAppendOffset))
	}
	expectContent(t, ab.BlobClient(), data, "structured Append Block")

	pb := cc.NewPageBlobClient("pages")
	_, err = pb.Create(t.Context(), 4096, nil)
	must(t, err, "create page blob")
	pages := data[:1024]
	_, err = pb.UploadPages(policy.WithCaptureResponse(t.Context(), &raw), rsc(pages), blob.HTTPRange{Offset: 512, Count: 1024}, &pageblob.UploadPagesOptions{TransactionalValidation: smValidation(300)})
	must(t, err, "Put Page with a structured body")
	echoed(raw, "Put Page")
	want := make([]byte, 4096)
	copy(want[512:], pages)
	expectContent(t, pb.BlobClient(), want, "structured Put Page")

	// A body over the inline limit goes through the staged path.
	big := testkit.RandBytes(12, 5<<20+123)
	large := cc.NewBlockBlobClient("large")
	_, err = large.Upload(t.Context(), rsc(big), &blockblob.UploadOptions{TransactionalValidation: smValidation(1 << 20)})
	must(t, err, "5 MiB Put Blob with a structured body")
	expectContent(t, large.BlobClient(), big, "large structured Put Blob")
}

// Downloads asked for as structured messages decode (the SDK verifies
// every CRC64), ranged or not, up to 4 MiB.
func TestStructuredDownload(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(testkit.Name("xsmget"), nil)
	data := testkit.RandBytes(13, 5<<20)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, data, nil)
	bc := bb.BlobClient()

	var raw *http.Response
	resp, err := bc.DownloadStream(policy.WithCaptureResponse(t.Context(), &raw), &blob.DownloadStreamOptions{
		Range: blob.HTTPRange{Offset: 100, Count: 4 << 20}, TransactionalValidation: smValidation(0),
	})
	must(t, err, "structured ranged download")
	got, err := io.ReadAll(resp.Body)
	must(t, err, "read structured download")
	if !bytes.Equal(got, data[100:100+4<<20]) {
		t.Fatalf("structured download: content differs")
	}
	if raw.Header.Get("x-ms-structured-body") != testkit.XSMHeader || raw.Header.Get("x-ms-structured-content-length") != strconv.Itoa(4<<20) {
		t.Errorf("structured download headers: %q %q", raw.Header.Get("x-ms-structured-body"), raw.Header.Get("x-ms-structured-content-length"))
	}
	if raw.StatusCode != http.StatusPartialContent {
		t.Errorf("status %d, want 206", raw.StatusCode)
	}

	small := cc.NewBlockBlobClient("small")
	upload(t, small, data[:3000], nil)
	resp, err = small.BlobClient().DownloadStream(t.Context(), &blob.DownloadStreamOptions{TransactionalValidation: smValidation(0)})
	must(t, err, "structured whole-blob download")
	got, err = io.ReadAll(resp.Body)
	must(t, err, "read structured whole-blob download")
	if !bytes.Equal(got, data[:3000]) {
		t.Fatalf("structured whole-blob download: content differs")
	}

	_, err = bc.DownloadStream(t.Context(), &blob.DownloadStreamOptions{
		Range: blob.HTTPRange{Offset: 0, Count: 4<<20 + 1}, TransactionalValidation: smValidation(0),
	})
	mustErr(t, err, 400, bloberror.OutOfRangeInput, "structured download over 4 MiB")
}

// A structured body with a wrong checksum, or one whose framing does not
// match its headers, is refused with Azure's error and stores nothing.
func TestStructuredUploadRejected(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(testkit.Name("xsmbad"), nil)
	sign := f.signer()
	data := testkit.RandBytes(14, 3000)
	put := func(name string, body []byte, contentLen int, hdr map[string]string) testkit.Response {
		h := map[string]string{
			"x-ms-blob-type": "BlockBlob", "x-ms-structured-body": testkit.XSMHeader,
			"x-ms-structured-content-length": strconv.Itoa(contentLen),
		}
		for k, v := range hdr {
			h[k] = v
		}
		return sign.Send(t, testkit.Request{Method: http.MethodPut, URL: cc.NewBlobClient(name).URL(), Header: h, Body: body})
	}

	good := testkit.EncodeXSM(data, 1000)
	if r := put("ok", good, len(data), nil); r.Check(t, http.StatusCreated, "", "hand-encoded structured Put Blob") {
		if r.Header.Get("x-ms-structured-body") != testkit.XSMHeader {
			t.Errorf("x-ms-structured-body not echoed")
		}
		expectContent(t, cc.NewBlobClient("ok"), data, "hand-encoded structured Put Blob")
	}

	segFlip := append([]byte(nil), good...)
	segFlip[13+10+5] ^= 0x40 // a data byte of segment 1
	put("seg", segFlip, len(data), nil).Check(t, http.StatusBadRequest, "Crc64Mismatch", "corrupted segment")
	trailer := append([]byte(nil), good...)
	trailer[len(trailer)-2] ^= 1
	put("trailer", trailer, len(data), nil).Check(t, http.StatusBadRequest, "Crc64Mismatch", "corrupted trailer")
	put("len", good, len(data)-1, nil).Check(t, http.StatusBadRequest, "InvalidInput", "content length smaller than the message's")
	put("md5", good, len(data), map[string]string{"x-ms-content-crc64": "AAAAAAAAAAA="}).Check(t, http.StatusBadRequest, "InvalidInput", "structured body with x-ms-content-crc64")
	put("hdr", good, len(data), map[string]string{"x-ms-structured-body": "XSM/2.0; properties=crc64"}).Check(t, http.StatusBadRequest, "InvalidHeaderValue", "unknown structured body version")

	// Big enough to be staged before the checksum fails.
	bigData := testkit.RandBytes(15, 5<<20)
	big := testkit.EncodeXSM(bigData, 1<<20)
	big[len(big)-20] ^= 1 // inside the last segment
	put("big", big, len(bigData), nil).Check(t, http.StatusBadRequest, "Crc64Mismatch", "large corrupted message")

	for _, name := range []string{"seg", "trailer", "len", "md5", "hdr", "big"} {
		_, err := cc.NewBlobClient(name).GetProperties(t.Context(), nil)
		mustErr(t, err, 404, bloberror.BlobNotFound, "blob after a rejected structured upload")
	}
}
