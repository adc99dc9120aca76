package blobsdk_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestCopySourceAuthorizedBySAS: the source of Copy Blob From URL (and of
// Copy Blob under a SAS) is authorized by the SAS in its own URL: a valid
// one copies, a missing, expired, forged or read-less one is
// CannotVerifyCopySource with the status the source's own GET would have
// answered. Copy Blob (asynchronous) may instead use the caller's Shared
// Key on the same account, as Azure allows; Copy Blob From URL may not.
func TestCopySourceAuthorizedBySAS(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock(time.Now().UTC().Truncate(time.Second))
	f := newFixture(t, servertest.WithClock(clock.Now))
	ctx := t.Context()
	cc := f.createContainer(cname("copy-sas"), nil)
	src := cc.NewBlockBlobClient("private")
	upload(t, src, []byte("private bytes"), nil)

	// Asynchronous Copy Blob: the caller's own key reads a source in its account.
	_, err := cc.NewBlobClient("async").StartCopyFromURL(ctx, src.URL(), nil)
	must(t, err, "Copy Blob of a private source with Shared Key")
	expectContent(t, cc.NewBlobClient("async"), []byte("private bytes"), "async copy")

	// Copy Blob From URL: the source needs its own authorization.
	_, err = cc.NewBlobClient("sync").CopyFromURL(ctx, src.URL(), nil)
	checkErr(t, err, http.StatusNotFound, bloberror.CannotVerifyCopySource, "Copy Blob From URL of a private source without a SAS")
	sign := func(perms sas.BlobPermissions, expiry time.Time) string {
		qp, err := sas.BlobSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, StartTime: clock.Now().Add(-time.Minute), ExpiryTime: expiry,
			Permissions: perms.String(), ContainerName: cc.URL()[len(f.env.BlobURL):], BlobName: "private"}.SignWithSharedKey(f.cred)
		must(t, err, "sign source SAS")
		return withQuery(src.URL(), qp.Encode())
	}
	good := sign(sas.BlobPermissions{Read: true}, clock.Now().Add(time.Hour))
	r, err := cc.NewBlobClient("sync").CopyFromURL(ctx, good, nil)
	must(t, err, "Copy Blob From URL with a source SAS")
	if r.CopyStatus == nil || *r.CopyStatus != "success" {
		t.Errorf("copy status %v, want success", deref(r.CopyStatus))
	}
	expectContent(t, cc.NewBlobClient("sync"), []byte("private bytes"), "sync copy with a source SAS")

	noRead := sign(sas.BlobPermissions{Write: true}, clock.Now().Add(time.Hour))
	_, err = cc.NewBlobClient("sync").CopyFromURL(ctx, noRead, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.CannotVerifyCopySource, "a source SAS without read")

	u, _ := url.Parse(good)
	q := u.Query()
	q.Set("sp", "rw") // changed after signing
	u.RawQuery = q.Encode()
	_, err = cc.NewBlobClient("sync").CopyFromURL(ctx, u.String(), nil)
	checkErr(t, err, http.StatusForbidden, bloberror.CannotVerifyCopySource, "a forged source SAS")

	clock.Advance(2 * time.Hour)
	_, err = cc.NewBlobClient("sync").CopyFromURL(ctx, good, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.CannotVerifyCopySource, "an expired source SAS")
	_, err = cc.NewBlobClient("async2").StartCopyFromURL(ctx, good, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.CannotVerifyCopySource, "Copy Blob with an expired source SAS (the SAS is used, not the key)")

	// A missing source and a Bearer token are answered as Azure does.
	fresh := sign(sas.BlobPermissions{Read: true}, clock.Now().Add(time.Hour))
	missing, _ := url.Parse(fresh)
	missing.Path += "-gone"
	_, err = cc.NewBlobClient("sync").CopyFromURL(ctx, missing.String(), nil)
	checkErr(t, err, http.StatusForbidden, bloberror.CannotVerifyCopySource, "a SAS signed for another blob")
	_, err = cc.NewBlobClient("sync").CopyFromURL(ctx, src.URL(), &blob.CopyFromURLOptions{CopySourceAuthorization: ptr("Bearer token")})
	checkErr(t, err, http.StatusUnauthorized, bloberror.CannotVerifyCopySource, "a Bearer copy source authorization")

	// Source conditions: a sync copy reads its source as a GET would.
	p := props(t, src.BlobClient())
	_, err = cc.NewBlobClient("sync").CopyFromURL(ctx, fresh, &blob.CopyFromURLOptions{
		SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfNoneMatch: p.ETag},
	})
	checkErr(t, err, http.StatusNotModified, bloberror.CannotVerifyCopySource, "sync copy with a source If-None-Match on its ETag")
	_, err = cc.NewBlobClient("sync").CopyFromURL(ctx, fresh, &blob.CopyFromURLOptions{
		SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfMatch: ptr(azcore.ETag(`"0x0"`))},
	})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.CannotVerifyCopySource, "sync copy with a failing source If-Match")
	_, err = cc.NewBlobClient("async3").StartCopyFromURL(ctx, src.URL(), &blob.StartCopyFromURLOptions{
		SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfNoneMatch: p.ETag},
	})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.SourceConditionNotMet, "async copy with a source If-None-Match on its ETag")
	_, err = src.SetTags(ctx, map[string]string{"state": "ready"}, nil)
	must(t, err, "tag the source")
	_, err = cc.NewBlobClient("async3").StartCopyFromURL(ctx, src.URL(), &blob.StartCopyFromURLOptions{
		SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfTags: ptr(`"state"='draft'`)},
	})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "async copy with a failing x-ms-source-if-tags (test_common_blob.py test_async_copy_blob_with_if_tags)")
	_, err = cc.NewBlobClient("async3").StartCopyFromURL(ctx, src.URL(), &blob.StartCopyFromURLOptions{
		SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfTags: ptr(`"state"='ready'`)},
	})
	must(t, err, "async copy with a holding x-ms-source-if-tags")

	// A snapshot SAS (sr=bs) authorizes that snapshot only.
	snap, err := src.CreateSnapshot(ctx, nil)
	must(t, err, "snapshot")
	upload(t, src, []byte("newer bytes"), nil)
	snapTime, err := time.Parse(blob.SnapshotTimeFormat, *snap.Snapshot)
	must(t, err, "parse snapshot time")
	sqp, err := sas.BlobSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: clock.Now().Add(time.Hour), Permissions: "r",
		ContainerName: cc.URL()[len(f.env.BlobURL):], BlobName: "private", SnapshotTime: snapTime}.SignWithSharedKey(f.cred)
	must(t, err, "sign snapshot SAS")
	snapClient, _ := src.WithSnapshot(*snap.Snapshot)
	_, err = cc.NewBlobClient("from-snap").CopyFromURL(ctx, withQuery(snapClient.URL(), sqp.Encode()), nil)
	must(t, err, "Copy Blob From URL of a snapshot with a snapshot SAS")
	expectContent(t, cc.NewBlobClient("from-snap"), []byte("private bytes"), "copy of the snapshot")
	_, err = cc.NewBlobClient("from-snap").CopyFromURL(ctx, withQuery(src.URL(), sqp.Encode()), nil)
	checkErr(t, err, http.StatusForbidden, bloberror.CannotVerifyCopySource, "the base blob with a snapshot SAS")

	// An account SAS in the source URL works as well.
	acct := f.accountSAS(sas.AccountPermissions{Read: true}, clock.Now().Add(-time.Minute), clock.Now().Add(time.Hour))
	_, err = cc.NewBlobClient("acct").CopyFromURL(ctx, withQuery(src.URL(), acct), nil)
	must(t, err, "Copy Blob From URL with an account SAS on the source")
	expectContent(t, cc.NewBlobClient("acct"), []byte("newer bytes"), "copy with an account SAS source")
}
