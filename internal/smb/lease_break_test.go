package smb

import (
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/smb/smbtest"
)

func leaseOpen(t *testing.T, c *smbtest.Client, path string, key byte, state, access, disp uint32) smbtest.Opened {
	t.Helper()
	o, st, err := c.CreateWith(path, smbtest.OpenSpec{Access: access, Share: smbtest.ShareAll, Disposition: disp,
		Oplock: smbtest.OplockLease, Lease: &smbtest.Lease{Key: [16]byte{key}, State: state}})
	if err != nil || st != 0 {
		t.Fatalf("open %s with lease %#x: %#x %v", path, key, st, err)
	}
	return o
}

// TestRenameBreaksOtherLeasesHandleCaching: renaming a file breaks the
// handle caching of another client's lease on it (RH to R, to be
// acknowledged) and waits for the acknowledgement; the renamer's own
// lease is not broken.
func TestRenameBreaksOtherLeasesHandleCaching(t *testing.T) {
	_, addr := serve(t, Limits{})
	a := dialWith(t, addr, smbtest.Options{Dialect: 0x0210, ClientGUID: [16]byte{1}})
	b := dialWith(t, addr, smbtest.Options{Dialect: 0x0210, ClientGUID: [16]byte{2}})
	rh := smbtest.LeaseRead | smbtest.LeaseHandle
	first := leaseOpen(t, a, "ren_src.txt", 0x11, rh, smbtest.ReadData|smbtest.WriteData|smbtest.Delete, smbtest.OverwriteIf)
	if first.LeaseState != rh {
		t.Fatalf("first lease: %#x, want RH", first.LeaseState)
	}
	if second := leaseOpen(t, b, "ren_src.txt", 0x22, rh, smbtest.ReadData, smbtest.Open); second.LeaseState != rh {
		t.Fatalf("second lease: %#x, want RH", second.LeaseState)
	}
	p, err := a.SetInfoAsync(first.FileID, 1, 10, smbtest.RenameInfo("ren_dst.txt", true))
	if err != nil {
		t.Fatal(err)
	}
	br, ok := b.NextBreak(5 * time.Second)
	if !ok || !br.Lease || br.Key != [16]byte{0x22} || br.Current != rh || br.New != smbtest.LeaseRead || br.Flags&1 == 0 {
		t.Fatalf("break: %+v %v, want the second lease RH to R, acknowledgement required", br, ok)
	}
	if st, done := p.Wait(200 * time.Millisecond); done {
		t.Fatalf("rename answered %#x before the break was acknowledged", st)
	}
	if _, st, err := b.CreateWith("ren_dst.txt", smbtest.OpenSpec{Access: smbtest.ReadData, Share: smbtest.ShareAll, Disposition: smbtest.Open}); err != nil || st != smbtest.StatusObjectNameNotFound {
		t.Fatalf("target before the acknowledgement: %#x %v, want OBJECT_NAME_NOT_FOUND", st, err)
	}
	if st, err := b.AckLease([16]byte{0x22}, smbtest.LeaseRead); err != nil || st != 0 {
		t.Fatalf("acknowledge: %#x %v", st, err)
	}
	if st, ok := p.Wait(5 * time.Second); !ok || st != 0 {
		t.Fatalf("rename: %#x %v", st, ok)
	}
	if br, ok := a.NextBreak(100 * time.Millisecond); ok {
		t.Errorf("the renamer's own lease was broken: %+v", br)
	}
	if _, st, err := b.CreateWith("ren_dst.txt", smbtest.OpenSpec{Access: smbtest.ReadData, Share: smbtest.ShareAll, Disposition: smbtest.Open}); err != nil || st != 0 {
		t.Fatalf("target after the rename: %#x %v", st, err)
	}
}

