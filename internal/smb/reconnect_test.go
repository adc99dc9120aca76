package smb

import (
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/smb/smbtest"
)

// TestPreviousSessionKeepsDurableOpens: a client that logs on again
// naming its previous session (the old connection still up, as when the
// client gave it up first) ends that session, and the session's durable
// open is left disconnected for the new session to reclaim, v1 and v2,
// with a batch oplock from any client GUID, with a lease only from the
// lease's client.
func TestPreviousSessionKeepsDurableOpens(t *testing.T) {
	for _, tc := range []struct {
		name  string
		v2    bool
		lease bool
	}{{"v1 oplock", false, false}, {"v2 oplock", true, false}, {"v1 lease", false, true}, {"v2 lease", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			_, addr := serve(t, Limits{})
			guid := [16]byte{0x51}
			a := dialWith(t, addr, smbtest.Options{Dialect: 0x0300, ClientGUID: guid})
			spec := smbtest.OpenSpec{Access: smbtest.ReadData | smbtest.WriteData, Disposition: smbtest.OverwriteIf,
				Oplock: smbtest.OplockBatch, Durable: !tc.v2, DurableV2: tc.v2, CreateGUID: [16]byte{0xC5}}
			again := smbtest.OpenSpec{Oplock: smbtest.OplockBatch, ReconnectV2: tc.v2, CreateGUID: spec.CreateGUID}
			if tc.lease {
				spec.Oplock = smbtest.OplockLease
				spec.Lease = &smbtest.Lease{Key: [16]byte{0x1E}, State: smbtest.LeaseRead | smbtest.LeaseWrite | smbtest.LeaseHandle, V2: tc.v2}
				again.Oplock, again.Lease = smbtest.OplockLease, spec.Lease
			}
			open, st, err := a.CreateWith("prev.txt", spec)
			if err != nil || st != 0 || !open.Durable {
				t.Fatalf("durable open: %+v %#x %v", open, st, err)
			}
			again.Reconnect = &open.FileID

			// An oplock's open may be reclaimed from another client; a
			// lease's is then not found, and the lease's own client
			// reclaims it next.
			b := dialWith(t, addr, smbtest.Options{Dialect: 0x0300, ClientGUID: [16]byte{0x52}, PreviousSession: a.SessionID()})
			if _, st, err := a.CreateWith("prev.txt", again); err != nil || st != smbtest.StatusUserSessionDeleted {
				t.Fatalf("request on the ended session: %#x %v, want USER_SESSION_DELETED", st, err)
			}
			re, st, err := b.CreateWith("prev.txt", again)
			if tc.lease {
				if err != nil || st != smbtest.StatusObjectNameNotFound {
					t.Fatalf("another client reclaiming the lease's open: %#x %v, want OBJECT_NAME_NOT_FOUND", st, err)
				}
				c := dialWith(t, addr, smbtest.Options{Dialect: 0x0300, ClientGUID: guid})
				re, st, err = c.CreateWith("prev.txt", again)
			}
			if err != nil || st != 0 || re.FileID != open.FileID {
				t.Fatalf("reclaim on the new session: %+v %#x %v, want the same FileId", re, st, err)
			}
		})
	}
}

