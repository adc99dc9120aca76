package blob

import (
	"bytes"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/lease"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestUncommittedBlocksExpire: a blob's uncommitted blocks are discarded
// a week after the last Put Block to it, as Azure documents ("Understanding
// block blobs, append blobs, and page blobs": a blob of uncommitted blocks
// "and its uncommitted blocks will be discarded one week after the last
// successful block upload"; the .NET SDK's BlockBlobClient.CommitBlockList:
// "Uncommitted blocks will expire and be permanently deleted after 7
// days"); no recording can show a week passing. A Put Block within the
// week keeps them all. A blob with only uncommitted blocks
// goes with them (its lease and its data too); a committed blob keeps its
// content.
func TestUncommittedBlocksExpire(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s, store := newProtectedService(t, clock, 0)
	ctx := t.Context()
	ref := func(name string) Ref { return Ref{Account: testAcct, Container: "c", Name: name} }
	big := bytes.Repeat([]byte("x"), 2*inlineLimit) // data chunks of its own
	const leaseID = "a0000000-0000-0000-0000-00000000000a"
	stage := func(name, id, leaseID string) {
		t.Helper()
		if _, err := s.PutBlock(ctx, ref(name), []byte(id), contentOf(big), leaseID); err != nil {
			t.Fatal(err)
		}
	}
	uncommitted := func(name string) int {
		t.Helper()
		l, err := s.GetBlockList(ctx, ref(name), GetBlockListOptions{Uncommitted: true})
		if err != nil {
			return -1
		}
		return len(l.Uncommitted)
	}
	purge := func() int {
		t.Helper()
		n, err := s.PurgeExpired(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	stage("pending", "id-1", "")
	if _, err := s.LeaseBlob(ctx, ref("pending"), lease.Request{Action: lease.Acquire, Duration: -1, ProposedID: leaseID}, conditions.Conditions{}, nil); err != nil {
		t.Fatal(err)
	}
	putBytes(t, s, "committed", []byte("kept"))
	stage("committed", "id-1", "")
	clock.Advance(blockExpiry - time.Minute)
	stage("pending", "id-2", leaseID) // a Put Block within the week keeps both
	if n := purge(); n != 0 || uncommitted("pending") != 2 || uncommitted("committed") != 1 {
		t.Fatalf("within the week: purged %d, blocks %d and %d", n, uncommitted("pending"), uncommitted("committed"))
	}
	clock.Advance(time.Minute)
	if n := purge(); n != 1 || uncommitted("pending") != 2 || uncommitted("committed") != 0 {
		t.Fatalf("a week after the committed blob's Put Block: purged %d, blocks %d and %d", n, uncommitted("pending"), uncommitted("committed"))
	}
	if got := readBlob(t, s, "committed"); !bytes.Equal(got, []byte("kept")) {
		t.Fatalf("the committed blob reads %q", got)
	}
	clock.Advance(blockExpiry)
	if n := purge(); n != 1 || uncommitted("pending") != -1 {
		t.Fatalf("a week after the last Put Block: purged %d, blocks %d", n, uncommitted("pending"))
	}
	if k := blobDataKeys(t, store, "c", "pending"); k != 0 {
		t.Fatalf("%d data keys of expired blocks", k)
	}
	// The name is free: a new Put Block needs no lease.
	stage("pending", "id-3", "")
}
