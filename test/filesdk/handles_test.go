package filesdk_test

import (
	"bytes"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	filestore "github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/servertest"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// smb is the domain API the server's File service runs on, over the same
// store: it opens the handles an SMB client would hold.
func smb(env *servertest.Env) *filestore.Service {
	return filestore.New(filestore.Config{Store: env.Store})
}

const (
	rd, wr, del = filestore.AccessRead, filestore.AccessWrite, filestore.AccessDelete
	all         = filestore.AccessAll
)

// restOps are the FileREST operations on a file that "Manage file locks"
// lists, each returning the SDK's error.
var restOps = []struct {
	name string
	run  func(t *testing.T, fc *file.Client) error
}{
	{"Create File", func(t *testing.T, fc *file.Client) error {
		_, err := fc.Create(t.Context(), 4, nil)
		return err
	}},
	{"Get File", func(t *testing.T, fc *file.Client) error {
		resp, err := fc.DownloadStream(t.Context(), nil)
		if err == nil {
			err = resp.Body.Close()
		}
		return err
	}},
	{"Set File Metadata", func(t *testing.T, fc *file.Client) error {
		_, err := fc.SetMetadata(t.Context(), &file.SetMetadataOptions{Metadata: map[string]*string{"k": to.Ptr("v")}})
		return err
	}},
	{"Put Range", func(t *testing.T, fc *file.Client) error {
		_, err := fc.UploadRange(t.Context(), 0, streaming.NopCloser(bytes.NewReader([]byte("ab"))), nil)
		return err
	}},
	{"List Ranges", func(t *testing.T, fc *file.Client) error {
		_, err := fc.GetRangeList(t.Context(), nil)
		return err
	}},
	{"Lease File", func(t *testing.T, fc *file.Client) error { return testkit.AcquireRelease(t, fc) }},
	{"Get File Properties", func(t *testing.T, fc *file.Client) error {
		_, err := fc.GetProperties(t.Context(), nil)
		return err
	}},
	{"Delete File", func(t *testing.T, fc *file.Client) error {
		_, err := fc.Delete(t.Context(), nil)
		return err
	}},
}

// TestShareModeMatrix: an SMB handle open for read with each share mode
// of Azure's "SMB client sharing mode implications on FileREST" table;
// every FileREST operation on the file fails with 409 SharingViolation
// exactly where the table says, and succeeds otherwise.
func TestShareModeMatrix(t *testing.T) {
	t.Parallel()
	for _, row := range []struct {
		mode  string
		share filestore.Access
		fail  []string
	}{
		{"None", 0, []string{"Create File", "Get File", "Set File Metadata", "Delete File", "Put Range", "List Ranges", "Lease File"}},
		{"Shared Read", rd, []string{"Create File", "Set File Metadata", "Delete File", "Put Range", "Lease File"}},
		{"Shared Write", wr, []string{"Create File", "Get File", "Delete File", "List Ranges", "Lease File"}},
		{"Shared Delete", del, []string{"Create File", "Get File", "Set File Metadata", "Put Range", "List Ranges", "Delete File", "Lease File"}},
		{"Shared Read/Write", rd | wr, []string{"Create File", "Delete File", "Lease File"}},
		{"Shared Read/Delete", rd | del, []string{"Create File", "Set File Metadata", "Put Range", "Delete File", "Lease File"}},
		{"Shared Write/Delete", wr | del, []string{"Get File", "List Ranges", "Delete File", "Lease File"}},
		{"Shared Read/Write/Delete", all, []string{"Delete File"}},
	} {
		t.Run(row.mode, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			sc := f.share(t, "matrix")
			fc := sc.NewRootDirectoryClient().NewFileClient("f")
			if _, err := fc.Create(t.Context(), 4, nil); err != nil {
				t.Fatal(err)
			}
			svc := smb(f.env)
			h, err := svc.OpenHandle(t.Context(), filestore.Ref{Account: f.env.Account, Share: "matrix", Path: "f"}, filestore.HandleOptions{Access: rd, ShareAccess: row.share})
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range restOps {
				err := op.run(t, fc)
				if slices.Contains(row.fail, op.name) {
					wantStatus(t, err, http.StatusConflict, "SharingViolation")
				} else if err != nil {
					t.Errorf("%s beside a handle sharing %s: %v", op.name, row.mode, err)
				}
			}
			// Listing touches no content: the file is listed whatever the
			// share mode.
			if names := listNames(t, sc.NewRootDirectoryClient()); !slices.Equal(names, []string{"f"}) {
				t.Errorf("listing: %v, want [f]", names)
			}
			// Create File may have replaced the file: the handle moved with
			// it, so close it by the ID List Handles reports.
			l, err := fc.ListHandles(t.Context(), nil)
			if err != nil || len(l.Handles) != 1 || *l.Handles[0].ID != strconv.FormatUint(h.ID, 10) {
				t.Fatalf("handles: %+v %v", l, err)
			}
			fileID, _ := strconv.ParseUint(*l.Handles[0].FileID, 10, 64)
			if err := svc.CloseHandle(t.Context(), filestore.HandleRef{Account: f.env.Account, Share: "matrix", FileID: fileID, HandleID: h.ID}); err != nil {
				t.Fatal(err)
			}
			if _, err := fc.Delete(t.Context(), nil); err != nil {
				t.Fatalf("delete once the handle closed: %v", err)
			}
		})
	}
}

