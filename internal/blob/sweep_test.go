package blob

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/liveness"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// pausingReader hands out its first part, then waits for resume before
// the rest: an upload caught between two staging transactions.
type pausingReader struct {
	first, rest io.Reader
	paused      chan struct{}
	resume      chan struct{}
	waited      bool
}

func (r *pausingReader) Read(p []byte) (int, error) {
	n, err := r.first.Read(p)
	if n > 0 || !errors.Is(err, io.EOF) {
		return n, err
	}
	if !r.waited {
		r.waited = true
		close(r.paused)
		<-r.resume
	}
	return r.rest.Read(p)
}

// TestSweepSparesLiveFrontEnds: two front ends on one store. An upload
// staged by one is not reclaimed by the other's sweep while its owner is
// alive; once the owner's liveness record expires it is, and the owner's
// commit then fails with 503 ServerBusy instead of referencing data that
// is gone.
func TestSweepSparesLiveFrontEnds(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	front := func() *Service {
		s := New(Config{Store: store, Now: clock.Now})
		s.UseProcesses(testkit.Process(t, store, clock.Now))
		return s
	}
	a, b := front(), front()
	if _, err := a.CreateContainer(t.Context(), ContainerRef{Account: testAcct, Container: "c"}, CreateContainerOptions{}); err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("cerulean"), 3*stageTxnBytes/8)
	body := &pausingReader{first: bytes.NewReader(data[:2*stageTxnBytes]), rest: bytes.NewReader(data[2*stageTxnBytes:]),
		paused: make(chan struct{}), resume: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := a.PutBlob(t.Context(), Ref{Account: testAcct, Container: "c", Name: "big"}, Content{Body: body, Length: int64(len(data))}, PutBlobOptions{})
		done <- err
	}()
	<-body.paused
	if n := testkit.CountKeys(t, store, stagedPrefix()); n != 1 {
		t.Fatalf("%d staged uploads while the upload is in progress, want 1", n)
	}
	if n, err := b.SweepStaged(t.Context()); err != nil || n != 0 {
		t.Fatalf("sweep while the owner is alive: swept %d, %v", n, err)
	}
	clock.Advance(liveness.TTL + time.Second)
	if n, err := b.SweepStaged(t.Context()); err != nil || n != 1 {
		t.Fatalf("sweep after the owner's record expired: swept %d, %v", n, err)
	}
	close(body.resume)
	err := <-done
	if !errors.Is(err, azerr.ErrServerBusy) {
		t.Fatalf("commit of a reclaimed upload: %v, want ServerBusy", err)
	}
	if n := testkit.CountKeys(t, store, stagedPrefix()); n != 0 {
		t.Errorf("%d staged uploads left", n)
	}
	if err := CheckInvariants(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	// The store still takes the same upload.
	if _, err := a.PutBlob(t.Context(), Ref{Account: testAcct, Container: "c", Name: "big"}, contentOf(data), PutBlobOptions{}); err != nil {
		t.Fatal(err)
	}
}
