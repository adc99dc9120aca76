package blob

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/lease"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// fillContainer creates the container "full" holding one of every key
// family a container owns: block blobs committed from blocks and with
// uncommitted blocks left, a blob of only uncommitted blocks holding a
// lease, an append blob, a page blob, a snapshot, previous versions
// (the service keeps them), index tags, a soft-deleted blob (blob soft
// delete is on) and data objects too large to be inlined.
func fillContainer(t *testing.T, s *Service) {
	t.Helper()
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	full := ContainerRef{Account: testAcct, Container: "full"}
	_, err := s.CreateContainer(ctx, full, CreateContainerOptions{Metadata: azhttp.Metadata{{"k", "v"}}})
	must(err)
	ref := func(name string) Ref { return Ref{Account: testAcct, Container: "full", Name: name} }
	big := bytes.Repeat([]byte("b"), inlineLimit+7)

	_, err = s.PutBlock(ctx, ref("block"), []byte("b1"), contentOf(big), "")
	must(err)
	_, err = s.PutBlock(ctx, ref("block"), []byte("b2"), contentOf([]byte("small")), "")
	must(err)
	_, err = s.PutBlockList(ctx, ref("block"), []BlockRef{{ID: []byte("b1"), From: Latest}, {ID: []byte("b2"), From: Latest}}, PutBlobOptions{Tags: Tags{{"k", "v"}}})
	must(err)
	_, err = s.PutBlock(ctx, ref("block"), []byte("b3"), contentOf(big), "")
	must(err)
	_, _, err = s.CreateSnapshot(ctx, ref("block"), nil, Preconditions{})
	must(err)
	_, err = s.SetBlobMetadata(ctx, ref("block"), azhttp.Metadata{{"m", "1"}}, Preconditions{})
	must(err)
	must(s.SetBlobTags(ctx, ref("block"), Tags{{"k", "w"}, {"x", "y"}}, Preconditions{}))

	_, err = s.PutBlock(ctx, ref("pending"), []byte("p1"), contentOf(big), "")
	must(err)
	_, err = s.LeaseBlob(ctx, ref("pending"), lease.Request{Action: lease.Acquire, Duration: -1, ProposedID: "a0000000-0000-0000-0000-00000000000a"}, conditions.Conditions{}, nil)
	must(err)

	_, err = s.CreateEmpty(ctx, ref("append"), CreateEmptyOptions{Type: "AppendBlob", Tags: Tags{{"t", "a"}}})
	must(err)
	_, err = s.AppendBlock(ctx, ref("append"), contentOf(big), AppendConditions{}, Preconditions{})
	must(err)
	_, err = s.AppendBlock(ctx, ref("append"), contentOf([]byte("more")), AppendConditions{}, Preconditions{})
	must(err)

	_, err = s.CreateEmpty(ctx, ref("page"), CreateEmptyOptions{Type: "PageBlob", Size: 4096})
	must(err)
	_, err = s.PutPages(ctx, ref("page"), 0, contentOf(bytes.Repeat([]byte("p"), 1024)), PageWriteOptions{})
	must(err)
	_, _, err = s.CreateSnapshot(ctx, ref("page"), nil, Preconditions{})
	must(err)
	_, err = s.PutPages(ctx, ref("page"), 512, contentOf(bytes.Repeat([]byte("q"), 512)), PageWriteOptions{})
	must(err)

	_, err = s.PutBlob(ctx, ref("gone"), contentOf(big), PutBlobOptions{Tags: Tags{{"g", "1"}}})
	must(err)
	must(s.DeleteBlob(ctx, ref("gone"), KeepSnapshots, Preconditions{}))
}

// inFull reports whether key is under the container name "full", in any
// family but the soft-deleted containers' records.
func inFull(key string) bool {
	acct := string(accountKey(testAcct))
	if !strings.HasPrefix(key, acct) || len(key) <= len(acct) || key[len(acct)] == 'r' {
		return false
	}
	return strings.HasPrefix(key, string(accountKey(testAcct).Raw(key[len(acct):len(acct)+1]).Str("full")))
}

