package smb

import (
	"strconv"
	"sync"
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

// Whether a frame may ask for a change notification is read from its
// chain of commands; a sealed frame's commands are not known yet.
func TestMayWatch(t *testing.T) {
	create := testRequest(cmdCreate, 1, createBody("c.txt", 0x12019f, 3, 0))
	notify := testRequest(cmdChangeNotify, 1, make([]byte, 32))
	closeRel := testRequest(cmdClose, 1, closeBody(relatedFileID))
	for _, tc := range []struct {
		name  string
		frame []byte
		want  bool
	}{
		{"create", create, false},
		{"notify", notify, true},
		{"create, close", compound(true, false, create, closeRel), false},
		{"create, notify", compound(false, false, create, notify), true},
		{"sealed", append([]byte{0xFD, 'S', 'M', 'B'}, make([]byte, 60)...), true},
		{"truncated", create[:20], false},
	} {
		if got := mayWatch(tc.frame); got != tc.want {
			t.Errorf("%s: mayWatch %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Several connections that each hold the share's directory open (as a
// file manager showing it does) change files at the same time. Each
// change first lets the others answer what they had received; two
// changes waiting for each other that way would each wait the whole
// watchOrderWait, on every change (a 4 KiB open-write-close took about
// 50 times as long, BenchmarkSMBOpenWriteClose/dirs-open). The later one
// yields instead, so no change waits for the bound.
func TestChangesOfDirectoryHoldersDoNotWaitForEachOther(t *testing.T) {
	srv, addr := serve(t, Limits{})
	const clients, rounds = 4, 50
	var wg sync.WaitGroup
	for i := range clients {
		c := dial(t, addr)
		if _, st, err := c.Create("", smbtest.ReadData, smbtest.ShareAll, smbtest.Open, smbtest.OptDirectory); err != nil || st != 0 {
			t.Fatalf("open the directory: %#x %v", st, err)
		}
		wg.Go(func() {
			for j := range rounds {
				if err := c.WriteFile("f"+strconv.Itoa(i)+"-"+strconv.Itoa(j%8), []byte("data")); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := srv.orderingTimeouts.Load(); n != 0 {
		t.Fatalf("%d of %d changes waited the whole %v for another connection", n, clients*rounds*3, watchOrderWait)
	}
}
