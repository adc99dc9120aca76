package smb

import (
	"bytes"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/smb/smbtest"
)

func dialWith(t *testing.T, addr string, o smbtest.Options) *smbtest.Client {
	t.Helper()
	c, err := smbtest.DialWith(addr, azauth.DevAccount, azauth.DevKey, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.ConnectTree("s"); err != nil {
		t.Fatal(err)
	}
	return c
}

// reclaim retries a durable reconnect while the server has not yet seen
// the old connection drop (it answers OBJECT_NAME_NOT_FOUND until then).
func reclaim(t *testing.T, c *smbtest.Client, path string, o smbtest.OpenSpec) (smbtest.Opened, uint32) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, st, err := c.CreateWith(path, o)
		if err != nil {
			t.Fatal(err)
		}
		if st != smbtest.StatusObjectNameNotFound || time.Now().After(deadline) {
			return r, st
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDurableHandleSurvivesDroppedConnection: a client opens a file
// durable (v2, with an RWH lease), locks a range and writes, loses its
// TCP connection, and on a new connection and session reclaims the handle
// with DH2C: the FileId, the byte-range lock and the share mode are still
// its own, so another client is refused the lock, the write and a delete
// open, and gets them once the reclaimed handle lets go.
func TestDurableHandleSurvivesDroppedConnection(t *testing.T) {
	_, addr := serve(t, Limits{})
	opts := smbtest.Options{Dialect: 0x0300, ClientGUID: [16]byte{1, 2, 3}}
	a := dialWith(t, addr, opts)
	key := [16]byte{0xA1}
	createGUID := [16]byte{0xC1}
	lease := &smbtest.Lease{Key: key, State: smbtest.LeaseRead | smbtest.LeaseWrite | smbtest.LeaseHandle, V2: true}
	open, st, err := a.CreateWith("durable.txt", smbtest.OpenSpec{Access: smbtest.ReadData | smbtest.WriteData, Share: smbtest.ShareRead | smbtest.ShareWrite,
		Disposition: smbtest.OverwriteIf, Oplock: smbtest.OplockLease, Lease: lease, DurableV2: true, CreateGUID: createGUID})
	if err != nil || st != smbtest.StatusSuccess {
		t.Fatalf("durable open: %#x %v", st, err)
	}
	if !open.Durable || open.LeaseState != 7 || open.Timeout != 60000 {
		t.Fatalf("durable open granted %+v, want durable with lease RWH and a 60 s timeout", open)
	}
	if st, err := a.Write(open.FileID, 0, []byte("kept across a reconnect")); err != nil || st != 0 {
		t.Fatalf("write: %#x %v", st, err)
	}
	if st, err := a.Lock(open.FileID, 0, 10, smbtest.LockExclusive|smbtest.FailNow); err != nil || st != 0 {
		t.Fatalf("lock: %#x %v", st, err)
	}
	_ = a.Close() // the TCP connection drops; no LOGOFF, no CLOSE

	b := dialWith(t, addr, opts)
	re, st := reclaim(t, b, "durable.txt", smbtest.OpenSpec{Oplock: smbtest.OplockLease, Lease: lease,
		Reconnect: &open.FileID, ReconnectV2: true, CreateGUID: createGUID})
	if st != smbtest.StatusSuccess {
		t.Fatalf("DH2C reconnect: %#x", st)
	}
	if re.FileID != open.FileID || re.LeaseState != 7 || re.Durable {
		t.Fatalf("reconnect answered %+v, want the same FileId, lease RWH, no durable context", re)
	}
	data, st, err := b.Read(re.FileID, 0, 64)
	if err != nil || st != 0 || string(data) != "kept across a reconnect" {
		t.Fatalf("read through the reclaimed handle: %q %#x %v", data, st, err)
	}

	// Another client's open breaks the lease's write caching; the
	// reclaimed handle's connection hears the break and acknowledges.
	c := dial(t, addr)
	p, err := c.CreateAsync("durable.txt", smbtest.OpenSpec{Access: smbtest.ReadData | smbtest.WriteData, Share: smbtest.ShareAll, Disposition: smbtest.Open})
	if err != nil {
		t.Fatal(err)
	}
	br, ok := b.NextBreak(5 * time.Second)
	if !ok || !br.Lease || br.Key != key || br.Current != 7 || br.New != 3 || br.Flags&1 == 0 {
		t.Fatalf("break: %+v %v, want lease RWH to RH, acknowledgement required", br, ok)
	}
	if st, err := b.AckLease(key, 3); err != nil || st != 0 {
		t.Fatalf("acknowledge: %#x %v", st, err)
	}
	other, st, ok := p.Opened(5 * time.Second)
	if !ok || st != 0 {
		t.Fatalf("second open after the break: %#x %v", st, ok)
	}
	// A byte-range lock ends read caching (MS-FSA): the lease, holding
	// handle caching too, breaks with an acknowledgement.
	if st, err := c.Lock(other.FileID, 0, 10, smbtest.LockExclusive|smbtest.FailNow); err != nil || st != smbtest.StatusLockNotGranted {
		t.Errorf("lock over the reclaimed lock: %#x %v, want LOCK_NOT_GRANTED", st, err)
	}
	if br, ok := b.NextBreak(5 * time.Second); !ok || br.Current != 3 || br.New != 0 || br.Flags&1 == 0 {
		t.Fatalf("read-caching break: %+v %v, want RH to none, acknowledgement required", br, ok)
	}
	if st, err := b.AckLease(key, 0); err != nil || st != 0 {
		t.Fatalf("acknowledge: %#x %v", st, err)
	}
	if st, err := c.Lock(other.FileID, 20, 5, smbtest.LockExclusive|smbtest.FailNow); err != nil || st != 0 {
		t.Errorf("lock beside the reclaimed lock: %#x %v", st, err)
	}
	if st, err := c.Write(other.FileID, 2, []byte("x")); err != nil || st != smbtest.StatusFileLockConflict {
		t.Errorf("write into the reclaimed lock: %#x %v, want FILE_LOCK_CONFLICT", st, err)
	}
	// The reclaimed open still denies delete.
	if _, st, err := c.Create("durable.txt", smbtest.Delete, smbtest.ShareAll, smbtest.Open, 0); err != nil || st != smbtest.StatusSharingViolation {
		t.Errorf("delete open against the reclaimed share mode: %#x %v, want SHARING_VIOLATION", st, err)
	}

	if st, err := b.Lock(re.FileID, 0, 10, smbtest.Unlock); err != nil || st != 0 {
		t.Fatalf("unlock through the reclaimed handle: %#x %v", st, err)
	}
	if st, err := c.Lock(other.FileID, 0, 10, smbtest.LockExclusive|smbtest.FailNow); err != nil || st != 0 {
		t.Errorf("lock once released: %#x %v", st, err)
	}
}

// TestDurableHandleExpires: a disconnected durable handle that nobody
// reclaims within its timeout closes, and its locks go with it.
func TestDurableHandleExpires(t *testing.T) {
	_, addr := serve(t, Limits{})
	opts := smbtest.Options{Dialect: 0x0300, ClientGUID: [16]byte{9}}
	a := dialWith(t, addr, opts)
	createGUID := [16]byte{0xC2}
	open, st, err := a.CreateWith("expiring.txt", smbtest.OpenSpec{Access: smbtest.ReadData | smbtest.WriteData, Share: smbtest.ShareRead,
		Disposition: smbtest.OverwriteIf, Oplock: smbtest.OplockBatch, DurableV2: true, CreateGUID: createGUID, Timeout: 300})
	if err != nil || st != 0 || open.Oplock != smbtest.OplockBatch || !open.Durable || open.Timeout != 300 {
		t.Fatalf("durable open: %+v %#x %v", open, st, err)
	}
	if st, err := a.Lock(open.FileID, 0, 10, smbtest.LockExclusive|smbtest.FailNow); err != nil || st != 0 {
		t.Fatalf("lock: %#x %v", st, err)
	}
	_ = a.Close()
	time.Sleep(time.Second)
	b := dialWith(t, addr, opts)
	if _, st, err := b.CreateWith("expiring.txt", smbtest.OpenSpec{Oplock: smbtest.OplockBatch, Reconnect: &open.FileID, ReconnectV2: true, CreateGUID: createGUID}); err != nil || st != smbtest.StatusObjectNameNotFound {
		t.Fatalf("reconnect after the timeout: %#x %v, want OBJECT_NAME_NOT_FOUND", st, err)
	}
	id, st, err := b.Create("expiring.txt", smbtest.ReadData|smbtest.WriteData, smbtest.ShareAll, smbtest.Open, 0)
	if err != nil || st != 0 {
		t.Fatalf("open after expiry: %#x %v", st, err)
	}
	if st, err := b.Lock(id, 0, 10, smbtest.LockExclusive|smbtest.FailNow); err != nil || st != 0 {
		t.Errorf("lock after expiry: %#x %v", st, err)
	}
}

// TestBatchOplockBreak: a second open of a file under a batch oplock
// waits (STATUS_PENDING) until the holder acknowledges the break to
// level II, then gets level II itself.
func TestBatchOplockBreak(t *testing.T) {
	_, addr := serve(t, Limits{})
	a, b := dial(t, addr), dial(t, addr)
	first, st, err := a.CreateWith("batch.txt", smbtest.OpenSpec{Access: smbtest.ReadData | smbtest.WriteData, Share: smbtest.ShareAll,
		Disposition: smbtest.OverwriteIf, Oplock: smbtest.OplockBatch})
	if err != nil || st != 0 || first.Oplock != smbtest.OplockBatch {
		t.Fatalf("first open: %+v %#x %v", first, st, err)
	}
	p, err := b.CreateAsync("batch.txt", smbtest.OpenSpec{Access: smbtest.ReadData, Share: smbtest.ShareAll, Disposition: smbtest.Open, Oplock: smbtest.OplockBatch})
	if err != nil {
		t.Fatal(err)
	}
	br, ok := a.NextBreak(5 * time.Second)
	if !ok || br.Lease || br.Level != smbtest.OplockLevelII || br.FileID != first.FileID {
		t.Fatalf("break: %+v %v, want an oplock break to level II", br, ok)
	}
	if _, st, done := p.Opened(200 * time.Millisecond); done {
		t.Fatalf("second open answered %#x before the break was acknowledged", st)
	}
	if st, err := a.AckOplock(first.FileID, smbtest.OplockLevelII); err != nil || st != 0 {
		t.Fatalf("acknowledge: %#x %v", st, err)
	}
	second, st, ok := p.Opened(5 * time.Second)
	if !ok || st != 0 || second.Oplock != smbtest.OplockLevelII {
		t.Fatalf("second open: %+v %#x %v, want level II", second, st, ok)
	}
	if st, err := a.AckOplock(first.FileID, smbtest.OplockNone); err != nil || st == 0 {
		t.Errorf("acknowledging with no break in progress: %#x %v, want an error", st, err)
	}
}

// TestBreakTimeout: a holder that never acknowledges loses its oplock
// after the break timeout, and the waiting open goes on.
func TestBreakTimeout(t *testing.T) {
	_, addr := serve(t, Limits{BreakTimeout: 300 * time.Millisecond})
	a, b := dial(t, addr), dial(t, addr)
	if _, st, err := a.CreateWith("slow.txt", smbtest.OpenSpec{Access: smbtest.ReadData | smbtest.WriteData, Share: smbtest.ShareAll,
		Disposition: smbtest.OverwriteIf, Oplock: smbtest.OplockExclusive}); err != nil || st != 0 {
		t.Fatalf("first open: %#x %v", st, err)
	}
	start := time.Now()
	second, st, err := b.CreateWith("slow.txt", smbtest.OpenSpec{Access: smbtest.ReadData, Share: smbtest.ShareAll, Disposition: smbtest.Open, Oplock: smbtest.OplockExclusive})
	if err != nil || st != 0 {
		t.Fatalf("second open: %#x %v", st, err)
	}
	if waited := time.Since(start); waited < 250*time.Millisecond {
		t.Errorf("second open answered after %v, before the break timed out", waited)
	}
	if second.Oplock != smbtest.OplockLevelII {
		t.Errorf("second open got oplock %#x, want level II beside the first open", second.Oplock)
	}
}

// TestRESTWriteBreaksLease: Put Range on a file an SMB client holds a
// write-caching lease on breaks the lease, as Azure Files does, and the
// REST write waits for the client's acknowledgement.
func TestRESTWriteBreaksLease(t *testing.T) {
	srv, addr := serve(t, Limits{})
	a := dialWith(t, addr, smbtest.Options{Dialect: 0x0300, ClientGUID: [16]byte{7}})
	key := [16]byte{0xB1}
	open, st, err := a.CreateWith("rest.txt", smbtest.OpenSpec{Access: smbtest.ReadData | smbtest.WriteData, Share: smbtest.ShareAll,
		Disposition: smbtest.OverwriteIf, Oplock: smbtest.OplockLease, Lease: &smbtest.Lease{Key: key, State: 7, V2: true}})
	if err != nil || st != 0 {
		t.Fatalf("open: %#x %v", st, err)
	}
	if st, err := a.Write(open.FileID, 0, []byte("smb!")); err != nil || st != 0 {
		t.Fatalf("write under the lease: %#x %v", st, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := srv.files.PutRange(t.Context(), file.Ref{Account: azauth.DevAccount, Share: "s", Path: "rest.txt"}, 0,
			file.Content{Body: bytes.NewReader([]byte("rest")), Length: 4}, file.Preconditions{})
		done <- err
	}()
	br, ok := a.NextBreak(5 * time.Second)
	if !ok || !br.Lease || br.Current != 7 || br.New != 0 || br.Flags&1 == 0 {
		t.Fatalf("break: %+v %v, want RWH to none, acknowledgement required", br, ok)
	}
	select {
	case err := <-done:
		t.Fatalf("Put Range finished (%v) before the lease break was acknowledged", err)
	case <-time.After(200 * time.Millisecond):
	}
	if st, err := a.AckLease(key, 0); err != nil || st != 0 {
		t.Fatalf("acknowledge: %#x %v", st, err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Put Range: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Put Range still waits after the acknowledgement")
	}
}
