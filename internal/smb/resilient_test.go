package smb

import (
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/smb/smbtest"
)

// resiliency is a NETWORK_RESILIENCY_REQUEST asking for ms milliseconds.
func resiliency(ms uint32) []byte {
	b := make([]byte, 8)
	le.PutUint32(b, ms)
	return b
}

// TestResilientOpenSurvivesDisconnect: FSCTL_LMR_REQUEST_RESILIENCY
// refuses a short input and a timeout above the maximum; granted (0: the
// default timeout) on an SMB 2.1 open without any caching, it keeps the
// open and its byte-range lock when the TCP connection drops, the DHnC
// reconnect reclaims it, and a LOCK resent with its lock sequence is not
// applied twice. An open that was not made resilient is gone.
func TestResilientOpenSurvivesDisconnect(t *testing.T) {
	_, addr := serve(t, Limits{})
	opts := smbtest.Options{Dialect: 0x0210, ClientGUID: [16]byte{0x52}}
	a := dialWith(t, addr, opts)
	spec := smbtest.OpenSpec{Access: smbtest.ReadData | smbtest.WriteData, Share: smbtest.ShareAll, Disposition: smbtest.OverwriteIf}
	open, st, err := a.CreateWith("resilient.txt", spec)
	if err != nil || st != 0 {
		t.Fatalf("open: %#x %v", st, err)
	}
	plain, st, err := a.CreateWith("plain.txt", spec)
	if err != nil || st != 0 {
		t.Fatalf("open: %#x %v", st, err)
	}
	for _, in := range [][]byte{resiliency(1000)[:4], resiliency(uint32(resiliencyMax/time.Millisecond) + 1)} {
		if _, st, err := a.Ioctl(open.FileID, fsctlLMRRequestResiliency, in, 0); err != nil || st != smbtest.StatusInvalidParameter {
			t.Fatalf("resiliency with %x: %#x %v, want INVALID_PARAMETER", in, st, err)
		}
	}
	if _, st, err := a.Ioctl(open.FileID, fsctlLMRRequestResiliency, resiliency(0), 0); err != nil || st != 0 {
		t.Fatalf("resiliency: %#x %v", st, err)
	}
	const excl = smbtest.LockExclusive | smbtest.FailNow
	if st, err := a.LockSeq(open.FileID, 100, 100, excl, 1, 1); err != nil || st != 0 {
		t.Fatalf("lock: %#x %v", st, err)
	}
	_ = a.Close() // the TCP connection drops

	b := dialWith(t, addr, opts)
	re, st := reclaim(t, b, "resilient.txt", smbtest.OpenSpec{Reconnect: &open.FileID})
	if st != 0 || re.FileID != open.FileID {
		t.Fatalf("reconnect: %+v %#x", re, st)
	}
	c := dial(t, addr)
	other, st, err := c.CreateWith("resilient.txt", smbtest.OpenSpec{Access: smbtest.ReadData | smbtest.WriteData, Share: smbtest.ShareAll, Disposition: smbtest.Open})
	if err != nil || st != 0 {
		t.Fatalf("second open: %#x %v", st, err)
	}
	if st, err := c.Lock(other.FileID, 150, 10, excl); err != nil || st != smbtest.StatusLockNotGranted {
		t.Fatalf("lock over the kept lock: %#x %v, want LOCK_NOT_GRANTED", st, err)
	}
	if st, err := b.LockSeq(re.FileID, 100, 100, excl, 1, 1); err != nil || st != 0 {
		t.Fatalf("replayed lock: %#x %v, want SUCCESS", st, err)
	}
	if st, err := b.LockSeq(re.FileID, 100, 100, smbtest.Unlock, 2, 1); err != nil || st != 0 {
		t.Fatalf("unlock: %#x %v", st, err)
	}
	if st, err := b.LockSeq(re.FileID, 100, 100, smbtest.Unlock, 2, 2); err != nil || st != smbtest.StatusRangeNotLocked {
		t.Fatalf("second unlock: %#x %v, want RANGE_NOT_LOCKED (the lock was taken once)", st, err)
	}
	if st, err := c.Lock(other.FileID, 150, 10, excl); err != nil || st != 0 {
		t.Errorf("lock once released: %#x %v", st, err)
	}

	if _, st, err := b.CreateWith("plain.txt", smbtest.OpenSpec{Reconnect: &plain.FileID}); err != nil || st != smbtest.StatusObjectNameNotFound {
		t.Errorf("reconnect of an open not made resilient: %#x %v, want OBJECT_NAME_NOT_FOUND", st, err)
	}
}

// TestResiliencyRefusedOnSMB202: SMB 2.0.2 has no resilient handles.
func TestResiliencyRefusedOnSMB202(t *testing.T) {
	_, addr := serve(t, Limits{})
	a := dialWith(t, addr, smbtest.Options{Dialect: 0x0202})
	open, st, err := a.CreateWith("r.txt", smbtest.OpenSpec{Access: smbtest.ReadData, Disposition: smbtest.OverwriteIf})
	if err != nil || st != 0 {
		t.Fatalf("open: %#x %v", st, err)
	}
	if _, st, err := a.Ioctl(open.FileID, fsctlLMRRequestResiliency, resiliency(0), 0); err != nil || st != statusInvalidDeviceRequest {
		t.Fatalf("resiliency on 2.0.2: %#x %v, want INVALID_DEVICE_REQUEST", st, err)
	}
}
