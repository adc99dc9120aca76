package blobsdk_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"
)

// TestAppendBlob: create, append with position and size conditions, seal.
func TestAppendBlob(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("append"), nil)
	ab := cc.NewAppendBlobClient("log")
	_, err := ab.Create(t.Context(), &appendblob.CreateOptions{HTTPHeaders: &blob.HTTPHeaders{BlobContentType: ptr("text/plain")}})
	must(t, err, "Create append blob")
	var want []byte
	for i := range 5 {
		chunk := []byte(fmt.Sprintf("line %d\n", i))
		r, err := ab.AppendBlock(t.Context(), rsc(chunk), &appendblob.AppendBlockOptions{
			AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{AppendPosition: ptr(int64(len(want)))}})
		must(t, err, "AppendBlock %d", i)
		if deref(r.BlobAppendOffset) != fmt.Sprint(len(want)) || deref(r.BlobCommittedBlockCount) != int32(i+1) {
			t.Fatalf("append %d: offset %v count %v", i, deref(r.BlobAppendOffset), deref(r.BlobCommittedBlockCount))
		}
		want = append(want, chunk...)
	}
	expectContent(t, ab.BlobClient(), want, "append blob")
	p := props(t, ab.BlobClient())
	if deref(p.BlobType) != blob.BlobTypeAppendBlob || deref(p.BlobCommittedBlockCount) != int32(5) {
		t.Fatalf("append blob properties: type %v count %v", deref(p.BlobType), deref(p.BlobCommittedBlockCount))
	}
	r, err := ab.BlobClient().DownloadStream(t.Context(), &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: 7, Count: 7}})
	must(t, err, "ranged read across blocks")
	got, err := io.ReadAll(r.Body)
	_ = r.Body.Close() // fully read; a close error changes nothing
	must(t, err, "read range body")
	if !bytes.Equal(got, want[7:14]) {
		t.Fatalf("range read %q, want %q", got, want[7:14])
	}

	_, err = ab.AppendBlock(t.Context(), rsc([]byte("x")), &appendblob.AppendBlockOptions{
		AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{AppendPosition: ptr(int64(3))}})
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.AppendPositionConditionNotMet, "append at a stale position")
	_, err = ab.AppendBlock(t.Context(), rsc([]byte("xyz")), &appendblob.AppendBlockOptions{
		AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{MaxSize: ptr(int64(len(want) + 2))}})
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.MaxBlobSizeConditionNotMet, "append past the max size")
	_, err = cc.NewBlockBlobClient("log").StageBlock(t.Context(), blockID(1), rsc([]byte("b")), nil)
	mustErr(t, err, http.StatusConflict, bloberror.InvalidBlobType, "Put Block on an append blob")
	_, err = cc.NewAppendBlobClient("missing").AppendBlock(t.Context(), rsc([]byte("x")), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "append to a missing blob")
	bb := cc.NewBlockBlobClient("block")
	upload(t, bb, []byte("block"), nil)
	_, err = cc.NewAppendBlobClient("block").AppendBlock(t.Context(), rsc([]byte("x")), nil)
	mustErr(t, err, http.StatusConflict, bloberror.InvalidBlobType, "append to a block blob")

	_, err = ab.Seal(t.Context(), nil)
	must(t, err, "Seal")
	if p := props(t, ab.BlobClient()); !deref(p.IsSealed).(bool) {
		t.Fatal("sealed blob not reported sealed")
	}
	_, err = ab.AppendBlock(t.Context(), rsc([]byte("late")), nil)
	mustErr(t, err, http.StatusConflict, bloberror.Code("BlobIsSealed"), "append to a sealed blob")
	expectContent(t, ab.BlobClient(), want, "sealed append blob")
}

