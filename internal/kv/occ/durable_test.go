package occ

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// gatedEngine is a mapEngine whose commits become durable only when the
// test says so, in commit order, as a write-ahead log's do: the n-th
// Apply's wait returns once the test has made the first n durable.
type gatedEngine struct {
	mapEngine
	gate    sync.Mutex
	applied int
	durable int
	moved   *sync.Cond
}

func newGatedEngine() *gatedEngine {
	e := &gatedEngine{mapEngine: mapEngine{data: map[string][]byte{}}}
	e.moved = sync.NewCond(&e.gate)
	return e
}

func (e *gatedEngine) Apply(w *WriteSet) (func() error, error) {
	if _, err := e.mapEngine.Apply(w); err != nil {
		return nil, err
	}
	e.gate.Lock()
	defer e.gate.Unlock()
	e.applied++
	n := e.applied
	return func() error {
		e.gate.Lock()
		defer e.gate.Unlock()
		for e.durable < n {
			e.moved.Wait()
		}
		return nil
	}, nil
}

// makeDurable makes every commit applied so far durable.
func (e *gatedEngine) makeDurable() {
	e.gate.Lock()
	defer e.gate.Unlock()
	e.durable = e.applied
	e.moved.Broadcast()
}

// TestUpdateReadsBeforeDurableReturnsAfter: an Update's body reads its
// snapshot at once, even when the latest commit in it is not durable
// yet, so that a write waits for one sync (its own) rather than two;
// but an Update that ends without a commit of its own — it wrote
// nothing, or its body refused — returns only once what it read is
// durable, and a View still waits before it reads. No answer can show
// a write that a crash could take back.
func TestUpdateReadsBeforeDurableReturnsAfter(t *testing.T) {
	for _, end := range []string{"writes nothing", "refuses"} {
		t.Run(end, func(t *testing.T) {
			e := newGatedEngine()
			m, err := New(e)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			first := make(chan error, 1)
			go func() {
				first <- m.Update(ctx, func(tx kv.Txn) error { return tx.Set([]byte("k"), []byte("v1")) })
			}()
			waitApplied(t, e, 1)

			var mu sync.Mutex
			madeDurable := false
			read := make(chan []byte, 1)
			refused := errors.New("refused")
			type result struct {
				err   error
				early bool
			}
			second := make(chan result, 1)
			go func() {
				err := m.Update(ctx, func(tx kv.Txn) error {
					v, err := tx.Get([]byte("k"))
					if err != nil {
						return err
					}
					read <- v
					if end == "refuses" {
						return refused
					}
					return nil
				})
				mu.Lock()
				defer mu.Unlock()
				second <- result{err, !madeDurable}
			}()
			select {
			case v := <-read:
				if string(v) != "v1" {
					t.Fatalf("the body read %q, want the applied v1", v)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the Update's body did not run before the commit it reads was durable")
			}

			viewRead := make(chan struct{})
			go func() {
				_ = m.View(ctx, func(kv.Reader) error { close(viewRead); return nil })
			}()
			// Give an early return (or an early View) time to show itself.
			time.Sleep(50 * time.Millisecond)
			select {
			case <-viewRead:
				t.Fatal("a View read before the commit in its snapshot was durable")
			default:
			}
			mu.Lock()
			madeDurable = true
			mu.Unlock()
			e.makeDurable()

			if err := <-first; err != nil {
				t.Fatal(err)
			}
			r := <-second
			if r.early {
				t.Error("the Update returned before the commit it read was durable")
			}
			if end == "refuses" && !errors.Is(r.err, refused) {
				t.Fatalf("the refusing Update returned %v, want its body's error", r.err)
			}
			if end == "writes nothing" && r.err != nil {
				t.Fatal(r.err)
			}
			<-viewRead
		})
	}
}

func waitApplied(t *testing.T, e *gatedEngine, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		e.gate.Lock()
		applied := e.applied
		e.gate.Unlock()
		if applied >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d commits applied, want %d", applied, n)
		}
		time.Sleep(time.Millisecond)
	}
}
