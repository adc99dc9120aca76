package file

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/lease"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func usage(t *testing.T, s *Service, share string) int64 {
	t.Helper()
	st, err := s.GetShareStats(t.Context(), ShareRef{Account: testAcct, Share: share}, "")
	if err != nil {
		t.Fatal(err)
	}
	return st.UsageBytes
}

// TestUsageCountsFileSizes: creating, replacing and deleting files moves
// the usage by their sizes; writing ranges does not; growth past the
// quota is refused without changing anything.
func TestUsageCountsFileSizes(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	if _, err := s.SetShareQuota(ctx, ShareRef{Account: testAcct, Share: "s"}, 1, ""); err != nil {
		t.Fatal(err)
	}
	create := func(path string, size int64) error {
		_, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: path}, CreateFileOptions{Size: size})
		return err
	}
	if err := create("a", 600<<20); err != nil {
		t.Fatal(err)
	}
	put(t, s, "a", 0, []byte("hello"))
	if got := usage(t, s, "s"); got != 600<<20 {
		t.Fatalf("usage %d, want %d", got, 600<<20)
	}
	if err := create("b", 500<<20); !errors.Is(err, azerr.ErrShareSizeLimitReached) {
		t.Fatalf("create past quota: %v", err)
	}
	// Replacing a file counts only the difference.
	if err := create("a", 1<<30); err != nil {
		t.Fatalf("replace within quota: %v", err)
	}
	if err := create("c", 1); !errors.Is(err, azerr.ErrShareSizeLimitReached) {
		t.Fatalf("create on a full share: %v", err)
	}
	if err := s.DeleteFile(ctx, Ref{Account: testAcct, Share: "s", Path: "a"}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if got := usage(t, s, "s"); got != 0 {
		t.Fatalf("usage after delete %d", got)
	}
	if err := create("c", 0); err != nil {
		t.Fatal(err)
	}
}

// TestUsageUnderConcurrency: concurrent creates and deletes in one share
// keep the usage exact (CheckInvariants compares it with the files), and
// creates that race for the last of the quota never overfill it.
func TestUsageUnderConcurrency(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	if _, err := s.SetShareQuota(ctx, ShareRef{Account: testAcct, Share: "s"}, 1, ""); err != nil {
		t.Fatal(err)
	}
	const workers, size = 16, 100 << 20 // 16 × 100 MiB: only 10 fit in 1 GiB
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for i := range workers {
		wg.Go(func() {
			_, errs[i] = s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: fmt.Sprintf("f%d", i)}, CreateFileOptions{Size: size})
		})
	}
	wg.Wait()
	created := 0
	for _, err := range errs {
		switch {
		case err == nil:
			created++
		case !errors.Is(err, azerr.ErrShareSizeLimitReached):
			t.Fatal(err)
		}
	}
	if created != 10 {
		t.Fatalf("%d files of 100 MiB fit in 1 GiB, want 10", created)
	}
	if got := usage(t, s, "s"); got != int64(created)*size {
		t.Fatalf("usage %d, want %d", got, created*size)
	}
	for i := range workers {
		wg.Go(func() {
			_ = s.DeleteFile(ctx, Ref{Account: testAcct, Share: "s", Path: fmt.Sprintf("f%d", i)}, Preconditions{})
		})
	}
	wg.Wait()
	if got := usage(t, s, "s"); got != 0 {
		t.Fatalf("usage after deletes %d", got)
	}
}

