package blob

import (
	"context"
	"testing"
)

// TestInvariantsHoldWhileDeletedDataAwaitsCollection: with CollectLater, a
// deleted blob's and a deleted container's data are still stored after
// the answer, registered for collection; the invariant check takes them
// for garbage (a server stopped before the collection ran is checked so),
// and the collection removes them.
func TestInvariantsHoldWhileDeletedDataAwaitsCollection(t *testing.T) {
	s, store := newTestService(t)
	var later []func(context.Context)
	s.CollectLater(func(work func(context.Context)) { later = append(later, work) })
	ctx := t.Context()
	if _, err := s.CreateContainer(ctx, ContainerRef{Account: testAcct, Container: "gone"}, CreateContainerOptions{}); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 5<<20)
	for _, ref := range []Ref{{Account: testAcct, Container: "c", Name: "b"}, {Account: testAcct, Container: "gone", Name: "b"}} {
		if _, err := s.PutBlob(ctx, ref, contentOf(data), PutBlobOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteBlob(ctx, Ref{Account: testAcct, Container: "c", Name: "b"}, KeepSnapshots, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteContainer(ctx, ContainerRef{Account: testAcct, Container: "gone"}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if len(later) != 2 || blobDataKeys(t, store, "c", "b") == 0 || blobDataKeys(t, store, "gone", "b") == 0 {
		t.Fatalf("%d collections handed on; data left %d and %d keys: want 2, and both still stored",
			len(later), blobDataKeys(t, store, "c", "b"), blobDataKeys(t, store, "gone", "b"))
	}
	if err := s.CheckInvariants(ctx); err != nil {
		t.Errorf("deleted data awaiting collection: %v", err)
	}
	for _, work := range later {
		work(ctx)
	}
	if n, m := blobDataKeys(t, store, "c", "b"), blobDataKeys(t, store, "gone", "b"); n != 0 || m != 0 {
		t.Errorf("after the collection %d and %d data keys are left", n, m)
	}
	if err := s.CheckInvariants(ctx); err != nil {
		t.Errorf("after the collection: %v", err)
	}
}
