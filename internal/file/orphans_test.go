package file

import (
	"errors"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/liveness"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestOrphanHandlesClosedWhenTheirProcessIsGone: two front ends on one
// store. A handle opened through one keeps its share mode against the
// other while its process is alive; once the process's liveness record
// expires (a crash), the other's sweep closes it as its client would have:
// delete-on-close applies, and the file opens again.
func TestOrphanHandlesClosedWhenTheirProcessIsGone(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	testkit.CheckAfter(t, store, CheckInvariants)
	accounts := azauth.NewAccounts(azauth.Account{Name: testAcct, Keys: [][]byte{[]byte("key")}})
	front := func() *Service {
		s := New(Config{Store: store, Now: clock.Now, Accounts: accounts})
		s.UseProcesses(testkit.Process(t, store, clock.Now))
		return s
	}
	a, b := front(), front()
	if _, err := a.CreateShare(t.Context(), ShareRef{Account: testAcct, Share: "s"}, ShareSpec{}); err != nil {
		t.Fatal(err)
	}
	createFile(t, a, "locked", 10)
	createFile(t, a, "doomed", 10)
	if _, err := a.OpenHandle(t.Context(), Ref{Account: testAcct, Share: "s", Path: "locked"}, HandleOptions{Access: AccessRead | AccessWrite}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.OpenHandle(t.Context(), Ref{Account: testAcct, Share: "s", Path: "doomed"}, HandleOptions{Access: AccessRead | AccessDelete, ShareAccess: AccessAll, DeleteOnClose: true}); err != nil {
		t.Fatal(err)
	}
	exclusive := HandleOptions{Access: AccessRead, ShareAccess: AccessRead}
	if _, err := b.OpenHandle(t.Context(), Ref{Account: testAcct, Share: "s", Path: "locked"}, exclusive); !errors.Is(err, azerr.ErrSharingViolation) {
		t.Fatalf("open against a live process's handle: %v, want SharingViolation", err)
	}
	if n, err := b.SweepOrphanHandles(t.Context()); err != nil || n != 0 {
		t.Fatalf("sweep while the opener is alive: closed %d, %v", n, err)
	}
	clock.Advance(liveness.TTL + time.Second)
	if n, err := b.SweepOrphanHandles(t.Context()); err != nil || n != 2 {
		t.Fatalf("sweep after the opener's record expired: closed %d, %v", n, err)
	}
	h, err := b.OpenHandle(t.Context(), Ref{Account: testAcct, Share: "s", Path: "locked"}, exclusive)
	if err != nil {
		t.Fatalf("open after the orphan was closed: %v", err)
	}
	if _, err := b.OpenHandle(t.Context(), Ref{Account: testAcct, Share: "s", Path: "doomed"}, HandleOptions{Access: AccessRead, ShareAccess: AccessAll}); !errors.Is(err, azerr.ErrResourceNotFound) {
		t.Fatalf("delete-on-close file after its orphan handle closed: %v, want it gone", err)
	}
	// The sweep spares this live process's own handle.
	if n, err := b.SweepOrphanHandles(t.Context()); err != nil || n != 0 {
		t.Fatalf("second sweep closed %d, %v", n, err)
	}
	if err := b.CloseHandle(t.Context(), HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}); err != nil {
		t.Fatal(err)
	}
}