// TestContainerDeleteLeavesNothing deletes a container holding one of
// everything: afterwards, once dropped data is collected, the store
// holds exactly what it held before the container was made.
func TestContainerDeleteLeavesNothing(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s, store := newProtectedService(t, clock, 7, WithVersioning(true))
	ctx := t.Context()
	before := testkit.Keys(t, store, nil)
	fillContainer(t, s)
	if err := CheckInvariants(ctx, store); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteContainer(ctx, ContainerRef{Account: testAcct, Container: "full"}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if err := CheckInvariants(ctx, store); err != nil {
		t.Fatalf("after the deletion: %v", err)
	}
	if _, err := s.CollectGarbage(ctx); err != nil {
		t.Fatal(err)
	}
	if d := testkit.DiffKeys(before, testkit.Keys(t, store, nil)); d != "" {
		t.Fatalf("the deleted container left keys: %s", d)
	}
}

// TestContainerSoftDeleteMovesEverything deletes the same container with
// container soft delete on: while deleted, nothing of it is left under
// its name; a restore brings back every key it had; a purge leaves the
// store as it was before the container was made.
func TestContainerSoftDeleteMovesEverything(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s, store := newProtectedService(t, clock, 7, WithVersioning(true), WithContainerRetention(5))
	ctx := t.Context()
	before := testkit.Keys(t, store, nil)
	fillContainer(t, s)
	live := testkit.Keys(t, store, nil)
	deleteFull := func() string {
		t.Helper()
		if err := s.DeleteContainer(ctx, ContainerRef{Account: testAcct, Container: "full"}, Preconditions{}); err != nil {
			t.Fatal(err)
		}
		if err := CheckInvariants(ctx, store); err != nil {
			t.Fatalf("while deleted: %v", err)
		}
		for k := range testkit.Keys(t, store, nil) {
			if inFull(k) {
				t.Fatalf("the deleted container left %q under its name", k)
			}
		}
		items, _, err := s.ListContainersWithDeleted(ctx, testAcct, "full", "", 10)
		if err != nil || len(items) != 1 || items[0].Deleted == nil {
			t.Fatalf("List Containers with deleted: %+v, %v", items, err)
		}
		return items[0].Deleted.Version
	}

	version := deleteFull()
	if _, err := s.RestoreContainer(ctx, testAcct, "full", version); err != nil {
		t.Fatal(err)
	}
	if err := CheckInvariants(ctx, store); err != nil {
		t.Fatalf("after the restore: %v", err)
	}
	if d := testkit.DiffKeys(live, testkit.Keys(t, store, nil)); d != "" {
		t.Fatalf("the restored container differs: %s", d)
	}

	deleteFull()
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
		t.Fatalf("the purged container left keys: %s", d)
	}
}

// TestFillContainerHoldsEveryFamily: fillContainer writes a key of every
// family under the container, so the tests above leave none untried.
func TestFillContainerHoldsEveryFamily(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s, store := newProtectedService(t, clock, 7, WithVersioning(true))
	fillContainer(t, s)
	for _, tag := range []string{"o", "x", "u", "k", "l", "d", "n", "z", "t", "v", "w"} {
		if testkit.CountKeys(t, store, accountKey(testAcct).Raw(tag).Str("full")) == 0 {
			t.Errorf("no key of family %q", tag)
		}
	}
}

// TestBlobDeleteLeavesNothing deletes a blob holding one of everything
// a blob owns (content, an uncommitted block, a snapshot, index tags,
// previous versions) with blob soft delete and versioning on, then its
// versions, and purges them: the store then holds exactly what it held
// before the blob was written.
func TestBlobDeleteLeavesNothing(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s, store := newProtectedService(t, clock, 7, WithVersioning(true))
	ctx := t.Context()
	before := testkit.Keys(t, store, nil)
	ref := Ref{Account: testAcct, Container: "c", Name: "b"}
	big := bytes.Repeat([]byte("b"), inlineLimit+7)
	if _, err := s.PutBlob(ctx, ref, contentOf(big), PutBlobOptions{Tags: Tags{{"k", "v"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutBlock(ctx, ref, []byte("u"), contentOf(big), ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateSnapshot(ctx, ref, nil, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetBlobMetadata(ctx, ref, azhttp.Metadata{{"m", "1"}}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteBlob(ctx, ref, IncludeSnapshots, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if err := CheckInvariants(ctx, store); err != nil {
		t.Fatalf("after the deletion: %v", err)
	}
	var versions []SnapshotInfo
	if err := store.View(ctx, func(r kv.Reader) (err error) {
		versions, err = listVersions(r, testAcct, "c", "b")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(versions) == 0 {
		t.Fatal("the deleted blob kept no version")
	}
	for _, v := range versions {
		if err := s.DeleteSnapshot(ctx, Ref{Account: testAcct, Container: "c", Name: "b", Snapshot: versionPoint(v.ID)}, conditions.Conditions{}); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(8 * 24 * time.Hour)
	if _, err := s.PurgeExpired(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CollectGarbage(ctx); err != nil {
		t.Fatal(err)
	}
	if d := testkit.DiffKeys(before, testkit.Keys(t, store, nil)); d != "" {
		t.Fatalf("the deleted blob left keys: %s", d)
	}
}
