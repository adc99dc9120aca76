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
	stopped bool
	wg      sync.WaitGroup
	ctx     context.Context
	cancel  context.CancelFunc
}

// NewTasks returns a Tasks whose work runs with a context Stop ends.
func NewTasks() *Tasks {
	ctx, cancel := context.WithCancel(context.Background())
	return &Tasks{ctx: ctx, cancel: cancel}
}

// Go runs work on a new goroutine; after Stop it runs nothing, and the
// caller must leave the work to a later sweep.
func (t *Tasks) Go(work func(context.Context)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.wg.Go(func() { work(t.ctx) })
}

// Stop ends the tasks' context and waits for every running task to
// return. Calling it again only waits.
func (t *Tasks) Stop() {
	t.mu.Lock()
	t.stopped = true
	t.mu.Unlock()
	t.cancel()
	t.wg.Wait()
}
