package smb

import (
	"testing"

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