// TestDeleteOnCloseCloseBreaksHandleCaching: closing a delete-on-close
// handle of a file another client holds an RH lease on breaks that
// lease to R, acknowledgement required, as Windows does
// (smb2.lease.unlink), so that the holder can close and the delete
// happen.
func TestDeleteOnCloseCloseBreaksHandleCaching(t *testing.T) {
	_, addr := serve(t, Limits{})
	a := dialWith(t, addr, smbtest.Options{Dialect: 0x0210, ClientGUID: [16]byte{1}})
	b := dialWith(t, addr, smbtest.Options{Dialect: 0x0210, ClientGUID: [16]byte{2}})
	rh := smbtest.LeaseRead | smbtest.LeaseHandle
	held := leaseOpen(t, a, "unlink.txt", 0x33, rh, smbtest.ReadData, smbtest.OverwriteIf)
	if held.LeaseState != rh {
		t.Fatalf("lease: %#x, want RH", held.LeaseState)
	}
	del, st, err := b.CreateWith("unlink.txt", smbtest.OpenSpec{Access: smbtest.Delete, Share: smbtest.ShareAll, Disposition: smbtest.Open, Options: smbtest.OptDeleteOnClose})
	if err != nil || st != 0 {
		t.Fatalf("delete-on-close open: %#x %v", st, err)
	}
	if br, ok := a.NextBreak(200 * time.Millisecond); ok {
		t.Fatalf("break before the delete-on-close handle closed: %+v", br)
	}
	if st, err := b.CloseFile(del.FileID); err != nil || st != 0 {
		t.Fatalf("close: %#x %v", st, err)
	}
	br, ok := a.NextBreak(5 * time.Second)
	if !ok || !br.Lease || br.Key != [16]byte{0x33} || br.Current != rh || br.New != smbtest.LeaseRead || br.Flags&1 == 0 {
		t.Fatalf("break: %+v %v, want RH to R, acknowledgement required", br, ok)
	}
	if st, err := a.AckLease([16]byte{0x33}, smbtest.LeaseRead); err != nil || st != 0 {
		t.Fatalf("acknowledge: %#x %v", st, err)
	}
}

// TestOverwriteOfRHLeaseAnsweredBeforeAck: an overwriting open of a file
// under another client's RH lease (no sharing conflict) breaks the lease
// to none, acknowledgement required, but is answered without waiting for
// it, as Windows answers (smb2.lease.breaking4); a second one meets the
// break in progress and neither waits nor sends another break.
func TestOverwriteOfRHLeaseAnsweredBeforeAck(t *testing.T) {
	_, addr := serve(t, Limits{})
	a := dialWith(t, addr, smbtest.Options{Dialect: 0x0210, ClientGUID: [16]byte{1}})
	b := dialWith(t, addr, smbtest.Options{Dialect: 0x0210, ClientGUID: [16]byte{2}})
	rh := smbtest.LeaseRead | smbtest.LeaseHandle
	all := smbtest.ReadData | smbtest.WriteData
	if o := leaseOpen(t, a, "ow.txt", 0x44, rh, all, smbtest.OverwriteIf); o.LeaseState != rh {
		t.Fatalf("lease: %#x, want RH", o.LeaseState)
	}
	for i := range 2 {
		p, err := b.CreateAsync("ow.txt", smbtest.OpenSpec{Access: all, Share: smbtest.ShareAll, Disposition: smbtest.OverwriteIf})
		if err != nil {
			t.Fatal(err)
		}
		if _, st, ok := p.Opened(2 * time.Second); !ok || st != 0 {
			t.Fatalf("overwrite %d: %#x %v, want answered before the acknowledgement", i, st, ok)
		}
		br, ok := a.NextBreak(300 * time.Millisecond)
		switch {
		case i == 0 && (!ok || br.Current != rh || br.New != 0 || br.Flags&1 == 0):
			t.Fatalf("break: %+v %v, want RH to none, acknowledgement required", br, ok)
		case i == 1 && ok:
			t.Fatalf("second break while one is in progress: %+v", br)
		}
	}
	same := leaseOpen(t, a, "ow.txt", 0x44, 0, smbtest.ReadData, smbtest.Open)
	if same.LeaseState != rh || same.LeaseFlags&2 == 0 {
		t.Errorf("same key during the break: state %#x flags %#x, want RH with BREAK_IN_PROGRESS", same.LeaseState, same.LeaseFlags)
	}
	if st, err := a.AckLease([16]byte{0x44}, 0); err != nil || st != 0 {
		t.Fatalf("acknowledge: %#x %v", st, err)
	}
}

