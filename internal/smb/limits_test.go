package smb

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/smb/smbtest"
)

// serve starts a Server with the given limits over an in-memory store
// holding share "s" of the development account.
func serve(t *testing.T, limits Limits) (*Server, string) {
	t.Helper()
	files := file.New(file.Config{Store: memory.Open()})
	if _, err := files.CreateShare(t.Context(), file.ShareRef{Account: azauth.DevAccount, Share: "s"}, file.ShareSpec{}); err != nil {
		t.Fatal(err)
	}
	accts, err := azauth.LoadAccounts(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Config{Files: files, Accounts: accts, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: limits})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Close(ctx); err != nil {
			t.Error(err)
		}
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return srv, ln.Addr().String()
}

func dial(t *testing.T, addr string) *smbtest.Client {
	t.Helper()
	c, err := smbtest.Dial(addr, azauth.DevAccount, azauth.DevKey)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.ConnectTree("s"); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestHandleLimits: opens beyond the per-session or the server-wide
// limit answer STATUS_INSUFFICIENT_RESOURCES; closing (or dropping the
// connection) gives the places back.
func TestHandleLimits(t *testing.T) {
	srv, addr := serve(t, Limits{MaxHandlesPerSession: 2, MaxHandles: 3})
	a := dial(t, addr)
	var ids []smbtest.FileID
	for _, name := range []string{"a", "b"} {
		id, st, err := a.Create(name, smbtest.ReadData, smbtest.ShareAll, smbtest.OpenIf, 0)
		if err != nil || st != 0 {
			t.Fatalf("open %s: %#x %v", name, st, err)
		}
		ids = append(ids, id)
	}
	if _, st, _ := a.Create("c", smbtest.ReadData, smbtest.ShareAll, smbtest.OpenIf, 0); st != smbtest.StatusInsufficientResources {
		t.Fatalf("a third open in the session: %#x", st)
	}
	b := dial(t, addr)
	if _, st, _ := b.Create("c", smbtest.ReadData, smbtest.ShareAll, smbtest.OpenIf, 0); st != 0 {
		t.Fatalf("another session's open: %#x", st)
	}
	if _, st, _ := b.Create("d", smbtest.ReadData, smbtest.ShareAll, smbtest.OpenIf, 0); st != smbtest.StatusInsufficientResources {
		t.Fatalf("an open beyond the server's limit: %#x", st)
	}
	if st, _ := a.CloseFile(ids[0]); st != 0 {
		t.Fatal(st)
	}
	if _, st, _ := b.Create("d", smbtest.ReadData, smbtest.ShareAll, smbtest.OpenIf, 0); st != 0 {
		t.Fatalf("an open after a close: %#x", st)
	}
	_ = a.Close()
	deadline := time.Now().Add(5 * time.Second)
	for srv.handles.Load() != 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := srv.handles.Load(); n != 2 {
		t.Fatalf("%d handles counted after a connection dropped one, want 2", n)
	}
}

// TestMalformedClosesConnection: a frame that is not SMB2 (a bad
// length, a bad header, an oversized frame) closes its connection, and
// the server goes on serving others.
func TestMalformedClosesConnection(t *testing.T) {
	_, addr := serve(t, Limits{})
	for name, frame := range map[string][]byte{
		"not a session message": {0x85, 0, 0, 0},
		"oversized":             {0, 0xFF, 0xFF, 0xFF},
		"short":                 {0, 0, 0, 4, 1, 2, 3, 4},
		"bad protocol id":       append([]byte{0, 0, 0, 64}, make([]byte, 64)...),
	} {
		c := dial(t, addr)
		if err := c.Raw(frame); err != nil {
			t.Fatal(err)
		}
		if !c.Closed(5 * time.Second) {
			t.Errorf("%s: the connection stays open", name)
		}
	}
	c := dial(t, addr)
	if _, st, err := c.Create("still", smbtest.ReadData, smbtest.ShareAll, smbtest.OpenIf, 0); err != nil || st != 0 {
		t.Fatalf("a new connection after malformed ones: %#x %v", st, err)
	}
}

// TestWaitingLocksBounded: waiting locks beyond MaxPending answer
// STATUS_INSUFFICIENT_RESOURCES instead of waiting.
func TestWaitingLocksBounded(t *testing.T) {
	_, addr := serve(t, Limits{MaxPending: 1})
	a, b := dial(t, addr), dial(t, addr)
	ida, _, _ := a.Create("f", smbtest.ReadData|smbtest.WriteData, smbtest.ShareAll, smbtest.OpenIf, 0)
	idb, _, _ := b.Create("f", smbtest.ReadData|smbtest.WriteData, smbtest.ShareAll, smbtest.OpenIf, 0)
	if st, _ := a.Lock(ida, 0, 10, smbtest.LockExclusive); st != 0 {
		t.Fatal(st)
	}
	p, err := b.LockAsync(idb, 0, 10, smbtest.LockExclusive)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if st, _ := b.Lock(idb, 0, 5, smbtest.LockShared); st != smbtest.StatusInsufficientResources {
		t.Errorf("a second waiting lock: %#x", st)
	}
	if st, _ := a.CloseFile(ida); st != 0 {
		t.Fatal(st)
	}
	if st, ok := p.Wait(5 * time.Second); !ok || st != 0 {
		t.Errorf("the waiting lock after the holder closed: %#x %v", st, ok)
	}
}