// TestDurableHandleKeepsLocksAndPosition: a durable handle (v1 and v2,
// batch oplock) keeps its byte-range lock and its file position across
// a dropped TCP connection: once reclaimed, another client's
// conflicting lock is still refused, the position reads as set, and the
// lock is granted to the other client after the reclaimed handle
// unlocks.
func TestDurableHandleKeepsLocksAndPosition(t *testing.T) {
	for _, v2 := range []bool{false, true} {
		t.Run(map[bool]string{false: "v1", true: "v2"}[v2], func(t *testing.T) {
			_, addr := serve(t, Limits{})
			opts := smbtest.Options{Dialect: 0x0300, ClientGUID: [16]byte{0x61}}
			a := dialWith(t, addr, opts)
			createGUID := [16]byte{0xC6}
			open, st, err := a.CreateWith("locked.txt", smbtest.OpenSpec{Access: smbtest.ReadData | smbtest.WriteData, Share: smbtest.ShareRead | smbtest.ShareWrite,
				Disposition: smbtest.OverwriteIf, Oplock: smbtest.OplockBatch, Durable: !v2, DurableV2: v2, CreateGUID: createGUID})
			if err != nil || st != 0 || !open.Durable || open.Oplock != smbtest.OplockBatch {
				t.Fatalf("durable open: %+v %#x %v", open, st, err)
			}
			if st, err := a.Lock(open.FileID, 0, 10, smbtest.LockExclusive|smbtest.FailNow); err != nil || st != 0 {
				t.Fatalf("lock: %#x %v", st, err)
			}
			pos := make([]byte, 8)
			le.PutUint64(pos, 0x1000)
			if st, err := a.SetInfo(open.FileID, infoFile, filePositionInformation, 0, pos); err != nil || st != 0 {
				t.Fatalf("set position: %#x %v", st, err)
			}
			_ = a.Close() // the TCP connection drops

			b := dialWith(t, addr, opts)
			re, st := reclaim(t, b, "locked.txt", smbtest.OpenSpec{Oplock: smbtest.OplockBatch, Reconnect: &open.FileID, ReconnectV2: v2, CreateGUID: createGUID})
			if st != 0 || re.FileID != open.FileID || re.Oplock != smbtest.OplockBatch {
				t.Fatalf("reconnect: %+v %#x", re, st)
			}
			got, st, err := b.QueryInfo(re.FileID, infoFile, filePositionInformation, 0, 8)
			if err != nil || st != 0 || len(got) != 8 || le.Uint64(got) != 0x1000 {
				t.Errorf("position after the reconnect: %x %#x %v, want 0x1000", got, st, err)
			}

			c := dial(t, addr)
			p, err := c.CreateAsync("locked.txt", smbtest.OpenSpec{Access: smbtest.ReadData | smbtest.WriteData, Share: smbtest.ShareAll, Disposition: smbtest.Open})
			if err != nil {
				t.Fatal(err)
			}
			if br, ok := b.NextBreak(5 * time.Second); !ok || br.Lease || br.FileID != re.FileID {
				t.Fatalf("oplock break to the reclaimed handle: %+v %v", br, ok)
			}
			if st, err := b.AckOplock(re.FileID, smbtest.OplockNone); err != nil || st != 0 {
				t.Fatalf("acknowledge: %#x %v", st, err)
			}
			other, st, ok := p.Opened(5 * time.Second)
			if !ok || st != 0 {
				t.Fatalf("second open: %#x %v", st, ok)
			}
			if st, err := c.Lock(other.FileID, 5, 10, smbtest.LockExclusive|smbtest.FailNow); err != nil || st != smbtest.StatusLockNotGranted {
				t.Fatalf("lock over the reclaimed lock: %#x %v, want LOCK_NOT_GRANTED", st, err)
			}
			if st, err := b.Lock(re.FileID, 0, 10, smbtest.Unlock); err != nil || st != 0 {
				t.Fatalf("unlock through the reclaimed handle: %#x %v", st, err)
			}
			if st, err := c.Lock(other.FileID, 5, 10, smbtest.LockExclusive|smbtest.FailNow); err != nil || st != 0 {
				t.Errorf("lock once released: %#x %v", st, err)
			}
		})
	}
}

// TestLockReplayOnReclaimedDurableHandle: a LOCK resent with the lock
// sequence it was applied with, after the durable handle was reclaimed
// on a new connection, succeeds without locking twice; a new sequence
// number is a new LOCK. On an open that is not durable the sequence is
// not checked, so the resent lock conflicts with the first.
func TestLockReplayOnReclaimedDurableHandle(t *testing.T) {
	_, addr := serve(t, Limits{})
	opts := smbtest.Options{Dialect: 0x0300, ClientGUID: [16]byte{0x71}}
	a := dialWith(t, addr, opts)
	createGUID := [16]byte{0xC7}
	open, st, err := a.CreateWith("seq.txt", smbtest.OpenSpec{Access: smbtest.ReadData | smbtest.WriteData, Disposition: smbtest.OverwriteIf,
		Oplock: smbtest.OplockBatch, DurableV2: true, CreateGUID: createGUID})
	if err != nil || st != 0 || !open.Durable {
		t.Fatalf("durable open: %+v %#x %v", open, st, err)
	}
	const excl = smbtest.LockExclusive | smbtest.FailNow
	if st, err := a.LockSeq(open.FileID, 100, 100, excl, 1, 1); err != nil || st != 0 {
		t.Fatalf("lock: %#x %v", st, err)
	}
	_ = a.Close()
	b := dialWith(t, addr, opts)
	re, st := reclaim(t, b, "seq.txt", smbtest.OpenSpec{Oplock: smbtest.OplockBatch, Reconnect: &open.FileID, ReconnectV2: true, CreateGUID: createGUID})
	if st != 0 {
		t.Fatalf("reconnect: %#x", st)
	}
	if st, err := b.LockSeq(re.FileID, 100, 100, excl, 1, 1); err != nil || st != 0 {
		t.Fatalf("replayed lock: %#x %v, want SUCCESS", st, err)
	}
	if st, err := b.LockSeq(re.FileID, 100, 100, excl, 1, 2); err != nil || st != smbtest.StatusLockNotGranted {
		t.Fatalf("lock with a new sequence number: %#x %v, want LOCK_NOT_GRANTED", st, err)
	}
	if st, err := b.LockSeq(re.FileID, 100, 100, smbtest.Unlock, 2, 1); err != nil || st != 0 {
		t.Fatalf("unlock: %#x %v", st, err)
	}
	if st, err := b.LockSeq(re.FileID, 100, 100, smbtest.Unlock, 2, 1); err != nil || st != 0 {
		t.Fatalf("replayed unlock: %#x %v, want SUCCESS", st, err)
	}
	if st, err := b.LockSeq(re.FileID, 100, 100, smbtest.Unlock, 2, 2); err != nil || st != smbtest.StatusRangeNotLocked {
		t.Fatalf("second unlock: %#x %v, want RANGE_NOT_LOCKED (the lock was taken once)", st, err)
	}

	plain, st, err := b.CreateWith("plain.txt", smbtest.OpenSpec{Access: smbtest.ReadData | smbtest.WriteData, Disposition: smbtest.OverwriteIf})
	if err != nil || st != 0 {
		t.Fatalf("open: %#x %v", st, err)
	}
	if st, err := b.LockSeq(plain.FileID, 0, 10, excl, 1, 1); err != nil || st != 0 {
		t.Fatalf("lock: %#x %v", st, err)
	}
	if st, err := b.LockSeq(plain.FileID, 0, 10, excl, 1, 1); err != nil || st != smbtest.StatusLockNotGranted {
		t.Fatalf("resent lock on an open that is not durable: %#x %v, want LOCK_NOT_GRANTED", st, err)
	}
}