// TestAppendBlobConcurrentAppends: concurrent appenders never lose or
// interleave a block.
func TestAppendBlobConcurrentAppends(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("append-race"), nil)
	ab := cc.NewAppendBlobClient("log")
	_, err := ab.Create(t.Context(), nil)
	must(t, err, "Create")
	const writers, each = 8, 20
	errs := make(chan error, writers*each)
	done := make(chan struct{})
	for w := range writers {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range each {
				_, err := ab.AppendBlock(t.Context(), rsc([]byte(fmt.Sprintf("[w%d-%02d]", w, i))), nil)
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	for range writers {
		<-done
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := download(t, ab.BlobClient())
	if len(got) != writers*each*len("[w0-00]") {
		t.Fatalf("append blob has %d bytes, want %d", len(got), writers*each*len("[w0-00]"))
	}
	for w := range writers {
		for i := range each {
			if !bytes.Contains(got, []byte(fmt.Sprintf("[w%d-%02d]", w, i))) {
				t.Fatalf("block w%d-%02d missing or torn", w, i)
			}
		}
	}
}

func pageRanges(t *testing.T, pb *pageblob.Client, prev string) (pages, clears [][2]int64) {
	t.Helper()
	collect := func(pl pageblob.PageList) {
		for _, r := range pl.PageRange {
			pages = append(pages, [2]int64{*r.Start, *r.End})
		}
		for _, r := range pl.ClearRange {
			clears = append(clears, [2]int64{*r.Start, *r.End})
		}
	}
	if prev == "" {
		pager := pb.NewGetPageRangesPager(nil)
		for pager.More() {
			page, err := pager.NextPage(t.Context())
			must(t, err, "GetPageRanges")
			collect(page.PageList)
		}
		return
	}
	pager := pb.NewGetPageRangesDiffPager(&pageblob.GetPageRangesDiffOptions{PrevSnapshot: &prev})
	for pager.More() {
		page, err := pager.NextPage(t.Context())
		must(t, err, "GetPageRangesDiff")
		collect(page.PageList)
	}
	return
}

// TestPageBlob: create, write and clear pages, ranges and diffs against a
// snapshot, sequence numbers and resize.
func TestPageBlob(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("pages"), nil)
	pb := cc.NewPageBlobClient("disk")
	_, err := pb.Create(t.Context(), 8*512, &pageblob.CreateOptions{SequenceNumber: ptr(int64(7))})
	must(t, err, "Create page blob")
	p := props(t, pb.BlobClient())
	if deref(p.ContentLength) != any(int64(4096)) || deref(p.BlobSequenceNumber) != any(int64(7)) || deref(p.BlobType) != blob.BlobTypePageBlob {
		t.Fatalf("page blob properties: %v %v %v", deref(p.ContentLength), deref(p.BlobSequenceNumber), deref(p.BlobType))
	}
	expectContent(t, pb.BlobClient(), make([]byte, 4096), "new page blob reads as zeros")

	a := bytes.Repeat([]byte("A"), 1024)
	_, err = pb.UploadPages(t.Context(), rsc(a), blob.HTTPRange{Offset: 512, Count: 1024}, nil)
	must(t, err, "UploadPages 512-1535")
	b := bytes.Repeat([]byte("B"), 512)
	_, err = pb.UploadPages(t.Context(), rsc(b), blob.HTTPRange{Offset: 1024, Count: 512}, nil)
	must(t, err, "UploadPages 1024-1535 over A")
	want := make([]byte, 4096)
	copy(want[512:], a)
	copy(want[1024:], b)
	expectContent(t, pb.BlobClient(), want, "after two writes")
	if pages, _ := pageRanges(t, pb, ""); fmt.Sprint(pages) != "[[512 1535]]" {
		t.Fatalf("page ranges %v, want [[512 1535]]", pages)
	}

	snap, err := pb.CreateSnapshot(t.Context(), nil)
	must(t, err, "snapshot")
	_, err = pb.UploadPages(t.Context(), rsc(bytes.Repeat([]byte("C"), 512)), blob.HTTPRange{Offset: 3072, Count: 512}, nil)
	must(t, err, "UploadPages 3072")
	_, err = pb.ClearPages(t.Context(), blob.HTTPRange{Offset: 512, Count: 512}, nil)
	must(t, err, "ClearPages 512-1023")
	copy(want[3072:], bytes.Repeat([]byte("C"), 512))
	copy(want[512:1024], make([]byte, 512))
	expectContent(t, pb.BlobClient(), want, "after clear")
	if pages, _ := pageRanges(t, pb, ""); fmt.Sprint(pages) != "[[1024 1535] [3072 3583]]" {
		t.Fatalf("page ranges %v", pages)
	}
	pages, clears := pageRanges(t, pb, *snap.Snapshot)
	if fmt.Sprint(pages) != "[[3072 3583]]" || fmt.Sprint(clears) != "[[512 1023]]" {
		t.Fatalf("diff against the snapshot: pages %v clears %v", pages, clears)
	}
	snapClient, _ := pb.WithSnapshot(*snap.Snapshot)
	old := make([]byte, 4096)
	copy(old[512:], a)
	copy(old[1024:], b)
	expectContent(t, snapClient.BlobClient(), old, "snapshot of a page blob")

	// Errors.
	_, err = pb.UploadPages(t.Context(), rsc(make([]byte, 100)), blob.HTTPRange{Offset: 0, Count: 100}, nil)
	mustErr(t, err, http.StatusRequestedRangeNotSatisfiable, bloberror.InvalidPageRange, "unaligned page write")
	_, err = pb.UploadPages(t.Context(), rsc(make([]byte, 512)), blob.HTTPRange{Offset: 4096, Count: 512}, nil)
	mustErr(t, err, http.StatusRequestedRangeNotSatisfiable, bloberror.InvalidPageRange, "page write past the end")
	_, err = pb.UploadPages(t.Context(), rsc(make([]byte, 512)), blob.HTTPRange{Offset: 0, Count: 512},
		&pageblob.UploadPagesOptions{SequenceNumberAccessConditions: &pageblob.SequenceNumberAccessConditions{IfSequenceNumberLessThan: ptr(int64(7))}})
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.SequenceNumberConditionNotMet, "sequence number lt 7")
	_, err = pb.UploadPages(t.Context(), rsc(make([]byte, 512)), blob.HTTPRange{Offset: 0, Count: 512},
		&pageblob.UploadPagesOptions{SequenceNumberAccessConditions: &pageblob.SequenceNumberAccessConditions{IfSequenceNumberEqualTo: ptr(int64(7))}})
	must(t, err, "sequence number eq 7")
	_, err = cc.NewBlockBlobClient("disk").CommitBlockList(t.Context(), nil, nil)
	mustErr(t, err, http.StatusConflict, bloberror.InvalidBlobType, "Put Block List on a page blob")

	// Sequence numbers and resize.
	_, err = pb.UpdateSequenceNumber(t.Context(), &pageblob.UpdateSequenceNumberOptions{ActionType: ptr(pageblob.SequenceNumberActionTypeIncrement)})
	must(t, err, "increment sequence number")
	_, err = pb.UpdateSequenceNumber(t.Context(), &pageblob.UpdateSequenceNumberOptions{ActionType: ptr(pageblob.SequenceNumberActionTypeMax), SequenceNumber: ptr(int64(5))})
	must(t, err, "max sequence number")
	if p := props(t, pb.BlobClient()); deref(p.BlobSequenceNumber) != any(int64(8)) {
		t.Fatalf("sequence number %v, want 8", deref(p.BlobSequenceNumber))
	}
	before := props(t, pb.BlobClient())
	_, err = pb.Resize(t.Context(), 2048, nil)
	must(t, err, "Resize down")
	if p := props(t, pb.BlobClient()); deref(p.ContentLength) != any(int64(2048)) || deref(p.ContentType) != deref(before.ContentType) {
		t.Fatalf("after resize: length %v type %v", deref(p.ContentLength), deref(p.ContentType))
	}
	expectContent(t, pb.BlobClient(), want[:2048], "after shrinking")
	_, err = pb.Resize(t.Context(), 4096, nil)
	must(t, err, "Resize up")
	grown := append(append([]byte(nil), want[:2048]...), make([]byte, 2048)...)
	expectContent(t, pb.BlobClient(), grown, "after growing: dropped pages stay zero")
	_, err = pb.Resize(t.Context(), 1000, nil)
	mustErr(t, err, http.StatusBadRequest, bloberror.InvalidHeaderValue, "resize to an unaligned size")
}

// TestPageBlobBytesFreed: overwriting and clearing pages frees data nobody
// references.
func TestPageBlobBytesFreed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("pages-gc"), nil)
	pb := cc.NewPageBlobClient("disk")
	_, err := pb.Create(t.Context(), 1<<20, nil)
	must(t, err, "Create")
	empty := statStore(t, f.env)
	for i := range 5 {
		_, err = pb.UploadPages(t.Context(), rsc(randBytes(uint64(i), 256<<10)), blob.HTTPRange{Offset: 0, Count: 256 << 10}, nil)
		must(t, err, "overwrite %d", i)
	}
	one := statStore(t, f.env)
	if one.Bytes-empty.Bytes > 260<<10 {
		t.Fatalf("five overwrites of 256 KiB hold %d bytes", one.Bytes-empty.Bytes)
	}
	_, err = pb.ClearPages(t.Context(), blob.HTTPRange{Offset: 0, Count: 1 << 20}, nil)
	must(t, err, "ClearPages")
	if st := statStore(t, f.env); st.Bytes-empty.Bytes > 1<<10 {
		t.Fatalf("after clearing everything %d bytes remain", st.Bytes-empty.Bytes)
	}
}