// TestLeaseAgainstHandleAccess: acquiring a lease fails while a handle
// holds Write or Delete access, whatever its share mode ("SMB file
// locking implications on FileREST Lease File API").
func TestLeaseAgainstHandleAccess(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fc := f.share(t, "leases").NewRootDirectoryClient().NewFileClient("f")
	if _, err := fc.Create(t.Context(), 4, nil); err != nil {
		t.Fatal(err)
	}
	svc := smb(f.env)
	for _, access := range []filestore.Access{0, rd, wr, del, rd | wr, rd | del, wr | del, all} {
		h, err := svc.OpenHandle(t.Context(), filestore.Ref{Account: f.env.Account, Share: "leases", Path: "f"}, filestore.HandleOptions{Access: access, ShareAccess: all})
		if err != nil {
			t.Fatal(err)
		}
		err = restOps[5].run(t, fc) // Lease File
		if access&(wr|del) != 0 {
			wantStatus(t, err, http.StatusConflict, "SharingViolation")
		} else if err != nil {
			t.Errorf("lease beside a handle with access %v: %v", access, err)
		}
		if err := svc.CloseHandle(t.Context(), filestore.HandleRef{Account: f.env.Account, Share: "leases", FileID: h.FileID, HandleID: h.ID}); err != nil {
			t.Fatal(err)
		}
	}
}

func listNames(t *testing.T, dc *directory.Client) []string { return testkit.DirectoryNames(t, dc) }

