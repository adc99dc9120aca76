package file

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/lease"
)

const (
	leaseA = "a0000000-0000-0000-0000-00000000000a"
	leaseB = "b0000000-0000-0000-0000-00000000000b"
)

// TestLeaseGuardsWrites: a leased file refuses writes and deletes without
// its lease ID or with another, serves them with it, and serves reads
// either way.
func TestLeaseGuardsWrites(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, CreateFileOptions{Size: 10}); err != nil {
		t.Fatal(err)
	}
	out, err := s.LeaseFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, lease.Request{Action: lease.Acquire, ProposedID: leaseA})
	if err != nil || out.ID != leaseA {
		t.Fatalf("acquire: %+v, %v", out, err)
	}
	without, wrong, with := Preconditions{}, Preconditions{LeaseID: leaseB}, Preconditions{LeaseID: leaseA}
	writes := map[string]func(Preconditions) error{
		"put range": func(p Preconditions) error {
			_, err := s.PutRange(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, 0, Content{Body: bytes.NewReader([]byte("ab")), Length: 2}, p)
			return err
		},
		"clear range": func(p Preconditions) error {
			_, err := s.ClearRange(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, 0, 1, p)
			return err
		},
		"set metadata": func(p Preconditions) error {
			_, err := s.SetFileMetadata(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, nil, p)
			return err
		},
		"create over": func(p Preconditions) error {
			_, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, CreateFileOptions{Size: 10, Conditions: p})
			return err
		},
	}
	for name, write := range writes {
		if err := write(without); !errors.Is(err, azerr.ErrLeaseIdMissing) {
			t.Errorf("%s without the lease ID: %v, want LeaseIdMissing", name, err)
		}
		if err := write(wrong); !errors.Is(err, azerr.ErrLeaseIdMismatchWithFileOperation) {
			t.Errorf("%s with another lease ID: %v, want LeaseIdMismatchWithFileOperation", name, err)
		}
		if err := write(with); err != nil {
			t.Errorf("%s with the lease ID: %v", name, err)
		}
	}
	// Azure's answer in the azfile recording TestFileAcquireLease (#3).
	if err := s.DeleteFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, without); !errors.Is(err, azerr.ErrLeaseIdMissing) {
		t.Errorf("delete without the lease ID: %v, want LeaseIdMissing", err)
	}
	n, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, without)
	if err != nil {
		t.Fatalf("read without the lease ID: %v", err)
	}
	if n.Lease.State != lease.Leased || n.Lease.ID != leaseA {
		t.Errorf("the file replaced by a create lost its lease: %+v", n.Lease)
	}
	if _, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, wrong); !errors.Is(err, azerr.ErrLeaseIdMismatchWithFileOperation) {
		t.Errorf("read with another lease ID: %v", err)
	}
	if err := s.DeleteFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, with); err != nil {
		t.Errorf("delete with the lease ID: %v", err)
	}
}

// TestLeaseOperations walks a file lease through change, break, acquire
// and release, with Azure's answers to the operations each state refuses.
func TestLeaseOperations(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	f, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, CreateFileOptions{Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	do := func(req lease.Request) (*lease.Outcome, error) {
		return s.LeaseFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, req)
	}
	if _, err := do(lease.Request{Action: lease.Release, ID: leaseA}); !errors.Is(err, azerr.ErrLeaseNotPresentWithLeaseOperation) {
		t.Errorf("release of no lease: %v", err)
	}
	out, err := do(lease.Request{Action: lease.Acquire})
	if err != nil || !lease.ValidID(out.ID) {
		t.Fatalf("acquire without a proposed ID: %+v, %v", out, err)
	}
	if out.Version != f.Version {
		t.Error("acquiring changed the file's version")
	}
	if _, err := do(lease.Request{Action: lease.Acquire, ProposedID: leaseB}); !errors.Is(err, azerr.ErrLeaseAlreadyPresent) {
		t.Errorf("second acquire: %v, want LeaseAlreadyPresent", err)
	}
	if _, err := do(lease.Request{Action: lease.Change, ID: leaseB, ProposedID: leaseA}); !errors.Is(err, azerr.ErrLeaseIdMismatchWithLeaseOperation) {
		t.Errorf("change with the wrong ID: %v, want LeaseIdMismatchWithLeaseOperation", err)
	}
	if out, err = do(lease.Request{Action: lease.Change, ID: out.ID, ProposedID: leaseA}); err != nil || out.ID != leaseA {
		t.Fatalf("change: %+v, %v", out, err)
	}
	// A break ends a file lease at once: files have no break period.
	if out, err = do(lease.Request{Action: lease.Break}); err != nil || out.Time != 0 {
		t.Fatalf("break: %+v, %v", out, err)
	}
	n, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, Preconditions{})
	if err != nil || n.Lease.State != lease.Broken {
		t.Fatalf("after break: %+v, %v", n, err)
	}
	if _, err := s.SetFileMetadata(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, nil, Preconditions{}); err != nil {
		t.Errorf("write after break: %v", err)
	}
	if _, err := do(lease.Request{Action: lease.Acquire, ProposedID: leaseB}); err != nil {
		t.Fatalf("acquire after break: %v", err)
	}
	if _, err := do(lease.Request{Action: lease.Release, ID: leaseB}); err != nil {
		t.Fatalf("release: %v", err)
	}
	if _, err := s.SetFileMetadata(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, nil, Preconditions{LeaseID: leaseB}); !errors.Is(err, azerr.ErrLeaseNotPresentWithFileOperation) {
		t.Errorf("write naming a released lease: %v, want LeaseNotPresentWithFileOperation", err)
	}
	if _, err := s.LeaseFile(ctx, Ref{Account: testAcct, Share: "s", Path: "missing"}, lease.Request{Action: lease.Acquire}); !errors.Is(err, azerr.ErrResourceNotFound) {
		t.Errorf("lease of a missing file: %v", err)
	}
}
