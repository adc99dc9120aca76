package smbclient_test

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/smb/smbtest"
	"github.com/cerulean-db/cerulean/internal/testkit"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	sharefile "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"
)

// restFixture is a server and share for the tests that hold SMB opens
// with the in-repo test client (no smbclient needed).
func restFixture(t *testing.T) *fixture { return benchFixture(t) }

// benchFixture is restFixture for tests and benchmarks.
func benchFixture(t testing.TB) *fixture {
	t.Helper()
	env := servertest.Start(t)
	_, svc := testkit.FileService(t, env.FileURL, env.Account, env.Key)
	sc := svc.NewShareClient("smbshare")
	if _, err := sc.Create(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	_, port, err := net.SplitHostPort(env.SMBAddr)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{env: env, svc: svc, share: sc, name: "smbshare", port: port}
}

func (f *fixture) dial(t *testing.T) *smbtest.Client {
	t.Helper()
	c, err := smbtest.Dial(f.env.SMBAddr, f.env.Account, f.env.Key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.ConnectTree(f.name); err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fixture) open(t *testing.T, c *smbtest.Client, path string, access, share, disp, opts uint32) smbtest.FileID {
	t.Helper()
	id, st, err := c.Create(path, access, share, disp, opts)
	if err != nil || st != smbtest.StatusSuccess {
		t.Fatalf("SMB open %s access %#x share %#x: status %#x, %v", path, access, share, st, err)
	}
	return id
}

// code is the Azure error code of a REST error ("" for none).
func code(err error) string {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.ErrorCode
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

func status(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

// TestRESTRespectsSMBShareModes is the REST × share-mode matrix with a
// real SMB open holding the handle: a REST operation succeeds exactly
// when the open's share mode grants the access the operation needs
// (Azure's "Manage file locks" table), and Delete File fails while any
// handle is open.
func TestRESTRespectsSMBShareModes(t *testing.T) {
	const always = ^uint32(0) // an operation no share mode refuses
	f := restFixture(t)
	c := f.dial(t)
	f.restWrite(t, "m.bin", []byte("0123456789"))
	ops := []struct {
		name string
		need uint32 // share mode bits the operation needs; 0: refused while open
		run  func() error
	}{
		{"Get File", smbtest.ShareRead, func() error {
			_, err := f.file("m.bin").DownloadStream(t.Context(), nil)
			return err
		}},
		{"Put Range", smbtest.ShareWrite, func() error {
			_, err := f.file("m.bin").UploadRange(t.Context(), 0, streaming.NopCloser(bytes.NewReader([]byte("x"))), nil)
			return err
		}},
		{"Rename File (source)", smbtest.ShareDel, func() error {
			_, err := f.file("m.bin").Rename(t.Context(), "m2.bin", nil)
			if err == nil {
				_, err2 := f.file("m2.bin").Rename(t.Context(), "m.bin", nil)
				if err2 != nil {
					t.Fatalf("rename back: %v", err2)
				}
			}
			return err
		}},
		{"List Ranges", smbtest.ShareRead, func() error {
			_, err := f.file("m.bin").GetRangeList(t.Context(), nil)
			return err
		}},
		{"Set File Metadata", smbtest.ShareWrite, func() error {
			_, err := f.file("m.bin").SetMetadata(t.Context(), &sharefile.SetMetadataOptions{Metadata: map[string]*string{"k": to.Ptr("v")}})
			return err
		}},
		{"Create File (over it)", smbtest.ShareWrite | smbtest.ShareDel, func() error {
			_, err := f.file("m.bin").Create(t.Context(), 10, nil)
			return err
		}},
		{"Lease File", smbtest.ShareAll, func() error { return testkit.AcquireRelease(t, f.file("m.bin")) }},
		{"Get File Properties", always, func() error {
			_, err := f.file("m.bin").GetProperties(t.Context(), nil)
			return err
		}},
		{"Delete File", 0, func() error {
			_, err := f.file("m.bin").Delete(t.Context(), nil)
			if err == nil {
				f.restWrite(t, "m.bin", []byte("0123456789"))
			}
			return err
		}},
	}
	for mode := uint32(0); mode <= smbtest.ShareAll; mode++ {
		id := f.open(t, c, "m.bin", smbtest.ReadData, mode, smbtest.Open, 0)
		for _, op := range ops {
			err := op.run()
			allowed := op.need == always || op.need != 0 && mode&op.need == op.need
			switch {
			case allowed && err != nil:
				t.Errorf("share mode %#x: %s failed: %v", mode, op.name, err)
			case !allowed && (status(err) != http.StatusConflict || code(err) != "SharingViolation"):
				t.Errorf("share mode %#x: %s answered %d %s, want 409 SharingViolation", mode, op.name, status(err), code(err))
			}
		}
		// The open outlives whatever REST did beside it (Create File
		// over the file included): the SMB client still reads and closes.
		if _, st, err := c.Read(id, 0, 1); err != nil || st != 0 {
			t.Fatalf("share mode %#x: SMB read after the REST operations: %#x %v", mode, st, err)
		}
		if st, err := c.CloseFile(id); err != nil || st != 0 {
			t.Fatalf("close: %#x %v", st, err)
		}
	}
	// With the open closed, everything goes.
	for _, op := range ops[:len(ops)-1] {
		if err := op.run(); err != nil {
			t.Errorf("%s after close: %v", op.name, err)
		}
	}
}

// TestSMBOpensConflict: two SMB opens follow Windows sharing, and a
// REST-opened view sees the winner's data.
func TestSMBOpensConflict(t *testing.T) {
	f := restFixture(t)
	a, b := f.dial(t), f.dial(t)
	id := f.open(t, a, "x.txt", smbtest.ReadData|smbtest.WriteData, smbtest.ShareRead, smbtest.OpenIf, smbtest.OptNonDirectory)
	if _, st, _ := b.Create("x.txt", smbtest.WriteData, smbtest.ShareAll, smbtest.Open, 0); st != smbtest.StatusSharingViolation {
		t.Errorf("a second writer: %#x, want STATUS_SHARING_VIOLATION", st)
	}
	if _, st, _ := b.Create("x.txt", smbtest.ReadData, smbtest.ShareRead, smbtest.Open, 0); st != smbtest.StatusSharingViolation {
		t.Errorf("a reader denying write beside a writer: %#x, want STATUS_SHARING_VIOLATION", st)
	}
	rid := f.open(t, b, "x.txt", smbtest.ReadData, smbtest.ShareAll, smbtest.Open, 0)
	if st, _ := a.Write(id, 0, []byte("hello smb")); st != 0 {
		t.Fatalf("write: %#x", st)
	}
	if data, st, _ := b.Read(rid, 0, 100); st != 0 || string(data) != "hello smb" {
		t.Errorf("the other open reads %q (%#x)", data, st)
	}
	if got := f.restRead(t, "x.txt"); string(got) != "hello smb" {
		t.Errorf("REST reads %q", got)
	}
	if _, st, _ := a.Read(id, 9, 10); st != smbtest.StatusEndOfFile {
		t.Errorf("read at the end: %#x, want STATUS_END_OF_FILE", st)
	}
}

// TestListAndForceCloseSMBHandles: REST List Handles shows an SMB open
// with its session, client IP and open time; Force Close Handles ends
// it, and the SMB client's next use of it is STATUS_FILE_CLOSED.
func TestListAndForceCloseSMBHandles(t *testing.T) {
	f := restFixture(t)
	c := f.dial(t)
	f.restWrite(t, "held.bin", []byte("held"))
	before := time.Now().Add(-time.Second)
	id := f.open(t, c, "held.bin", smbtest.ReadData|smbtest.WriteData, smbtest.ShareRead, smbtest.Open, 0)
	if _, err := f.file("held.bin").UploadRange(t.Context(), 0, streaming.NopCloser(bytes.NewReader([]byte("x"))), nil); code(err) != "SharingViolation" {
		t.Fatalf("REST Put Range beside a deny-write SMB open: %v, want 409 SharingViolation", err)
	}
	list, err := f.file("held.bin").ListHandles(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Handles) != 1 {
		t.Fatalf("List Handles shows %d handles, want 1", len(list.Handles))
	}
	h := list.Handles[0]
	if *h.ClientIP == "" || (*h.ClientIP)[:9] != "127.0.0.1" || *h.SessionID == "0" || *h.SessionID == "" || h.OpenTime.Before(before) || *h.Path != "held.bin" {
		t.Errorf("handle: ip %s session %s open %v path %s", *h.ClientIP, *h.SessionID, *h.OpenTime, *h.Path)
	}
	closed, err := f.file("held.bin").ForceCloseHandles(t.Context(), *h.ID, nil)
	if err != nil || *closed.NumberOfHandlesClosed != 1 {
		t.Fatalf("force close: %v", err)
	}
	if _, st, _ := c.Read(id, 0, 4); st != smbtest.StatusFileClosed {
		t.Errorf("SMB read after Force Close Handles: %#x, want STATUS_FILE_CLOSED", st)
	}
	if st, _ := c.Write(id, 0, []byte("late")); st != smbtest.StatusFileClosed {
		t.Errorf("SMB write after Force Close Handles: %#x, want STATUS_FILE_CLOSED", st)
	}
	if _, err := f.file("held.bin").UploadRange(t.Context(), 0, streaming.NopCloser(bytes.NewReader([]byte("x"))), nil); err != nil {
		t.Errorf("REST Put Range after the force close: %v", err)
	}
}

// TestSMBDeleteOnClose: a delete-on-close open makes REST answer
// DeletePending and hide the file from listings; the close deletes it.
func TestSMBDeleteOnClose(t *testing.T) {
	f := restFixture(t)
	c := f.dial(t)
	f.restWrite(t, "doomed.txt", []byte("bye"))
	id := f.open(t, c, "doomed.txt", smbtest.Delete|smbtest.ReadData, smbtest.ShareAll, smbtest.Open, smbtest.OptDeleteOnClose)
	if _, err := f.file("doomed.txt").GetProperties(t.Context(), nil); status(err) != http.StatusConflict {
		t.Errorf("REST Get Properties of a delete-pending file: %v, want 409", err)
	}
	pager := f.share.NewRootDirectoryClient().NewListFilesAndDirectoriesPager(nil)
	page, err := pager.NextPage(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Segment.Files) != 0 {
		t.Errorf("REST lists the delete-pending file")
	}
	if _, st, _ := f.dial(t).Create("doomed.txt", smbtest.ReadData, smbtest.ShareAll, smbtest.Open, 0); st != smbtest.StatusDeletePending {
		t.Errorf("another SMB open: %#x, want STATUS_DELETE_PENDING", st)
	}
	if st, _ := c.CloseFile(id); st != 0 {
		t.Fatalf("close: %#x", st)
	}
	if _, err := f.file("doomed.txt").GetProperties(t.Context(), nil); status(err) != http.StatusNotFound {
		t.Errorf("after close: %v, want 404", err)
	}
}

// TestSMBLocks: exclusive and shared byte-range locks between two SMB
// opens and REST; a waiting lock is granted when the holder unlocks, and
// CANCEL ends another with STATUS_CANCELLED.
func TestSMBLocks(t *testing.T) {
	f := restFixture(t)
	a, b := f.dial(t), f.dial(t)
	f.restWrite(t, "l.bin", bytes.Repeat([]byte("L"), 100))
	ida := f.open(t, a, "l.bin", smbtest.ReadData|smbtest.WriteData, smbtest.ShareAll, smbtest.Open, 0)
	idb := f.open(t, b, "l.bin", smbtest.ReadData|smbtest.WriteData, smbtest.ShareAll, smbtest.Open, 0)
	if st, _ := a.Lock(ida, 0, 10, smbtest.LockExclusive|smbtest.FailNow); st != 0 {
		t.Fatalf("lock: %#x", st)
	}
	if st, _ := b.Lock(idb, 5, 10, smbtest.LockShared|smbtest.FailNow); st != smbtest.StatusLockNotGranted {
		t.Errorf("overlapping lock: %#x, want STATUS_LOCK_NOT_GRANTED", st)
	}
	if _, st, _ := b.Read(idb, 0, 5); st != smbtest.StatusFileLockConflict {
		t.Errorf("read under another's exclusive lock: %#x, want STATUS_FILE_LOCK_CONFLICT", st)
	}
	if st, _ := b.Write(idb, 8, []byte("zz")); st != smbtest.StatusFileLockConflict {
		t.Errorf("write under another's exclusive lock: %#x, want STATUS_FILE_LOCK_CONFLICT", st)
	}
	if data, st, _ := a.Read(ida, 0, 5); st != 0 || string(data) != "LLLLL" {
		t.Errorf("the holder reads %q %#x", data, st)
	}
	if data, st, _ := b.Read(idb, 20, 5); st != 0 || string(data) != "LLLLL" {
		t.Errorf("outside the lock: %q %#x", data, st)
	}
	if _, err := f.file("l.bin").UploadRange(t.Context(), 50, streaming.NopCloser(bytes.NewReader([]byte("r"))), nil); status(err) != http.StatusConflict {
		t.Errorf("REST Put Range while a lock is held: %v, want 409", err)
	}
	// A waiting lock is granted once the holder unlocks.
	p, err := b.LockAsync(idb, 0, 10, smbtest.LockExclusive)
	if err != nil {
		t.Fatal(err)
	}
	if st, done := p.Wait(300 * time.Millisecond); done {
		t.Fatalf("the waiting lock answered %#x while the range is locked", st)
	}
	if st, _ := a.Lock(ida, 0, 10, smbtest.Unlock); st != 0 {
		t.Fatalf("unlock: %#x", st)
	}
	if st, done := p.Wait(5 * time.Second); !done || st != 0 {
		t.Fatalf("the waiting lock after unlock: %#x (answered %v)", st, done)
	}
	if st, _ := a.Lock(ida, 0, 10, smbtest.Unlock); st != smbtest.StatusRangeNotLocked {
		t.Errorf("unlocking what is not locked: %#x, want STATUS_RANGE_NOT_LOCKED", st)
	}
	// A waiting lock cancelled.
	q, err := a.LockAsync(ida, 0, 10, smbtest.LockShared)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if err := q.Cancel(); err != nil {
		t.Fatal(err)
	}
	if st, done := q.Wait(5 * time.Second); !done || st != smbtest.StatusCancelled {
		t.Errorf("cancelled lock: %#x (answered %v), want STATUS_CANCELLED", st, done)
	}
	// Closing the holder releases its locks.
	if st, _ := b.CloseFile(idb); st != 0 {
		t.Fatal(st)
	}
	if st, _ := a.Lock(ida, 0, 10, smbtest.LockExclusive|smbtest.FailNow); st != 0 {
		t.Errorf("lock after the holder closed: %#x", st)
	}
}

// TestSMBWrongShareAndKey: tree connect to a missing share or to an NFS
// share (which SMB clients do not see: Azure mounts it over NFS only),
// and a wrong key through the test client.
func TestSMBWrongShareAndKey(t *testing.T) {
	f := restFixture(t)
	c, err := smbtest.Dial(f.env.SMBAddr, f.env.Account, f.env.Key)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	if st, err := c.TreeConnect("nosuchshare"); err != nil || st != smbtest.StatusBadNetworkName {
		t.Errorf("tree connect to a missing share: %#x %v, want STATUS_BAD_NETWORK_NAME", st, err)
	}
	if _, err := f.svc.NewShareClient("nfsshare").Create(t.Context(), &share.CreateOptions{EnabledProtocols: to.Ptr("NFS")}); err != nil {
		t.Fatal(err)
	}
	if st, err := c.TreeConnect("nfsshare"); err != nil || st != smbtest.StatusBadNetworkName {
		t.Errorf("tree connect to an NFS share: %#x %v, want STATUS_BAD_NETWORK_NAME", st, err)
	}
	if st, err := c.TreeConnect("IPC$"); err != nil || st != 0 {
		t.Errorf("tree connect to IPC$: %#x %v", st, err)
	}
	if _, err := smbtest.Dial(f.env.SMBAddr, f.env.Account, "d3Jvbmc="); !errors.Is(err, smbtest.ErrLogon) {
		t.Errorf("wrong key: %v, want a logon failure", err)
	}
}

// TestSMBLoad: 50 SMB sessions open, write, lock, read back, unlock and
// close their own files while REST writes a file of its own and reads
// theirs, all on one share. No REST request answers 5xx, every SMB
// request succeeds, and each file ends holding its writer's last data.
func TestSMBLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	f := restFixture(t)
	const sessions, rounds = 50, 10
	f.restWrite(t, "rest.bin", make([]byte, 4096))
	stop := make(chan struct{})
	var restErrs []error
	var restWG sync.WaitGroup
	restWG.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_, err := f.file("rest.bin").UploadRange(t.Context(), 0, streaming.NopCloser(bytes.NewReader(bytes.Repeat([]byte{byte(i)}, 4096))), nil)
			if err != nil {
				restErrs = append(restErrs, err)
			}
			_, err = f.file("s"+strconv.Itoa(i%sessions)+".bin").DownloadStream(t.Context(), nil)
			if err != nil && status(err) >= 500 {
				restErrs = append(restErrs, err)
			}
		}
	})
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for s := range sessions {
		wg.Go(func() {
			c, err := smbtest.Dial(f.env.SMBAddr, f.env.Account, f.env.Key)
			if err != nil {
				errs <- err
				return
			}
			defer func() { _ = c.Close() }()
			if err := c.ConnectTree(f.name); err != nil {
				errs <- err
				return
			}
			name := "s" + strconv.Itoa(s) + ".bin"
			for r := range rounds {
				data := bytes.Repeat([]byte(fmt.Sprintf("%02d:%02d|", s, r)), 512)
				id, st, err := c.Create(name, smbtest.ReadData|smbtest.WriteData, smbtest.ShareRead, smbtest.OpenIf, 0)
				if err != nil || st != 0 {
					errs <- fmt.Errorf("%s round %d open: status %#x: %w", name, r, st, err)
					return
				}
				steps := []func() uint32{
					func() uint32 { st, _ := c.Write(id, 0, data); return st },
					func() uint32 {
						st, _ := c.Lock(id, 0, uint64(len(data)), smbtest.LockExclusive|smbtest.FailNow)
						return st
					},
					func() uint32 {
						got, st, _ := c.Read(id, 0, uint32(len(data)))
						if st == 0 && !bytes.Equal(got, data) {
							return 0xFFFFFFFF
						}
						return st
					},
					func() uint32 { st, _ := c.Lock(id, 0, uint64(len(data)), smbtest.Unlock); return st },
					func() uint32 { st, _ := c.CloseFile(id); return st },
				}
				for i, step := range steps {
					if st := step(); st != 0 {
						errs <- fmt.Errorf("%s round %d step %d: status %#x", name, r, i, st)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	restWG.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, err := range restErrs {
		t.Errorf("REST: %v", err)
	}
	for s := range sessions {
		want := bytes.Repeat([]byte(fmt.Sprintf("%02d:%02d|", s, rounds-1)), 512)
		if got := f.restRead(t, "s"+strconv.Itoa(s)+".bin"); !bytes.Equal(got, want) {
			t.Errorf("s%d.bin holds %.20q..., want the last round's data", s, got)
		}
	}
}