// TestDeletePendingAndReadOnly: a file an SMB handle marked for delete
// answers 409 DeletePending to every FileREST operation, is left out of
// listings, and is gone once its last handle closes; a ReadOnly file
// refuses writes with 412 ReadOnlyAttribute but may be read and deleted.
func TestDeletePendingAndReadOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sc := f.share(t, "pending")
	root := sc.NewRootDirectoryClient()
	fc := root.NewFileClient("f")
	if _, err := fc.Create(t.Context(), 4, nil); err != nil {
		t.Fatal(err)
	}
	svc := smb(f.env)
	h, err := svc.OpenHandle(t.Context(), filestore.Ref{Account: f.env.Account, Share: "pending", Path: "f"}, filestore.HandleOptions{Access: del, ShareAccess: all, DeleteOnClose: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range restOps {
		wantStatus(t, op.run(t, fc), http.StatusConflict, "DeletePending")
	}
	if names := listNames(t, root); len(names) != 0 {
		t.Errorf("listing shows %v, want nothing", names)
	}
	if err := svc.CloseHandle(t.Context(), filestore.HandleRef{Account: f.env.Account, Share: "pending", FileID: h.FileID, HandleID: h.ID}); err != nil {
		t.Fatal(err)
	}
	_, err = fc.GetProperties(t.Context(), nil)
	wantStatus(t, err, http.StatusNotFound, "ResourceNotFound")

	ro := root.NewFileClient("ro")
	_, err = ro.Create(t.Context(), 4, &file.CreateOptions{SMBProperties: &file.SMBProperties{Attributes: &file.NTFSFileAttributes{ReadOnly: true}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Create File", "Set File Metadata", "Put Range"} {
		i := slices.IndexFunc(restOps, func(o struct {
			name string
			run  func(t *testing.T, fc *file.Client) error
		}) bool {
			return o.name == name
		})
		wantStatus(t, restOps[i].run(t, ro), http.StatusPreconditionFailed, "ReadOnlyAttribute")
	}
	for _, name := range []string{"Get File", "List Ranges", "Get File Properties", "Delete File"} {
		for _, op := range restOps {
			if op.name == name {
				if err := op.run(t, ro); err != nil {
					t.Errorf("%s on a read-only file: %v", name, err)
				}
			}
		}
	}
}

// TestListAndForceCloseHandles drives List Handles and Force Close
// Handles through the SDK: recursion, pages and markers, the wire fields,
// closing by ID and by "*".
func TestListAndForceCloseHandles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sc := f.share(t, "handles")
	root := sc.NewRootDirectoryClient()
	dir := root.NewSubdirectoryClient("d")
	if _, err := dir.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	fc := dir.NewFileClient("f")
	createFile(t, fc, 4)
	svc := smb(f.env)
	opened := map[string]*filestore.Handle{}
	for _, p := range []string{"d", "d/f", "d/f"} {
		h, err := svc.OpenHandle(ctx, filestore.Ref{Account: f.env.Account, Share: "handles", Path: p}, filestore.HandleOptions{Dir: p == "d", Access: rd | wr, ShareAccess: all,
			SessionID: 42, ClientIP: "10.1.2.3", ClientName: "workstation"})
		if err != nil {
			t.Fatal(err)
		}
		opened[strconv.FormatUint(h.ID, 10)] = h
	}

	// Recursive from the root, two handles a page.
	var got []*file.Handle
	var marker *string
	for {
		resp, err := root.ListHandles(ctx, &directory.ListHandlesOptions{Recursive: to.Ptr(true), MaxResults: to.Ptr(int32(2)), Marker: marker})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, resp.Handles...)
		if resp.NextMarker == nil || *resp.NextMarker == "" {
			break
		}
		marker = resp.NextMarker
	}
	if len(got) != 3 {
		t.Fatalf("listed %d handles, want 3", len(got))
	}
	for i, g := range got {
		h := opened[*g.ID]
		if h == nil {
			t.Fatalf("listed handle %s was never opened", *g.ID)
		}
		wantPath := []string{"d", "d/f", "d/f"}[i]
		if *g.Path != wantPath || *g.FileID != strconv.FormatUint(h.FileID, 10) || *g.ParentID != strconv.FormatUint(h.ParentID, 10) ||
			*g.SessionID != "42" || *g.ClientIP != "10.1.2.3" || *g.ClientName != "workstation" {
			t.Errorf("handle %d: %+v, want path %s of %+v", i, g, wantPath, h)
		}
		if g.OpenTime == nil || g.OpenTime.Sub(h.Opened).Abs() > time.Second {
			t.Errorf("handle %d open time %v, want %v", i, g.OpenTime, h.Opened)
		}
		var rights []string
		for _, r := range g.AccessRightList {
			rights = append(rights, string(*r))
		}
		if !slices.Equal(rights, []string{"Read", "Write"}) {
			t.Errorf("handle %d access rights %v, want [Read Write]", i, rights)
		}
	}
	// Not recursive: only the directory's own handle; a file's own.
	resp, err := dir.ListHandles(ctx, nil)
	if err != nil || len(resp.Handles) != 1 || *resp.Handles[0].Path != "d" {
		t.Fatalf("directory's own handles: %+v %v", resp.Handles, err)
	}
	fresp, err := fc.ListHandles(ctx, nil)
	if err != nil || len(fresp.Handles) != 2 {
		t.Fatalf("file handles: %+v %v", fresp.Handles, err)
	}
	_, err = root.ListHandles(ctx, &directory.ListHandlesOptions{MaxResults: to.Ptr(int32(0))})
	wantStatus(t, err, http.StatusBadRequest, "OutOfRangeQueryParameterValue")

	// Close one file handle by ID, an ID not open, then "*" recursively.
	closed, err := fc.ForceCloseHandles(ctx, *fresp.Handles[0].ID, nil)
	if err != nil || *closed.NumberOfHandlesClosed != 1 || *closed.NumberOfHandlesFailedToClose != 0 {
		t.Fatalf("close by ID: %+v %v", closed, err)
	}
	closed, err = fc.ForceCloseHandles(ctx, *fresp.Handles[0].ID, nil)
	if err != nil || *closed.NumberOfHandlesClosed != 0 {
		t.Fatalf("close an ID no longer open: %+v %v", closed, err)
	}
	// A handle ID that is not a number is a malformed header (Java's
	// recording DirectoryApiTests.forceCloseHandleInvalidHandleId).
	_, err = root.ForceCloseHandles(ctx, "invalidHandleId", nil)
	wantCode(t, err, fileerror.InvalidHeaderValue)
	dclosed, err := root.ForceCloseHandles(ctx, "*", &directory.ForceCloseHandlesOptions{Recursive: to.Ptr(true)})
	if err != nil || *dclosed.NumberOfHandlesClosed != 2 || dclosed.Marker != nil {
		t.Fatalf("close all: %+v %v", dclosed, err)
	}
	resp, err = root.ListHandles(ctx, &directory.ListHandlesOptions{Recursive: to.Ptr(true)})
	if err != nil || len(resp.Handles) != 0 {
		t.Fatalf("handles after closing all: %+v %v", resp.Handles, err)
	}
	if _, err := fc.Delete(ctx, nil); err != nil {
		t.Fatalf("delete after force close: %v", err)
	}
	_, err = fc.ListHandles(ctx, nil)
	wantStatus(t, err, http.StatusNotFound, "ResourceNotFound")
}

// TestHandleOperationsNeedTheOwner: a SAS, however broad, may not list or
// close handles.
func TestHandleOperationsNeedTheOwner(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sc := f.share(t, "owner")
	sasURL, err := sc.GetSASURL(sas.SharePermissions{Read: true, Create: true, Write: true, Delete: true, List: true}, time.Now().Add(time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	viaSAS, err := share.NewClientWithNoCredential(sasURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = viaSAS.NewRootDirectoryClient().ListHandles(t.Context(), nil)
	wantStatus(t, err, http.StatusForbidden, "AuthorizationFailure")
	_, err = viaSAS.NewRootDirectoryClient().ForceCloseHandles(t.Context(), "*", nil)
	wantStatus(t, err, http.StatusForbidden, "AuthorizationFailure")
}

// TestHandlesEndWithTheirProcess: a handle is visible to every client and
// blocks a delete while its server runs; no SMB connection (and, without
// durable handles, no handle) outlives the process, so after a crash and
// restart the handle is gone as its client's close would have made it.
func TestHandlesEndWithTheirProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := newFixture(t, servertest.WithDataDir(dir))
	ctx := t.Context()
	fc := f.share(t, "durable").NewRootDirectoryClient().NewFileClient("f")
	createFile(t, fc, 4)
	h, err := smb(f.env).OpenHandle(ctx, filestore.Ref{Account: f.env.Account, Share: "durable", Path: "f"}, filestore.HandleOptions{Access: rd, ShareAccess: rd})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := fc.ListHandles(ctx, nil)
	if err != nil || len(resp.Handles) != 1 || *resp.Handles[0].ID != strconv.FormatUint(h.ID, 10) {
		t.Fatalf("handles while open: %+v %v", resp.Handles, err)
	}
	_, err = fc.Delete(ctx, nil)
	wantStatus(t, err, http.StatusConflict, "SharingViolation")
	// The handle was opened through the file model, not an SMB connection,
	// so stopping the server leaves its record behind, as a crash would.
	if err := f.env.Server.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	g := newFixture(t, servertest.WithDataDir(dir))
	fc2 := g.svc.NewShareClient("durable").NewRootDirectoryClient().NewFileClient("f")
	resp, err = fc2.ListHandles(ctx, nil)
	if err != nil || len(resp.Handles) != 0 {
		t.Fatalf("handles after restart: %+v %v", resp.Handles, err)
	}
	if _, err := fc2.Delete(ctx, nil); err != nil {
		t.Fatalf("delete after restart: %v", err)
	}
}