// TestShareLeaseRules: a fixed share lease guards deletion until it
// expires; other share operations only check a lease ID they carry; a
// break lasts its period.
func TestShareLeaseRules(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	testkit.CheckAfter(t, store, CheckInvariants)
	s := New(Config{Store: store, Now: clock.Now})
	ctx := t.Context()
	if _, err := s.CreateShare(ctx, ShareRef{Account: testAcct, Share: "s"}, ShareSpec{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LeaseShare(ctx, ShareRef{Account: testAcct, Share: "s"}, lease.Request{Action: lease.Acquire, Duration: 10}); !errors.Is(err, azerr.ErrInvalidHeaderValue) {
		t.Fatalf("acquire 10 s: %v", err)
	}
	out, err := s.LeaseShare(ctx, ShareRef{Account: testAcct, Share: "s"}, lease.Request{Action: lease.Acquire, Duration: 15, ProposedID: leaseA})
	if err != nil || out.ID != leaseA {
		t.Fatalf("acquire: %+v %v", out, err)
	}
	if err := s.DeleteShare(ctx, ShareRef{Account: testAcct, Share: "s"}, ""); !errors.Is(err, azerr.ErrLeaseIdMissing) {
		t.Fatalf("delete without the lease: %v", err)
	}
	if err := s.DeleteShare(ctx, ShareRef{Account: testAcct, Share: "s"}, leaseB); !errors.Is(err, azerr.ErrLeaseIdMismatchWithContainerOperation) {
		t.Fatalf("delete with another lease: %v", err)
	}
	if _, err := s.SetShareMetadata(ctx, ShareRef{Account: testAcct, Share: "s"}, azhttp.Metadata{{"k", "v"}}, ""); err != nil {
		t.Fatalf("metadata without the lease: %v", err)
	}
	if _, err := s.GetShare(ctx, ShareRef{Account: testAcct, Share: "s"}, leaseB); !errors.Is(err, azerr.ErrLeaseIdMismatchWithContainerOperation) {
		t.Fatalf("get with another lease: %v", err)
	}
	clock.Advance(14 * time.Second)
	if _, err := s.LeaseShare(ctx, ShareRef{Account: testAcct, Share: "s"}, lease.Request{Action: lease.Renew, ID: leaseA}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(14 * time.Second) // 28 s after acquiring, 14 after renewing
	if err := s.DeleteShare(ctx, ShareRef{Account: testAcct, Share: "s"}, ""); !errors.Is(err, azerr.ErrLeaseIdMissing) {
		t.Fatalf("delete of a renewed lease: %v", err)
	}
	period := 5
	if out, err = s.LeaseShare(ctx, ShareRef{Account: testAcct, Share: "s"}, lease.Request{Action: lease.Break, BreakPeriod: &period}); err != nil || out.Time != 1 {
		// The lease has 1 s left: a break takes the shorter of the two.
		t.Fatalf("break: %+v %v", out, err)
	}
	if _, err := s.LeaseShare(ctx, ShareRef{Account: testAcct, Share: "s"}, lease.Request{Action: lease.Acquire, Duration: lease.Infinite, ProposedID: leaseB}); !errors.Is(err, azerr.ErrLeaseAlreadyPresent) {
		t.Fatalf("acquire while breaking: %v", err)
	}
	clock.Advance(time.Second)
	sh, err := s.GetShare(ctx, ShareRef{Account: testAcct, Share: "s"}, "")
	if err != nil || sh.Lease.At(clock.Now()).State != lease.Broken {
		t.Fatalf("after the break: %+v %v", sh, err)
	}
	if err := s.DeleteShare(ctx, ShareRef{Account: testAcct, Share: "s"}, ""); err != nil {
		t.Fatalf("delete of a broken lease: %v", err)
	}
}

// TestPermissionKeys: one key per distinct SDDL, stored per share; a key
// names a permission only in its share; inline permissions resolve too.
func TestPermissionKeys(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateShare(ctx, ShareRef{Account: testAcct, Share: "other"}, ShareSpec{}); err != nil {
		t.Fatal(err)
	}
	const sddl = "O:BAG:SYD:(A;;FA;;;SY)(A;;0x1200a9;;;BU)"
	k1, err := s.CreatePermission(ctx, ShareRef{Account: testAcct, Share: "s"}, sddl)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := s.CreatePermission(ctx, ShareRef{Account: testAcct, Share: "s"}, sddl)
	if err != nil || k1 != k2 {
		t.Fatalf("same SDDL twice: %q %q %v", k1, k2, err)
	}
	// Without a SACL it is kept with Azure's explicit null one.
	if got, err := s.GetPermission(ctx, ShareRef{Account: testAcct, Share: "s"}, k1); err != nil || got != sddl+"S:NO_ACCESS_CONTROL" {
		t.Fatalf("get: %q %v", got, err)
	}
	if _, err := s.GetPermission(ctx, ShareRef{Account: testAcct, Share: "other"}, k1); !errors.Is(err, azerr.ErrFileInvalidPermissionKey) {
		t.Fatalf("key of another share: %v", err)
	}
	for _, bad := range []string{"", "garbage", "O:BA", "O:BAG:SYD:(A;;FA;;SY)", "O:BAG:SYD:(A;;FA;;;SY", "G:SYO:BAD:", "O:BA G:SYD:"} {
		if _, err := s.CreatePermission(ctx, ShareRef{Account: testAcct, Share: "s"}, bad); !errors.Is(err, azerr.ErrFileInvalidPermission) {
			t.Errorf("SDDL %q: %v", bad, err)
		}
	}
	n, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, CreateFileOptions{SMB: SMBChange{PermissionKey: k1}})
	if err != nil || n.SMB.Permission != withNullSACL(sddl) {
		t.Fatalf("create by key: %+v %v", n, err)
	}
	const inline = "O:SYG:SYD:P(A;OICI;FA;;;SY)S:(AU;SA;FA;;;WD)"
	if _, err := s.CreateDirectory(ctx, Ref{Account: testAcct, Share: "other", Path: "d"}, SMBChange{Permission: inline}, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetPermission(ctx, ShareRef{Account: testAcct, Share: "other"}, permissionKey(inline)); err != nil || got != inline {
		t.Fatalf("inline permission: %q %v", got, err)
	}
	if got, err := s.GetPermission(ctx, ShareRef{Account: testAcct, Share: "s"}, permissionKey("")); err != nil || got != defaultPermission {
		t.Fatalf("default permission: %q %v", got, err)
	}
	// A directory created without a permission has the directory default,
	// under a key of its own, and keeps it when a file takes that key.
	dir, err := s.CreateDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "plain"}, SMBChange{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dirKey := permissionKey(dir.PermissionSDDL())
	if dirKey == permissionKey("") {
		t.Fatal("directories and files share one default key")
	}
	if got, err := s.GetPermission(ctx, ShareRef{Account: testAcct, Share: "s"}, dirKey); err != nil || got != defaultDirPermission {
		t.Fatalf("directory default permission: %q %v", got, err)
	}
	taken, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "takes-dir-default"}, CreateFileOptions{SMB: SMBChange{PermissionKey: dirKey}})
	if err != nil || taken.PermissionSDDL() != defaultDirPermission {
		t.Fatalf("file given the directory default's key: %v %v", taken, err)
	}
	if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "other", Path: "g"}, CreateFileOptions{SMB: SMBChange{PermissionKey: k1}}); !errors.Is(err, azerr.ErrFileInvalidPermissionKey) {
		t.Fatalf("create with a key of another share: %v", err)
	}
}

