package file

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/lease"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// fillShares creates, beside the test's share "s", an SMB share "full"
// and an NFS share "nfs" holding one of every key family a share owns:
// metadata, directories, files with content, a permission, a snapshot,
// clear marks of a Clear Range made after it, a leased file, open
// handles with byte-range locks (SMB), and a hard link and a symbolic
// link (NFS). It returns the shares' names.
func fillShares(t *testing.T, s *Service) []string {
	t.Helper()
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	ref := func(share, path string) Ref { return Ref{Account: testAcct, Share: share, Path: path} }
	write := func(share, path string, off int64, data string) {
		t.Helper()
		_, err := s.PutRange(ctx, ref(share, path), off, Content{Body: strings.NewReader(data), Length: int64(len(data))}, Preconditions{})
		must(err)
	}

	full := ShareRef{Account: testAcct, Share: "full"}
	_, err := s.CreateShare(ctx, full, ShareSpec{})
	must(err)
	_, err = s.SetShareMetadata(ctx, full, azhttp.Metadata{{"k", "v"}}, "")
	must(err)
	_, err = s.CreatePermission(ctx, full, "O:BAG:SYD:(A;;FA;;;SY)(A;;0x1200a9;;;BU)")
	must(err)
	_, err = s.CreateDirectory(ctx, ref("full", "d"), SMBChange{}, azhttp.Metadata{{"dir", "1"}})
	must(err)
	_, err = s.CreateFile(ctx, ref("full", "d/f"), CreateFileOptions{Size: 4096, Metadata: azhttp.Metadata{{"file", "1"}}})
	must(err)
	write("full", "d/f", 0, strings.Repeat("a", 1024))
	write("full", "d/f", 2048, strings.Repeat("b", 1024))
	_, err = s.CreateFile(ctx, ref("full", "g"), CreateFileOptions{Size: 512})
	must(err)
	write("full", "g", 0, strings.Repeat("g", 512))
	_, _, err = s.SnapshotShare(ctx, full, nil)
	must(err)
	_, err = s.ClearRange(ctx, ref("full", "d/f"), 0, 511, Preconditions{})
	must(err)
	write("full", "g", 0, strings.Repeat("h", 512))
	_, err = s.LeaseFile(ctx, ref("full", "g"), lease.Request{Action: lease.Acquire, Duration: -1, ProposedID: leaseA})
	must(err)
	h, err := s.OpenHandle(ctx, ref("full", "d/f"), HandleOptions{Access: AccessRead | AccessWrite, ShareAccess: AccessAll})
	must(err)
	must(s.Lock(ctx, HandleRef{Account: testAcct, Share: "full", FileID: h.FileID, HandleID: h.ID}, LockRange{Offset: 0, Length: 10, Exclusive: true}))
	_, err = s.OpenHandle(ctx, ref("full", "d"), HandleOptions{Dir: true, Access: AccessRead, ShareAccess: AccessAll})
	must(err)

	nfs := ShareRef{Account: testAcct, Share: "nfs"}
	_, err = s.CreateShare(ctx, nfs, ShareSpec{Protocol: ProtocolNFS})
	must(err)
	_, err = s.CreateDirectory(ctx, ref("nfs", "d"), SMBChange{}, nil)
	must(err)
	_, err = s.CreateFile(ctx, ref("nfs", "d/a"), CreateFileOptions{Size: 8})
	must(err)
	_, err = s.CreateHardLink(ctx, ref("nfs", "b"), HardLinkOptions{Target: "d/a"})
	must(err)
	write("nfs", "b", 0, "linked!!")
	_, err = s.CreateSymbolicLink(ctx, ref("nfs", "l"), SymbolicLinkOptions{LinkText: "d/a"})
	must(err)
	_, _, err = s.SnapshotShare(ctx, nfs, nil)
	must(err)
	write("nfs", "d/a", 0, "changed!")
	return []string{"full", "nfs"}
}

