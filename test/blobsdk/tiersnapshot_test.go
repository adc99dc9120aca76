package blobsdk_test

import (
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestSetTierOfSnapshotsAndVersions: Set Blob Tier takes ?snapshot= and
// ?versionid= (the REST reference documents both from version
// 2019-12-12; azblob's WithSnapshot / WithVersionID clients send them):
// the snapshot's or the old version's tier changes, and the blob's does
// not.
func TestSetTierOfSnapshotsAndVersions(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	f := newFixture(t, servertest.WithClock(clock.Now), servertest.WithBlobDataProtection(true, 0))
	cc := f.createContainer(cname("tiersnap"), nil)
	bb := cc.NewBlockBlobClient("doc")
	r1 := upload(t, bb, []byte("one"), nil)
	snap, err := bb.CreateSnapshot(t.Context(), nil)
	must(t, err, "Snapshot Blob")
	upload(t, bb, []byte("two"), nil)

	sc, err := bb.BlobClient().WithSnapshot(*snap.Snapshot)
	must(t, err, "WithSnapshot")
	_, err = sc.SetTier(t.Context(), blob.AccessTierCool, nil)
	must(t, err, "Set Blob Tier of the snapshot")
	vc, err := bb.BlobClient().WithVersionID(*r1.VersionID)
	must(t, err, "WithVersionID")
	_, err = vc.SetTier(t.Context(), blob.AccessTierArchive, nil)
	must(t, err, "Set Blob Tier of the first version")

	for _, c := range []struct {
		what string
		cl   *blob.Client
		want string
	}{
		{"the snapshot", sc, "Cool"},
		{"the first version", vc, "Archive"},
		{"the blob", bb.BlobClient(), "Hot"},
	} {
		p := props(t, c.cl)
		if deref(p.AccessTier) != any(c.want) {
			t.Errorf("%s: tier %v, want %s", c.what, deref(p.AccessTier), c.want)
		}
	}
	expectContent(t, bb.BlobClient(), []byte("two"), "the blob after its snapshot's and version's tiers changed")
}