// TestBreakInProgressContinuesInSteps: opens that need a lease broken
// further than the break in progress send no second break; the
// acknowledgement starts the next one at once under the same epoch,
// RH to R (acknowledged) then R to none, and the opens are answered
// only then, as Windows does (smb2.lease.v2_breaking3).
func TestBreakInProgressContinuesInSteps(t *testing.T) {
	_, addr := serve(t, Limits{})
	a := dialWith(t, addr, smbtest.Options{Dialect: 0x0300, ClientGUID: [16]byte{1}})
	b := dialWith(t, addr, smbtest.Options{Dialect: 0x0300, ClientGUID: [16]byte{2}})
	key := [16]byte{0x55}
	rwh := smbtest.LeaseRead | smbtest.LeaseWrite | smbtest.LeaseHandle
	rh := smbtest.LeaseRead | smbtest.LeaseHandle
	all := smbtest.ReadData | smbtest.WriteData
	first, st, err := a.CreateWith("steps.txt", smbtest.OpenSpec{Access: all, Share: smbtest.ShareAll, Disposition: smbtest.OverwriteIf,
		Oplock: smbtest.OplockLease, Lease: &smbtest.Lease{Key: key, State: rwh, V2: true, Epoch: 0x11}})
	if err != nil || st != 0 || first.LeaseState != rwh {
		t.Fatalf("open: %+v %#x %v", first, st, err)
	}
	plain, err := b.CreateAsync("steps.txt", smbtest.OpenSpec{Access: all, Share: smbtest.ShareAll, Disposition: smbtest.Open})
	if err != nil {
		t.Fatal(err)
	}
	br, ok := a.NextBreak(5 * time.Second)
	if !ok || br.Current != rwh || br.New != rh || br.Flags&1 == 0 {
		t.Fatalf("first break: %+v %v, want RWH to RH", br, ok)
	}
	epoch := br.Epoch
	over, err := b.CreateAsync("steps.txt", smbtest.OpenSpec{Access: all, Share: smbtest.ShareAll, Disposition: smbtest.OverwriteIf})
	if err != nil {
		t.Fatal(err)
	}
	if br, ok := a.NextBreak(300 * time.Millisecond); ok {
		t.Fatalf("a second break while one is in progress: %+v", br)
	}
	if st, err := a.AckLease(key, rh); err != nil || st != 0 {
		t.Fatalf("acknowledge RH: %#x %v", st, err)
	}
	br, ok = a.NextBreak(5 * time.Second)
	if !ok || br.Current != rh || br.New != smbtest.LeaseRead || br.Flags&1 == 0 || br.Epoch != epoch {
		t.Fatalf("second break: %+v %v, want RH to R, acknowledged, epoch %d", br, ok, epoch)
	}
	for _, p := range []*smbtest.Pending{plain, over} {
		if _, st, done := p.Opened(100 * time.Millisecond); done {
			t.Fatalf("an open answered %#x while the break is in progress", st)
		}
	}
	if st, err := a.AckLease(key, smbtest.LeaseRead); err != nil || st != 0 {
		t.Fatalf("acknowledge R: %#x %v", st, err)
	}
	br, ok = a.NextBreak(5 * time.Second)
	if !ok || br.Current != smbtest.LeaseRead || br.New != 0 || br.Flags&1 != 0 || br.Epoch != epoch {
		t.Fatalf("third break: %+v %v, want R to none, not acknowledged, epoch %d", br, ok, epoch)
	}
	for _, p := range []*smbtest.Pending{plain, over} {
		if _, st, ok := p.Opened(5 * time.Second); !ok || st != 0 {
			t.Fatalf("open after the breaks: %#x %v", st, ok)
		}
	}
}

// TestLeaseBreakGoesToClientsFirstConnection: a lease break is sent on
// the client's first connection (by client GUID) that is up, as Windows
// sends it (smb2.lease.v2_complex1), even when the lease's open came in
// on another connection of that client.
func TestLeaseBreakGoesToClientsFirstConnection(t *testing.T) {
	_, addr := serve(t, Limits{})
	opts := smbtest.Options{Dialect: 0x0300, ClientGUID: [16]byte{9}}
	first, second := dialWith(t, addr, opts), dialWith(t, addr, opts)
	all := smbtest.ReadData | smbtest.WriteData
	mine := leaseOpen(t, first, "route.txt", 0x61, smbtest.LeaseRead, all, smbtest.OverwriteIf)
	if o := leaseOpen(t, second, "route.txt", 0x62, smbtest.LeaseRead, all, smbtest.Open); o.LeaseState != smbtest.LeaseRead {
		t.Fatalf("second lease: %#x, want R", o.LeaseState)
	}
	if st, err := first.Write(mine.FileID, 0, []byte("x")); err != nil || st != 0 {
		t.Fatalf("write: %#x %v", st, err)
	}
	br, ok := first.NextBreak(5 * time.Second)
	if !ok || br.Key != [16]byte{0x62} || br.Current != smbtest.LeaseRead || br.New != 0 {
		t.Fatalf("break on the first connection: %+v %v, want the second lease R to none", br, ok)
	}
	if br, ok := second.NextBreak(200 * time.Millisecond); ok {
		t.Errorf("break on the second connection: %+v", br)
	}
}
