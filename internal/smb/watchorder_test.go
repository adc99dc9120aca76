package smb

import (
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/smb/smbtest"
)

// A client asks for change notification on one connection and at once
// changes a file on another (smbtorture smb2.notify.basedir): the change
// waits for the first connection to take the request it received
// earlier, so the notification answers it. The first connection is kept
// busy with a write when the NOTIFY arrives, which is what lost the
// change when each connection was read on its own.
func TestChangeWaitsForAnEarlierNotify(t *testing.T) {
	_, addr := serve(t, Limits{})
	a, b := dial(t, addr), dial(t, addr)
	dir, st, err := a.Create("w", smbtest.ReadData, smbtest.ShareAll, smbtest.OpenIf, smbtest.OptDirectory)
	if err != nil || st != 0 {
		t.Fatalf("open dir: %#x %v", st, err)
	}
	big, st, err := a.Create(`w\big`, smbtest.ReadData|smbtest.WriteData, smbtest.ShareAll, smbtest.OverwriteIf, smbtest.OptNonDirectory)
	if err != nil || st != 0 {
		t.Fatalf("create: %#x %v", st, err)
	}
	f, st, err := b.Create(`w\f`, smbtest.ReadData|smbtest.WriteData, smbtest.ShareAll, smbtest.OverwriteIf, smbtest.OptNonDirectory)
	if err != nil || st != 0 {
		t.Fatalf("create: %#x %v", st, err)
	}
	if _, err := a.WriteAsync(big, 0, make([]byte, maxIO)); err != nil {
		t.Fatal(err)
	}
	p, err := a.NotifyAsync(dir, notifySize|notifyLastWrite, 4096, false)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := b.Write(f, 0, []byte("changed")); err != nil || st != 0 {
		t.Fatalf("write: %#x %v", st, err)
	}
	st, body, ok := p.WaitBody(5 * time.Second)
	if !ok || st != 0 {
		t.Fatalf("notify sent before the change: %#x answered %v, want the change", st, ok)
	}
	if got := notifyNames(t, body); len(got) == 0 || got[0] != "3:f" {
		t.Fatalf("notify sent before the change: %q, want 3:f first", got)
	}
}
