package background

import (
	"context"
	"sync"
)

// Tasks runs one-off work off the request that asked for it (the
// collection of a deleted blob's data once the delete is answered), each
// task on its own goroutine, until Stop. It is safe for concurrent use.
type Tasks struct {
	mu      sync.Mutex
	idle    sync.Cond // broadcast when running falls to 0
	running int
	stopped bool
	ctx     context.Context
	cancel  context.CancelFunc
}

// NewTasks returns a Tasks whose work runs with a context Stop ends.
func NewTasks() *Tasks {
	ctx, cancel := context.WithCancel(context.Background())
	t := &Tasks{ctx: ctx, cancel: cancel}
	t.idle.L = &t.mu
	return t
}

// Go runs work on a new goroutine; after Stop it runs nothing, and the
// caller must leave the work to a later sweep.
func (t *Tasks) Go(work func(context.Context)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.running++
	go func() {
		defer t.done()
		work(t.ctx)
	}()
}

func (t *Tasks) done() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.running--; t.running == 0 {
		t.idle.Broadcast()
	}
}

// Wait waits until no task is running, tasks given while it waits
// included.
func (t *Tasks) Wait() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.running > 0 {
		t.idle.Wait()
	}
}

// Stop ends the tasks' context and waits for every running task to
// return. Calling it again only waits.
func (t *Tasks) Stop() {
	t.mu.Lock()
	t.stopped = true
	t.mu.Unlock()
	t.cancel()
	t.Wait()
}
