package smb

import (
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/smb/smbtest"
)

// busyThenHangUp sends writes that keep the server answering c for a
// while, then hangs up: the server reads c's end only after them, so a
// request on another connection is read before it. It returns once the
// server's kernel has the end (behind megabytes not yet read, the FIN
// itself waits in the client's kernel), or the server has served it
// already; the caller's other connection is the only one left then.
func busyThenHangUp(t *testing.T, srv *Server, c *smbtest.Client, id smbtest.FileID) {
	t.Helper()
	chunk := make([]byte, maxIO)
	for i := range 16 {
		if _, err := c.WriteAsync(id, uint64(i)*maxIO, chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Hangup(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !srv.anyHungUp(nil) && srv.Connections() > 1; {
		if time.Now().After(deadline) {
			t.Fatal("the server never saw the client hang up")
		}
		time.Sleep(time.Millisecond)
	}
}

// A client that hangs up while the server is still answering it gives
// up its share modes before a CREATE read after its end is answered
// (smbtorture's suites drop each test's connection and open the same
// names on the next one); a live holder's conflict is answered at once.
func TestCreateAfterTheHolderHungUp(t *testing.T) {
	srv, addr := serve(t, Limits{})
	a, b := dial(t, addr), dial(t, addr)
	rw := smbtest.ReadData | smbtest.WriteData
	id, st, err := a.Create("held.txt", rw, 0, smbtest.OverwriteIf, 0)
	if err != nil || st != 0 {
		t.Fatalf("exclusive open: %#x %v", st, err)
	}
	if _, st, err := b.Create("held.txt", rw, smbtest.ShareAll, smbtest.Open, 0); err != nil || st != smbtest.StatusSharingViolation {
		t.Fatalf("open against a live holder: %#x %v, want SHARING_VIOLATION", st, err)
	}
	busyThenHangUp(t, srv, a, id)
	if _, st, err := b.Create("held.txt", rw, smbtest.ShareAll, smbtest.Open, 0); err != nil || st != 0 {
		t.Fatalf("open after the holder hung up: %#x %v, want success", st, err)
	}
}

// The same for a file a hung-up client had made delete-pending: it is
// gone, not pending, when the next CREATE is answered.
func TestCreateAfterTheDeleterHungUp(t *testing.T) {
	srv, addr := serve(t, Limits{})
	a, b := dial(t, addr), dial(t, addr)
	rw := smbtest.ReadData | smbtest.WriteData
	id, st, err := a.Create("doomed.txt", rw|smbtest.Delete, smbtest.ShareAll, smbtest.OverwriteIf, 0)
	if err != nil || st != 0 {
		t.Fatalf("open: %#x %v", st, err)
	}
	if st, err := a.SetInfo(id, 1, 13, 0, []byte{1}); err != nil || st != 0 { // FileDispositionInformation
		t.Fatalf("delete disposition: %#x %v", st, err)
	}
	if _, st, err := b.Create("doomed.txt", rw, smbtest.ShareAll, smbtest.OpenIf, 0); err != nil || st != smbtest.StatusDeletePending {
		t.Fatalf("open while the deleter lives: %#x %v, want DELETE_PENDING", st, err)
	}
	busyThenHangUp(t, srv, a, id)
	if _, st, err := b.Create("doomed.txt", rw, smbtest.ShareAll, smbtest.OpenIf, 0); err != nil || st != 0 {
		t.Fatalf("open after the deleter hung up: %#x %v, want success", st, err)
	}
}

// A client whose connection drops reconnects at once, and its CREATE
// with DH2C may be read before the old connection's end, which is what
// disconnects the open: the reconnect is answered after that end (as
// smbtorture smb2.durable-v2-open reopen2-lease-v2 expects, reconnecting
// without retrying). An open a live connection keeps is not found.
func TestReconnectAfterTheOldConnectionHungUp(t *testing.T) {
	srv, addr := serve(t, Limits{})
	opts := smbtest.Options{Dialect: 0x0300, ClientGUID: [16]byte{0x81}}
	a := dialWith(t, addr, opts)
	createGUID := [16]byte{0xC8}
	spec := smbtest.OpenSpec{Access: smbtest.ReadData | smbtest.WriteData, Disposition: smbtest.OverwriteIf,
		Oplock: smbtest.OplockBatch, DurableV2: true, CreateGUID: createGUID}
	open, st, err := a.CreateWith("dropping.txt", spec)
	if err != nil || st != 0 || !open.Durable {
		t.Fatalf("durable open: %+v %#x %v", open, st, err)
	}
	again := smbtest.OpenSpec{Oplock: smbtest.OplockBatch, Reconnect: &open.FileID, ReconnectV2: true, CreateGUID: createGUID}
	b := dialWith(t, addr, opts)
	if _, st, err := b.CreateWith("dropping.txt", again); err != nil || st != smbtest.StatusObjectNameNotFound {
		t.Fatalf("reclaiming an open its connection still holds: %#x %v, want OBJECT_NAME_NOT_FOUND", st, err)
	}
	busyThenHangUp(t, srv, a, open.FileID)
	re, st, err := b.CreateWith("dropping.txt", again)
	if err != nil || st != 0 || re.FileID != open.FileID {
		t.Fatalf("reconnect after the old connection hung up: %+v %#x %v, want the same FileId", re, st, err)
	}
}
