package blobsdk_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
)

func ifMatch(e azcore.ETag) *blob.AccessConditions {
	return &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &e}}
}

func ifNoneMatch(e azcore.ETag) *blob.AccessConditions {
	return &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: &e}}
}

func ifModifiedSince(tm time.Time) *blob.AccessConditions {
	return &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfModifiedSince: &tm}}
}

func ifUnmodifiedSince(tm time.Time) *blob.AccessConditions {
	return &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfUnmodifiedSince: &tm}}
}

// TestOptimisticOverwriteDetected: client A uploads, client B overwrites, and
// every conditional write A makes with its stale ETag fails with 412 while the
// blob keeps B's state.
func TestOptimisticOverwriteDetected(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cn := cname("optimistic")
	f.createContainer(cn, nil)

	a := f.svc.NewContainerClient(cn).NewBlockBlobClient("doc.txt")
	b := f.newServiceClient().NewContainerClient(cn).NewBlockBlobClient("doc.txt")

	upA := upload(t, a, []byte("version from A"), &blockblob.UploadOptions{Metadata: strMeta(map[string]string{"writer": "a"})})
	etagA := *upA.ETag

	pb := props(t, b.BlobClient())
	if *pb.ETag != etagA {
		t.Fatalf("B sees ETag %q after A's upload, want %q", *pb.ETag, etagA)
	}
	upB := upload(t, b, []byte("version from B"), &blockblob.UploadOptions{
		Metadata:         strMeta(map[string]string{"writer": "b"}),
		AccessConditions: ifMatch(etagA),
	})
	etagB := *upB.ETag
	if etagB == etagA {
		t.Fatalf("overwrite kept ETag %q; every write must produce a new ETag", etagA)
	}

	// A's stale conditional writes all fail.
	_, err := a.Upload(context.Background(), rsc([]byte("lost update from A")), &blockblob.UploadOptions{AccessConditions: ifMatch(etagA)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Put Blob with stale If-Match")
	_, err = a.SetMetadata(context.Background(), strMeta(map[string]string{"writer": "a-again"}), &blob.SetMetadataOptions{AccessConditions: ifMatch(etagA)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Set Blob Metadata with stale If-Match")
	_, err = a.SetHTTPHeaders(context.Background(), blob.HTTPHeaders{BlobContentType: ptr("text/a")}, &blob.SetHTTPHeadersOptions{AccessConditions: ifMatch(etagA)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Set Blob Properties with stale If-Match")
	_, err = a.Delete(context.Background(), &blob.DeleteOptions{AccessConditions: ifMatch(etagA)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Delete Blob with stale If-Match")

	// The blob is exactly what B wrote.
	expectContent(t, a.BlobClient(), []byte("version from B"), "after A's rejected writes")
	p := props(t, a.BlobClient())
	if *p.ETag != etagB {
		t.Errorf("ETag after rejected writes = %q, want B's %q (a rejected write must not touch the blob)", *p.ETag, etagB)
	}
	if err := metaEqualFold(p.Metadata, map[string]string{"writer": "b"}); err != nil {
		t.Errorf("metadata after rejected writes: %v", err)
	}
	if p.ContentType != nil && *p.ContentType == "text/a" {
		t.Errorf("Content-Type was changed by a rejected Set Blob Properties")
	}

	// Reads with the stale ETag fail too; with the current one they succeed.
	r := tryDownload(t, a.BlobClient(), &blob.DownloadStreamOptions{AccessConditions: ifMatch(etagA)})
	checkErr(t, r.Err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Get Blob with stale If-Match")

	// With the current ETag A succeeds.
	up := upload(t, a, []byte("A after re-read"), &blockblob.UploadOptions{AccessConditions: ifMatch(etagB)})
	if *up.ETag == etagB || *up.ETag == etagA {
		t.Errorf("new ETag %q repeats an earlier one", *up.ETag)
	}
	expectContent(t, b.BlobClient(), []byte("A after re-read"), "after A's fresh conditional upload")

	// B's ETag is now stale for deletion as well; the current one deletes.
	_, err = b.Delete(context.Background(), &blob.DeleteOptions{AccessConditions: ifMatch(etagB)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Delete Blob with B's stale If-Match")
	_, err = b.Delete(context.Background(), &blob.DeleteOptions{AccessConditions: ifMatch(*up.ETag)})
	must(t, err, "Delete Blob with current If-Match")
	_, err = a.GetProperties(context.Background(), nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Get Blob Properties after conditional delete")
}

// TestIfNoneMatchStarCreatesOnce: If-None-Match: * creates a blob exactly once.
func TestIfNoneMatchStarCreatesOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cn := cname("createonce")
	cc := f.createContainer(cn, nil)
	bb := cc.NewBlockBlobClient("once")

	upload(t, bb, []byte("first"), &blockblob.UploadOptions{AccessConditions: ifNoneMatch(azcore.ETagAny)})
	_, err := bb.Upload(context.Background(), rsc([]byte("second")), &blockblob.UploadOptions{AccessConditions: ifNoneMatch(azcore.ETagAny)})
	checkErr(t, err, http.StatusConflict, bloberror.BlobAlreadyExists, "second Put Blob with If-None-Match: *")
	expectContent(t, bb.BlobClient(), []byte("first"), "after rejected create")

	// Racing creators: exactly one wins, everyone else gets 409, and the blob
	// holds the winner's bytes.
	race := cc.NewBlockBlobClient("raced")
	const n = 8
	var wg sync.WaitGroup
	var winners atomic.Int32
	var winner atomic.Int32
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := race.Upload(context.Background(), rsc([]byte(fmt.Sprintf("creator-%d", i))),
				&blockblob.UploadOptions{AccessConditions: ifNoneMatch(azcore.ETagAny)})
			errs[i] = err
			if err == nil {
				winners.Add(1)
				winner.Store(int32(i))
			}
		}(i)
	}
	wg.Wait()
	if winners.Load() != 1 {
		t.Fatalf("%d concurrent creators succeeded with If-None-Match: *, want exactly 1 (errors: %v)", winners.Load(), errs)
	}
	for i, err := range errs {
		if err != nil {
			checkErr(t, err, http.StatusConflict, bloberror.BlobAlreadyExists, "losing creator %d", i)
		}
	}
	expectContent(t, race.BlobClient(), []byte(fmt.Sprintf("creator-%d", winner.Load())), "raced create")
}

// TestIfMatchOnMissingBlob: a write conditioned on an ETag of a blob that does
// not exist fails with 412 ConditionNotMet and creates nothing.
func TestIfMatchOnMissingBlob(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cn := cname("ifmatchmissing")
	cc := f.createContainer(cn, nil)
	bb := cc.NewBlockBlobClient("ghost")

	_, err := bb.Upload(context.Background(), rsc([]byte("x")), &blockblob.UploadOptions{AccessConditions: ifMatch("\"0x8D000000000000\"")})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Put Blob with If-Match on a missing blob")
	_, err = bb.GetProperties(context.Background(), nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Get Blob Properties after rejected conditional create")
}

// TestConditionalReadsByETag: If-None-Match / If-Match on Get Blob and Get Blob
// Properties.
func TestConditionalReadsByETag(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cn := cname("condread")
	cc := f.createContainer(cn, nil)
	bb := cc.NewBlockBlobClient("r")
	data := []byte("conditional read body")
	up := upload(t, bb, data, nil)
	cur := *up.ETag
	stale := azcore.ETag("\"0x8D0000DEADBEEF\"")
	bc := bb.BlobClient()

	// GET
	r := tryDownload(t, bc, &blob.DownloadStreamOptions{AccessConditions: ifNoneMatch(cur)})
	if r.Status != http.StatusNotModified || len(r.Body) != 0 {
		t.Errorf("Get Blob If-None-Match=<current ETag>: status %d (%s) with %d body bytes, want 304 and no body", r.Status, describe(r.Err), len(r.Body))
	} else if got := deref(r.Resp.ErrorCode); got != any(string(bloberror.ConditionNotMet)) {
		// Azure marks a 304 with x-ms-error-code: ConditionNotMet, which
		// DownloadStream surfaces as ErrorCode.
		t.Errorf("Get Blob 304 response: x-ms-error-code %v, want ConditionNotMet", got)
	}
	r = tryDownload(t, bc, &blob.DownloadStreamOptions{AccessConditions: ifNoneMatch(stale)})
	if r.Status != http.StatusOK || string(r.Body) != string(data) {
		t.Errorf("Get Blob If-None-Match=<other ETag>: status %d (%s) body %q, want 200 with content", r.Status, describe(r.Err), r.Body)
	}
	r = tryDownload(t, bc, &blob.DownloadStreamOptions{AccessConditions: ifMatch(cur)})
	if r.Status != http.StatusOK || string(r.Body) != string(data) {
		t.Errorf("Get Blob If-Match=<current ETag>: status %d (%s) body %q, want 200 with content", r.Status, describe(r.Err), r.Body)
	}
	r = tryDownload(t, bc, &blob.DownloadStreamOptions{AccessConditions: ifMatch(stale)})
	checkErr(t, r.Err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Get Blob If-Match=<stale ETag>")

	// HEAD
	_, err := bc.GetProperties(context.Background(), &blob.GetPropertiesOptions{AccessConditions: ifNoneMatch(cur)})
	checkErr(t, err, http.StatusNotModified, "", "Get Blob Properties If-None-Match=<current ETag>")
	_, err = bc.GetProperties(context.Background(), &blob.GetPropertiesOptions{AccessConditions: ifNoneMatch(stale)})
	must(t, err, "Get Blob Properties If-None-Match=<other ETag>")
	_, err = bc.GetProperties(context.Background(), &blob.GetPropertiesOptions{AccessConditions: ifMatch(cur)})
	must(t, err, "Get Blob Properties If-Match=<current ETag>")
	_, err = bc.GetProperties(context.Background(), &blob.GetPropertiesOptions{AccessConditions: ifMatch(stale)})
	checkErr(t, err, http.StatusPreconditionFailed, "", "Get Blob Properties If-Match=<stale ETag>")

	// Reads never change the ETag.
	if p := props(t, bc); *p.ETag != cur {
		t.Errorf("ETag changed by reads: %q -> %q", cur, *p.ETag)
	}
}

// TestConditionalTimeBoundaries checks If-Modified-Since / If-Unmodified-Since
// exactly at Last-Modified and one second either side, for reads (GET, HEAD)
// and writes (Put Blob).
func TestConditionalTimeBoundaries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cn := cname("condtime")
	cc := f.createContainer(cn, nil)
	bb := cc.NewBlockBlobClient("t")
	bc := bb.BlobClient()
	data := []byte("time boundaries")
	up := upload(t, bb, data, nil)
	lm := up.LastModified.UTC()
	if p := props(t, bc); !p.LastModified.Equal(lm) {
		t.Fatalf("Last-Modified from Put Blob %v differs from Get Blob Properties %v", lm, p.LastModified)
	}
	if lm.Nanosecond() != 0 {
		t.Fatalf("Last-Modified %v has sub-second precision; HTTP dates have whole seconds", lm)
	}
	before, after := lm.Add(-time.Second), lm.Add(time.Second)

	type readCase struct {
		name string
		ac   *blob.AccessConditions
		want int
	}
	reads := []readCase{
		{"If-Modified-Since = Last-Modified", ifModifiedSince(lm), http.StatusNotModified},
		{"If-Modified-Since = Last-Modified - 1s", ifModifiedSince(before), http.StatusOK},
		{"If-Modified-Since = Last-Modified + 1s", ifModifiedSince(after), http.StatusNotModified},
		{"If-Unmodified-Since = Last-Modified", ifUnmodifiedSince(lm), http.StatusOK},
		{"If-Unmodified-Since = Last-Modified - 1s", ifUnmodifiedSince(before), http.StatusPreconditionFailed},
		{"If-Unmodified-Since = Last-Modified + 1s", ifUnmodifiedSince(after), http.StatusOK},
	}
	for _, c := range reads {
		r := tryDownload(t, bc, &blob.DownloadStreamOptions{AccessConditions: c.ac})
		if r.Status != c.want {
			t.Errorf("Get Blob %s: status %d (%s), want %d", c.name, r.Status, describe(r.Err), c.want)
		} else if c.want == http.StatusOK && string(r.Body) != string(data) {
			t.Errorf("Get Blob %s: body %q, want %q", c.name, r.Body, data)
		} else if c.want == http.StatusPreconditionFailed {
			checkErr(t, r.Err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Get Blob %s", c.name)
		}

		var raw *http.Response
		_, err := bc.GetProperties(policy.WithCaptureResponse(context.Background(), &raw), &blob.GetPropertiesOptions{AccessConditions: c.ac})
		if got := statusOf(raw); got != c.want {
			t.Errorf("Get Blob Properties %s: status %v (%s), want %d", c.name, got, describe(err), c.want)
		}
	}

	// Writes: a failed time condition is 412 (never 304) and changes nothing.
	_, err := bb.Upload(context.Background(), rsc([]byte("nope")), &blockblob.UploadOptions{AccessConditions: ifModifiedSince(lm)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Put Blob If-Modified-Since = Last-Modified")
	_, err = bb.Upload(context.Background(), rsc([]byte("nope")), &blockblob.UploadOptions{AccessConditions: ifModifiedSince(after)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Put Blob If-Modified-Since = Last-Modified + 1s")
	_, err = bb.Upload(context.Background(), rsc([]byte("nope")), &blockblob.UploadOptions{AccessConditions: ifUnmodifiedSince(before)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Put Blob If-Unmodified-Since = Last-Modified - 1s")
	_, err = bc.SetMetadata(context.Background(), strMeta(map[string]string{"k": "v"}), &blob.SetMetadataOptions{AccessConditions: ifUnmodifiedSince(before)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Set Blob Metadata If-Unmodified-Since = Last-Modified - 1s")
	expectContent(t, bc, data, "after rejected time-conditioned writes")

	up2 := upload(t, bb, []byte("v2"), &blockblob.UploadOptions{AccessConditions: ifUnmodifiedSince(lm)})
	lm2 := up2.LastModified.UTC()
	expectContent(t, bc, []byte("v2"), "after Put Blob If-Unmodified-Since = Last-Modified")
	upload(t, bb, []byte("v3"), &blockblob.UploadOptions{AccessConditions: ifModifiedSince(lm2.Add(-time.Second))})
	expectContent(t, bc, []byte("v3"), "after Put Blob If-Modified-Since = Last-Modified - 1s")
}

// TestETagChangesOnEveryUpdate: every kind of update yields a fresh ETag;
// reads (GET, HEAD, Get Block List, List Blobs) never change it.
func TestETagChangesOnEveryUpdate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cn := cname("etags")
	cc := f.createContainer(cn, nil)
	bb := cc.NewBlockBlobClient("e")
	bc := bb.BlobClient()
	seen := map[azcore.ETag]string{}
	var lastMod time.Time
	note := func(e *azcore.ETag, op string) azcore.ETag {
		t.Helper()
		if e == nil || *e == "" {
			t.Fatalf("%s returned no ETag", op)
		}
		if prev, dup := seen[*e]; dup {
			t.Errorf("%s returned ETag %q already returned by %s", op, *e, prev)
		}
		seen[*e] = op
		p := props(t, bc)
		if *p.ETag != *e {
			t.Errorf("after %s: Get Blob Properties ETag %q, response ETag %q", op, *p.ETag, *e)
		}
		if p.LastModified.Before(lastMod) {
			t.Errorf("after %s: Last-Modified went backwards: %v -> %v", op, lastMod, *p.LastModified)
		}
		lastMod = *p.LastModified
		return *e
	}
	checkReadsStable := func(cur azcore.ETag, op string) {
		t.Helper()
		r := tryDownload(t, bc, nil)
		must(t, r.Err, "Get Blob after %s", op)
		if etagOf(r.Resp.ETag) != cur {
			t.Errorf("Get Blob after %s: ETag %q, want %q", op, etagOf(r.Resp.ETag), cur)
		}
		items, _ := listFlat(t, cc, nil)
		if len(items) != 1 || items[0].Properties == nil || !sameETag(etagOf(items[0].Properties.ETag), cur) {
			t.Errorf("List Blobs after %s: want one blob with ETag %q, got %d items", op, cur, len(items))
		}
		if p := props(t, bc); *p.ETag != cur {
			t.Errorf("ETag changed by reads after %s: %q -> %q", op, cur, *p.ETag)
		}
	}

	e := note(upload(t, bb, []byte("one"), nil).ETag, "Put Blob")
	checkReadsStable(e, "Put Blob")

	sm, err := bc.SetMetadata(context.Background(), strMeta(map[string]string{"a": "1"}), nil)
	must(t, err, "Set Blob Metadata")
	e = note(sm.ETag, "Set Blob Metadata")
	checkReadsStable(e, "Set Blob Metadata")

	sh, err := bc.SetHTTPHeaders(context.Background(), blob.HTTPHeaders{BlobContentType: ptr("text/plain")}, nil)
	must(t, err, "Set Blob Properties")
	e = note(sh.ETag, "Set Blob Properties")
	checkReadsStable(e, "Set Blob Properties")

	_, err = bb.StageBlock(context.Background(), blockID(1), rsc([]byte("staged")), nil)
	must(t, err, "Put Block")
	bl, err := bb.GetBlockList(context.Background(), blockblob.BlockListTypeAll, nil)
	must(t, err, "Get Block List")
	if etagOf(bl.ETag) != e {
		t.Errorf("Get Block List after staging a block: ETag %q, want unchanged %q (staging does not modify the blob)", etagOf(bl.ETag), e)
	}
	checkReadsStable(e, "Put Block")

	cb, err := bb.CommitBlockList(context.Background(), []string{blockID(1)}, nil)
	must(t, err, "Put Block List")
	e = note(cb.ETag, "Put Block List")
	checkReadsStable(e, "Put Block List")
	expectContent(t, bc, []byte("staged"), "after Put Block List")

	e = note(upload(t, bb, []byte("two"), nil).ETag, "second Put Blob")
	checkReadsStable(e, "second Put Blob")
}

// TestNoLostUpdate: 16 goroutines each add 1 fifty times to a decimal counter
// blob using read / If-Match write / retry-on-412; the result must be 800.
func TestNoLostUpdate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cn := cname("counter")
	f.createContainer(cn, nil)
	upload(t, f.svc.NewContainerClient(cn).NewBlockBlobClient("counter"), []byte("0"), nil)

	const workers, perWorker = 16, 50
	var conflicts, attempts atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errc := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			// each worker is its own client
			bb := f.newServiceClient().NewContainerClient(cn).NewBlockBlobClient("counter")
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for done := 0; done < perWorker; {
				if ctx.Err() != nil {
					errc <- fmt.Errorf("worker %d: timed out after %d increments", w, done)
					return
				}
				attempts.Add(1)
				resp, err := bb.DownloadStream(ctx, nil)
				if err != nil {
					errc <- fmt.Errorf("worker %d: Get Blob: %s: %w", w, describe(err), err)
					return
				}
				body, err := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if err != nil {
					errc <- fmt.Errorf("worker %d: reading body: %w", w, err)
					return
				}
				n, err := strconv.Atoi(string(body))
				if err != nil {
					errc <- fmt.Errorf("worker %d: counter blob holds %q: %w", w, body, err)
					return
				}
				if resp.ETag == nil {
					errc <- fmt.Errorf("worker %d: Get Blob returned no ETag", w)
					return
				}
				_, err = bb.Upload(ctx, rsc([]byte(strconv.Itoa(n+1))), &blockblob.UploadOptions{AccessConditions: ifMatch(*resp.ETag)})
				if err == nil {
					done++
					continue
				}
				if bloberror.HasCode(err, bloberror.ConditionNotMet) {
					var re *azcore.ResponseError
					if errors.As(err, &re) && re.StatusCode != http.StatusPreconditionFailed {
						errc <- fmt.Errorf("worker %d: ConditionNotMet with status %d, want 412", w, re.StatusCode)
						return
					}
					conflicts.Add(1)
					time.Sleep(time.Duration(rng.IntN(500)) * time.Microsecond)
					continue
				}
				errc <- fmt.Errorf("worker %d: conditional Put Blob: %s: %w", w, describe(err), err)
				return
			}
		}(w)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	got := download(t, f.svc.NewContainerClient(cn).NewBlobClient("counter"))
	if string(got) != strconv.Itoa(workers*perWorker) {
		t.Fatalf("counter = %q after %d acknowledged increments, want %d (lost updates); %d attempts, %d conflicts",
			got, workers*perWorker, workers*perWorker, attempts.Load(), conflicts.Load())
	}
	t.Logf("counter reached %s with %d attempts and %d 412 conflicts", got, attempts.Load(), conflicts.Load())
}