// inShares reports whether key is under the name of one of the shares
// (a snapshot namespace of one included), in any family but the deleted
// shares' records.
func inShares(key string, shares []string) bool {
	acct := string(accountKey(testAcct))
	if !strings.HasPrefix(key, acct) || len(key) <= len(acct) {
		return false
	}
	if key[len(acct)] == 'D' { // the deleted shares' records
		return false
	}
	tag := accountKey(testAcct).Raw(key[len(acct) : len(acct)+1])
	for _, share := range shares {
		if strings.HasPrefix(key, string(tag.Str(share))) || strings.HasPrefix(key, string(tag.StrPrefix(share+"@"))) {
			return true
		}
	}
	return false
}

// handleKeys reports whether key is an open handle or a byte-range lock:
// those a deleted share closes instead of keeping.
func handleKeys(key string) bool {
	for _, tag := range []string{"h", "l"} {
		if strings.HasPrefix(key, string(accountKey(testAcct).Raw(tag))) {
			return true
		}
	}
	return false
}

// TestShareDeleteLeavesNothing deletes shares holding one of everything,
// without soft delete: afterwards (and once dropped data is collected)
// the store holds exactly what it held before they were made.
func TestShareDeleteLeavesNothing(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	before := testkit.Keys(t, store, nil)
	shares := fillShares(t, s)
	if err := CheckInvariants(ctx, store); err != nil {
		t.Fatal(err)
	}
	for _, name := range shares {
		if err := s.DeleteShareAndSnapshots(ctx, ShareRef{Account: testAcct, Share: name}, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := CheckInvariants(ctx, store); err != nil {
		t.Fatalf("after the deletion: %v", err)
	}
	if _, err := s.CollectGarbage(ctx); err != nil {
		t.Fatal(err)
	}
	if d := testkit.DiffKeys(before, testkit.Keys(t, store, nil)); d != "" {
		t.Fatalf("deleted shares left keys: %s", d)
	}
}

// TestShareSoftDeleteMovesEverything deletes the same shares with soft
// delete on: while deleted, nothing of them is left under their names;
// a restore brings back every key they had but their open handles and
// locks; a purge leaves the store as it was before they were made.
func TestShareSoftDeleteMovesEverything(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s, store := newSoftDeleteService(t, clock, 7)
	ctx := t.Context()
	before := testkit.Keys(t, store, nil)
	shares := fillShares(t, s)
	live := testkit.Keys(t, store, nil)
	deleteAll := func() {
		t.Helper()
		for _, name := range shares {
			if err := s.DeleteShareAndSnapshots(ctx, ShareRef{Account: testAcct, Share: name}, ""); err != nil {
				t.Fatal(err)
			}
		}
		if err := CheckInvariants(ctx, store); err != nil {
			t.Fatalf("while deleted: %v", err)
		}
		for k := range testkit.Keys(t, store, nil) {
			if inShares(k, shares) {
				t.Fatalf("a deleted share left %q under its name", k)
			}
		}
	}

	deleteAll()
	gone, _, err := s.ListSharesWithDeleted(ctx, testAcct, ListSharesOptions{Max: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range gone {
		if it.Deleted == nil {
			continue
		}
		if _, err := s.RestoreShare(ctx, testAcct, it.Name, it.Deleted.Version); err != nil {
			t.Fatal(err)
		}
	}
	if err := CheckInvariants(ctx, store); err != nil {
		t.Fatalf("after the restore: %v", err)
	}
	if d := testkit.DiffKeys(live.Without(handleKeys), testkit.Keys(t, store, nil)); d != "" {
		t.Fatalf("restored shares differ: %s", d)
	}
	var buf bytes.Buffer
	if err := s.GetFile(ctx, Ref{Account: testAcct, Share: "nfs", Path: "b"}, GetFileOptions{}, func(d *Download) error { return d.Stream(&buf) }); err != nil || buf.String() != "changed!" {
		t.Fatalf("restored hard link reads %q, %v", buf.String(), err)
	}

	deleteAll()
	clock.Advance(8 * 24 * time.Hour)
	if _, err := s.PurgeExpired(ctx); err != nil {
		t.Fatal(err)
	}
	if err := CheckInvariants(ctx, store); err != nil {
		t.Fatalf("after the purge: %v", err)
	}
	if _, err := s.CollectGarbage(ctx); err != nil {
		t.Fatal(err)
	}
	if d := testkit.DiffKeys(before, testkit.Keys(t, store, nil)); d != "" {
		t.Fatalf("purged shares left keys: %s", d)
	}
}

// TestFillSharesHoldsEveryFamily: fillShares writes a key of every family
// a share owns (but the layout before names were folded, which only an
// upgrade reads), so the tests above leave none untried.
func TestFillSharesHoldsEveryFamily(t *testing.T) {
	s, store := newTestService(t)
	shares := fillShares(t, s)
	for _, tag := range []string{"s", "r", nodesTag, inodesTag, "x", clearMarksTag, "d", "h", "l", "S", "k", "u", "P"} {
		n := 0
		for _, share := range shares {
			n += testkit.CountKeys(t, store, accountKey(testAcct).Raw(tag).Str(share))
		}
		if n == 0 {
			t.Errorf("no key of family %q", tag)
		}
	}
}

// TestSnapshotDeleteLeavesNothing deletes every snapshot of the shares
// fillShares made, one at a time: the snapshots' namespaces, holds and
// the data only they held go, and once the last is gone so do the clear
// marks kept for comparing with them.
func TestSnapshotDeleteLeavesNothing(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	shares := fillShares(t, s)
	for _, share := range shares {
		snaps, err := snapshotsOf(t, store, share)
		if err != nil {
			t.Fatal(err)
		}
		for _, snap := range snaps {
			if err := s.DeleteShare(ctx, ShareRef{Account: testAcct, Share: SnapshotNamespace(share, snap)}, ""); err != nil {
				t.Fatal(err)
			}
			if err := CheckInvariants(ctx, store); err != nil {
				t.Fatalf("after deleting snapshot %s of %s: %v", snap, share, err)
			}
		}
	}
	if _, err := s.CollectGarbage(ctx); err != nil {
		t.Fatal(err)
	}
	for k := range testkit.Keys(t, store, nil) {
		for _, share := range shares {
			for _, tag := range []string{"S", "k", clearMarksTag} {
				if strings.HasPrefix(k, string(accountKey(testAcct).Raw(tag).Str(share))) {
					t.Errorf("the deleted snapshots left %q", k)
				}
			}
			if acct := string(accountKey(testAcct)); len(k) > len(acct) && strings.HasPrefix(k, string(accountKey(testAcct).Raw(k[len(acct):len(acct)+1]).StrPrefix(share+"@"))) {
				t.Errorf("the deleted snapshots left %q in a namespace", k)
			}
		}
	}
}

// snapshotsOf lists the snapshots of share.
func snapshotsOf(t *testing.T, store kv.Store, share string) (snaps []string, err error) {
	t.Helper()
	err = store.View(t.Context(), func(r kv.Reader) error {
		snaps, err = snapshotList(r, testAcct, share)
		return err
	})
	return snaps, err
}

// TestNoHandleOnASnapshot: a snapshot is read-only and its deletion drops
// only its own records, so no handle may be opened in its namespace: one
// would outlive the snapshot, naming a node that no longer exists.
func TestNoHandleOnASnapshot(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	mkFile(t, s, "f", 10)
	snap, _, err := s.SnapshotShare(ctx, ShareRef{Account: testAcct, Share: "s"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := Ref{Account: testAcct, Share: SnapshotNamespace("s", snap), Path: "f"}
	if _, err := s.OpenHandle(ctx, ref, HandleOptions{Access: AccessRead, ShareAccess: AccessAll}); !errors.Is(err, azerr.ErrShareSnapshotOperationNotSupported) {
		t.Fatalf("open on a snapshot: %v, want ShareSnapshotOperationNotSupported", err)
	}
	if err := s.DeleteShare(ctx, ShareRef{Account: testAcct, Share: ref.Share}, ""); err != nil {
		t.Fatal(err)
	}
}
