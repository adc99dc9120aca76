package filesdk_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"

	filestore "github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

// lockedFile creates a 100-byte file and opens an SMB handle on it that
// shares everything, so that only its byte-range locks can refuse REST.
func lockedFile(t *testing.T, f *fixture, shareName string) (*file.Client, *filestore.Service, *filestore.Handle) {
	t.Helper()
	fc := f.share(t, shareName).NewRootDirectoryClient().NewFileClient("f")
	if _, err := fc.Create(t.Context(), 100, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := fc.UploadRange(t.Context(), 0, streaming.NopCloser(bytes.NewReader(bytes.Repeat([]byte("x"), 100))), nil); err != nil {
		t.Fatal(err)
	}
	s := smb(f.env)
	h, err := s.OpenHandle(t.Context(), filestore.Ref{Account: f.env.Account, Share: shareName, Path: "f"}, filestore.HandleOptions{Access: rd | wr, ShareAccess: all})
	if err != nil {
		t.Fatal(err)
	}
	return fc, s, h
}

// TestRESTAgainstByteRangeLocks: with an SMB client holding a shared or
// an exclusive lock on bytes [40, 50), each FileREST operation answers
// 409 FileLockConflict exactly where the lock is in its way: Put Range
// (and a clear) needs write access to the entire file, so any lock
// refuses it; Get File meets an exclusive lock on the bytes it reads; a
// resize meets a lock between the old and new sizes; Create File over the
// file replaces all of it. Operations that leave the content alone pass.
func TestRESTAgainstByteRangeLocks(t *testing.T) {
	t.Parallel()
	type op struct {
		name string
		run  func(t *testing.T, fc *file.Client) error
		// conflict under a shared and under an exclusive lock
		shared, exclusive bool
	}
	download := func(r file.HTTPRange) func(t *testing.T, fc *file.Client) error {
		return func(t *testing.T, fc *file.Client) error {
			resp, err := fc.DownloadStream(t.Context(), &file.DownloadStreamOptions{Range: r})
			if err == nil {
				_, err = io.Copy(io.Discard, resp.Body)
				err = errors.Join(err, resp.Body.Close())
			}
			return err
		}
	}
	ops := []op{
		{"Get File", download(file.HTTPRange{}), false, true},
		{"Get File of the locked bytes", download(file.HTTPRange{Offset: 45, Count: 10}), false, true},
		{"Get File beside them", download(file.HTTPRange{Offset: 0, Count: 40}), false, false},
		{"Put Range beside them", func(t *testing.T, fc *file.Client) error {
			_, err := fc.UploadRange(t.Context(), 0, streaming.NopCloser(bytes.NewReader([]byte("ab"))), nil)
			return err
		}, true, true},
		{"Clear Range beside them", func(t *testing.T, fc *file.Client) error {
			_, err := fc.ClearRange(t.Context(), file.HTTPRange{Offset: 90, Count: 10}, nil)
			return err
		}, true, true},
		{"shrink into them", func(t *testing.T, fc *file.Client) error {
			_, err := fc.Resize(t.Context(), 45, nil)
			return err
		}, true, true},
		{"Create File", func(t *testing.T, fc *file.Client) error {
			_, err := fc.Create(t.Context(), 100, nil)
			return err
		}, true, true},
		{"Set File Metadata", func(t *testing.T, fc *file.Client) error {
			_, err := fc.SetMetadata(t.Context(), &file.SetMetadataOptions{Metadata: map[string]*string{"k": to.Ptr("v")}})
			return err
		}, false, false},
		{"Set HTTP headers", func(t *testing.T, fc *file.Client) error {
			_, err := fc.SetHTTPHeaders(t.Context(), &file.SetHTTPHeadersOptions{HTTPHeaders: &file.HTTPHeaders{ContentType: to.Ptr("text/plain")}})
			return err
		}, false, false},
		{"Get File Properties", func(t *testing.T, fc *file.Client) error {
			_, err := fc.GetProperties(t.Context(), nil)
			return err
		}, false, false},
		{"List Ranges", func(t *testing.T, fc *file.Client) error {
			_, err := fc.GetRangeList(t.Context(), nil)
			return err
		}, false, false},
	}
	f := newFixture(t)
	for i, o := range ops {
		for _, exclusive := range []bool{false, true} {
			name := o.name + " under a shared lock"
			want := o.shared
			if exclusive {
				name, want = o.name+" under an exclusive lock", o.exclusive
			}
			t.Run(name, func(t *testing.T) {
				shareName := "locks" + strconv.Itoa(i)
				if exclusive {
					shareName += "x"
				}
				fc, s, h := lockedFile(t, f, shareName)
				ctx := t.Context()
				if err := s.Lock(ctx, filestore.HandleRef{Account: f.env.Account, Share: shareName, FileID: h.FileID, HandleID: h.ID}, filestore.LockRange{Offset: 40, Length: 10, Exclusive: exclusive}); err != nil {
					t.Fatal(err)
				}
				err := o.run(t, fc)
				if want {
					wantStatus(t, err, http.StatusConflict, "FileLockConflict")
				} else if err != nil {
					t.Fatalf("%s: %v, want success", name, err)
				}
				// Unlocked, every operation passes.
				if err := s.Unlock(ctx, filestore.HandleRef{Account: f.env.Account, Share: shareName, FileID: h.FileID, HandleID: h.ID}, 40, 10); err != nil {
					t.Fatal(err)
				}
				if err := o.run(t, fc); err != nil {
					t.Fatalf("%s once unlocked: %v", name, err)
				}
				// Create File moved the handle to the file it made: close
				// it the way REST does, by path.
				if resp, err := fc.ForceCloseHandles(ctx, "*", nil); err != nil || *resp.NumberOfHandlesClosed != 1 {
					t.Fatalf("force close: %v", err)
				}
			})
		}
	}
}

// TestForceCloseReleasesLocks: Force Close Handles from REST ends the
// handle and with it its locks, so Put Range passes again.
func TestForceCloseReleasesLocks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fc, s, h := lockedFile(t, f, "forced")
	ctx := t.Context()
	if err := s.Lock(ctx, filestore.HandleRef{Account: f.env.Account, Share: "forced", FileID: h.FileID, HandleID: h.ID}, filestore.LockRange{Offset: 0, Length: 1, Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	wake := s.LockReleased(f.env.Account, "forced", h.FileID)
	_, err := fc.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader([]byte("ab"))), nil)
	wantStatus(t, err, http.StatusConflict, "FileLockConflict")
	if _, err := fc.ForceCloseHandles(ctx, "*", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := fc.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader([]byte("ab"))), nil); err != nil {
		t.Fatalf("Put Range after force close: %v", err)
	}
	if err := s.Unlock(ctx, filestore.HandleRef{Account: f.env.Account, Share: "forced", FileID: h.FileID, HandleID: h.ID}, 0, 1); !errors.Is(err, filestore.ErrHandleClosed) {
		t.Fatalf("unlock through a force-closed handle: %v", err)
	}
	// The server's own Service closed the handle: this one's waiters get
	// no signal, which is why LockReleased is only a hint.
	select {
	case <-wake:
		t.Fatal("a Service woke for a release it did not commit")
	default:
	}
}