// TestCheckInvariantsCatchesAccountingDamage: usage that drifts from the
// files' sizes and permissions that are not stored under their key are
// reported.
func TestCheckInvariantsCatchesAccountingDamage(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		damage     func(tx kv.Txn) error
	}{
		{"usage drift", "usage is", func(tx kv.Txn) error {
			return tx.Set(usageCounter(testAcct, "s").Shard(7), binary.BigEndian.AppendUint64(nil, 1))
		}},
		{"unstored permission", "not stored under key", func(tx kv.Txn) error {
			n, err := loadNode(tx, nodeKey(testAcct, "s", rootID, "empty"))
			if err != nil {
				return err
			}
			if n == nil {
				return errors.New("the layout has no file \"empty\"")
			}
			n.SMB.Permission = "O:BAG:BAD:(A;;FA;;;BA)"
			return record.Store(tx, nodeKey(testAcct, "s", rootID, "empty"), n)
		}},
		{"misfiled permission", "whose key is", func(tx kv.Txn) error {
			return record.Store(tx, permissionKeyKey(testAcct, "s", "1*1"), storedPermission{SDDL: defaultPermission})
		}},
		{"usage of a deleted share", "usage outlives", func(tx kv.Txn) error {
			return tx.Set(usageCounter(testAcct, "gone").Shard(0), binary.BigEndian.AppendUint64(nil, 0))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, store, _ := layout(t)
			wantViolation(t, store, tc.damage, tc.want)
		})
	}
}

// TestUsageInARoomyShare: small creates in a share far below its quota
// skip the exact total, and the usage stays exact under concurrency.
func TestUsageInARoomyShare(t *testing.T) {
	s, _ := newTestService(t) // the default quota, 5 TiB
	ctx := t.Context()
	const workers, size = 32, 1 << 20
	if roomy, err := s.roomFor(ctx, testAcct, "s", size); err != nil || !roomy {
		t.Fatalf("an empty 5 TiB share is not roomy: %v", err)
	}
	if roomy, err := s.roomFor(ctx, testAcct, "s", quotaMargin+1); err != nil || roomy {
		t.Fatalf("a create larger than the margin skipped the exact read: %v", err)
	}
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: fmt.Sprintf("f%d", i)}, CreateFileOptions{Size: size}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := usage(t, s, "s"); got != workers*size {
		t.Fatalf("usage %d, want %d", got, workers*size)
	}
}

// FuzzValidSDDL: whatever the SDDL check accepts can be stored and read
// back under its key; nothing panics.
func FuzzValidSDDL(f *testing.F) {
	for _, seed := range []string{defaultPermission, "O:BAG:SYD:P(A;OICI;FA;;;SY)S:(AU;SA;FA;;;WD)", "O:S-1-5-21-1-2-3-500G:SYD:", "O:BAG:SYD:(XA;;FA;;;WD;(Member_of {SID(BA)}))", "garbage", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, sddl string) {
		if !validSDDL(sddl) {
			return
		}
		store := memory.Open()
		defer func() { _ = store.Close() }()
		s := New(Config{Store: store})
		if _, err := s.CreateShare(t.Context(), ShareRef{Account: testAcct, Share: "s"}, ShareSpec{}); err != nil {
			t.Fatal(err)
		}
		key, err := s.CreatePermission(t.Context(), ShareRef{Account: testAcct, Share: "s"}, sddl)
		if err != nil {
			t.Fatalf("accepted %q but could not store it: %v", sddl, err)
		}
		if got, err := s.GetPermission(t.Context(), ShareRef{Account: testAcct, Share: "s"}, key); err != nil || got != withNullSACL(sddl) {
			t.Fatalf("%q read back as %q, %v", sddl, got, err)
		}
		if err := CheckInvariants(t.Context(), store); err != nil {
			t.Fatal(err)
		}
	})
}
