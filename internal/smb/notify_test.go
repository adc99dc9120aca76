package smb

import (
	"encoding/binary"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/smb/smbtest"
)

// notifyNames decodes a CHANGE_NOTIFY answer's FILE_NOTIFY_INFORMATION
// entries as "action:name".
func notifyNames(t *testing.T, body []byte) []string {
	t.Helper()
	if len(body) < 8 {
		t.Fatalf("short notify body %x", body)
	}
	off, n := int(binary.LittleEndian.Uint16(body[2:]))-64, int(binary.LittleEndian.Uint32(body[4:]))
	buf := body[off : off+n]
	var out []string
	for len(buf) >= 12 {
		next, action, l := binary.LittleEndian.Uint32(buf), binary.LittleEndian.Uint32(buf[4:]), int(binary.LittleEndian.Uint32(buf[8:]))
		u := make([]uint16, l/2)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(buf[12+2*i:])
		}
		out = append(out, string(rune('0'+action))+":"+string(utf16.Decode(u)))
		if next == 0 {
			break
		}
		buf = buf[next:]
	}
	return out
}

// TestChangeNotify: CHANGE_NOTIFY waits (STATUS_PENDING) for a change
// in the directory and answers it, from SMB and from FileREST writes
// (the file model is shared); CANCEL ends it with STATUS_CANCELLED,
// closing the directory with STATUS_NOTIFY_CLEANUP; changes while no
// request waits are buffered, and more than the buffer holds answer
// STATUS_NOTIFY_ENUM_DIR (smbtorture smb2.notify).
func TestChangeNotify(t *testing.T) {
	srv, addr := serve(t, Limits{})
	a := dial(t, addr)
	dir, st, err := a.Create("d", smbtest.ReadData, smbtest.ShareAll, smbtest.OpenIf, smbtest.OptDirectory)
	if err != nil || st != 0 {
		t.Fatalf("open dir: %#x %v", st, err)
	}
	const all = 0xFFF
	p, err := a.NotifyAsync(dir, all, 4096, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Wait(200 * time.Millisecond); ok {
		t.Fatal("notify answered with no change")
	}
	if err := p.Cancel(); err != nil {
		t.Fatal(err)
	}
	if st, ok := p.Wait(5 * time.Second); !ok || st != smbtest.StatusCancelled {
		t.Fatalf("cancelled notify: %#x %v", st, ok)
	}

	// A file created over SMB.
	p, _ = a.NotifyAsync(dir, all, 4096, false)
	f, st, _ := a.Create(`d\one`, smbtest.ReadData|smbtest.WriteData, smbtest.ShareAll, smbtest.OpenIf, smbtest.OptNonDirectory)
	if st != 0 {
		t.Fatalf("create: %#x", st)
	}
	st, body, ok := p.WaitBody(5 * time.Second)
	if !ok || st != 0 {
		t.Fatalf("notify after create: %#x %v", st, ok)
	}
	if got := notifyNames(t, body); len(got) != 1 || got[0] != "1:one" {
		t.Fatalf("notify after create: %q", got)
	}
	// A write through the handle, buffered while no request waits.
	if st, _ := a.Write(f, 0, []byte("data")); st != 0 {
		t.Fatalf("write: %#x", st)
	}
	_, _ = a.CloseFile(f)
	p, _ = a.NotifyAsync(dir, all, 4096, false)
	st, body, ok = p.WaitBody(5 * time.Second)
	if !ok || st != 0 {
		t.Fatalf("notify after write: %#x %v", st, ok)
	}
	if got := notifyNames(t, body); len(got) != 1 || got[0] != "3:one" {
		t.Fatalf("notify after write: %q", got)
	}

	// A file deleted over FileREST.
	p, _ = a.NotifyAsync(dir, all, 4096, false)
	time.Sleep(50 * time.Millisecond)
	if err := srv.files.DeleteFile(t.Context(), file.Ref{Account: azauth.DevAccount, Share: "s", Path: "d/one"}, file.Preconditions{}); err != nil {
		t.Fatal(err)
	}
	st, body, ok = p.WaitBody(5 * time.Second)
	if !ok || st != 0 {
		t.Fatalf("notify after REST delete: %#x %v", st, ok)
	}
	if got := notifyNames(t, body); len(got) != 1 || got[0] != "2:one" {
		t.Fatalf("notify after REST delete: %q", got)
	}

	// More than the request's buffer holds.
	p, _ = a.NotifyAsync(dir, all, 4, false)
	_, _, _ = a.Create(`d\two`, smbtest.ReadData, smbtest.ShareAll, smbtest.OpenIf, smbtest.OptNonDirectory)
	if st, ok := p.Wait(5 * time.Second); !ok || st != smbtest.StatusNotifyEnumDir {
		t.Fatalf("overflowing notify: %#x %v", st, ok)
	}

	// Closing the directory ends a waiting request.
	p, _ = a.NotifyAsync(dir, all, 4096, false)
	time.Sleep(50 * time.Millisecond)
	if st, _ := a.CloseFile(dir); st != 0 {
		t.Fatalf("close: %#x", st)
	}
	if st, ok := p.Wait(5 * time.Second); !ok || st != smbtest.StatusNotifyCleanup {
		t.Fatalf("notify on close: %#x %v", st, ok)
	}
}

// TestReadWriteOffsets: offsets past a signed 64-bit end are invalid,
// past any file a read finds the end and a write of nothing succeeds,
// past NTFS's largest file a write is invalid and past Azure's 4 TiB
// the disk is full, as Windows answers smbtorture smb2.rw.invalid.
func TestReadWriteOffsets(t *testing.T) {
	_, addr := serve(t, Limits{})
	a := dial(t, addr)
	f, st, _ := a.Create("rw", smbtest.ReadData|smbtest.WriteData, smbtest.ShareAll, smbtest.OpenIf, smbtest.OptNonDirectory)
	if st != 0 {
		t.Fatalf("create: %#x", st)
	}
	const maxInt64 = 1<<63 - 1
	for _, tc := range []struct {
		off  uint64
		n    uint32
		want uint32
	}{
		{maxInt64 - 1, 1, smbtest.StatusEndOfFile}, {maxInt64, 0, 0}, {maxInt64, 1, 0xC000000D}, {maxInt64 + 1, 0, 0xC000000D},
	} {
		if _, st, _ := a.Read(f, tc.off, tc.n); st != tc.want {
			t.Errorf("read %d at %#x: %#x, want %#x", tc.n, tc.off, st, tc.want)
		}
	}
	for _, tc := range []struct {
		off  uint64
		n    int
		want uint32
	}{
		{^uint64(0), 1, 0xC000000D}, {maxInt64, 0, 0}, {maxInt64, 1, 0xC000000D}, {0xfffffff0000, 1, 0xC000000D},
		{0xfffffff0000 - 1, 1, 0xC000007F}, {0xfffffff0000, 0, 0},
	} {
		if st, _ := a.Write(f, tc.off, make([]byte, tc.n)); st != tc.want {
			t.Errorf("write %d at %#x: %#x, want %#x", tc.n, tc.off, st, tc.want)
		}
	}
}