// TestLocksEndWithTheirProcess: a lock refuses Put Range while its
// handle's server runs; the handle, and so the lock, ends with the process
// (no SMB connection outlives it), so after a restart Put Range passes.
func TestLocksEndWithTheirProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := newFixture(t, servertest.WithDataDir(dir))
	ctx := t.Context()
	_, s, h := lockedFile(t, f, "durable")
	if err := s.Lock(ctx, filestore.HandleRef{Account: f.env.Account, Share: "durable", FileID: h.FileID, HandleID: h.ID}, filestore.LockRange{Offset: 10, Length: 5, Exclusive: false}); err != nil {
		t.Fatal(err)
	}
	fc := f.svc.NewShareClient("durable").NewRootDirectoryClient().NewFileClient("f")
	_, err := fc.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader([]byte("ab"))), nil)
	wantStatus(t, err, http.StatusConflict, "FileLockConflict")
	// Opened through the file model, not an SMB connection, the handle
	// outlives this stop as it would a crash.
	if err := f.env.Server.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	g := newFixture(t, servertest.WithDataDir(dir))
	fc = g.svc.NewShareClient("durable").NewRootDirectoryClient().NewFileClient("f")
	if ls, err := smb(g.env).Locks(ctx, filestore.HandleRef{Account: g.env.Account, Share: "durable", FileID: h.FileID, HandleID: h.ID}); err == nil && len(ls) != 0 {
		t.Fatalf("locks after restart: %v", ls)
	}
	if _, err := fc.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader([]byte("ab"))), nil); err != nil {
		t.Fatalf("Put Range after restart: %v", err)
	}
}