// TestAppInstanceClosesOtherClientsOpen: an open with an application
// instance ID closes the opens made with the same ID on the same file by
// another client GUID (connected, or durable and disconnected), before
// the sharing check and without a break; the same client GUID, or
// another ID, closes nothing.
func TestAppInstanceClosesOtherClientsOpen(t *testing.T) {
	_, addr := serve(t, Limits{})
	app, otherApp := [16]byte{0xA9}, [16]byte{0xAA}
	client := func(g byte) *smbtest.Client {
		return dialWith(t, addr, smbtest.Options{Dialect: 0x0300, ClientGUID: [16]byte{g}})
	}
	exclusive := func(id *[16]byte) smbtest.OpenSpec {
		return smbtest.OpenSpec{Access: smbtest.ReadData | smbtest.WriteData, Disposition: smbtest.OpenIf, AppInstance: id}
	}
	a := client(1)
	first, st, err := a.CreateWith("app.txt", exclusive(&app))
	if err != nil || st != 0 {
		t.Fatalf("first open: %#x %v", st, err)
	}
	if _, st, err := client(1).CreateWith("app.txt", exclusive(&app)); err != nil || st != smbtest.StatusSharingViolation {
		t.Fatalf("same client GUID, same application: %#x %v, want SHARING_VIOLATION", st, err)
	}
	if _, st, err := client(3).CreateWith("app.txt", exclusive(&otherApp)); err != nil || st != smbtest.StatusSharingViolation {
		t.Fatalf("another application: %#x %v, want SHARING_VIOLATION", st, err)
	}
	b := client(2)
	durable := exclusive(&app)
	durable.Oplock, durable.DurableV2, durable.CreateGUID = smbtest.OplockBatch, true, [16]byte{0xC9}
	second, st, err := b.CreateWith("app.txt", durable)
	if err != nil || st != 0 || !second.Durable {
		t.Fatalf("the application's open from another client: %+v %#x %v, want a durable open", second, st, err)
	}
	if st, err := a.CloseFile(first.FileID); err != nil || st != smbtest.StatusFileClosed {
		t.Fatalf("closing the replaced open: %#x %v, want FILE_CLOSED", st, err)
	}

	// The durable open, its connection dropped, is closed the same way:
	// no break, no wait for its timeout, no reclaim after.
	_ = b.Close()
	if _, st, err := client(4).CreateWith("app.txt", durable); err != nil || st != 0 {
		t.Fatalf("the application's open from a third client: %#x %v", st, err)
	}
	if _, st, err := client(2).CreateWith("app.txt", smbtest.OpenSpec{Oplock: smbtest.OplockBatch, Reconnect: &second.FileID, ReconnectV2: true,
		CreateGUID: durable.CreateGUID}); err != nil || st != smbtest.StatusObjectNameNotFound {
		t.Fatalf("reclaiming the closed durable open: %#x %v, want OBJECT_NAME_NOT_FOUND", st, err)
	}
}
