package background

import (
	"context"
	"sync/atomic"
	"testing"
)

func TestTasksStopEndsAndWaits(t *testing.T) {
	tasks := NewTasks()
	started := make(chan struct{})
	var ended atomic.Bool
	tasks.Go(func(ctx context.Context) {
		close(started)
		<-ctx.Done() // runs until Stop
		ended.Store(true)
	})
	<-started
	tasks.Stop()
	if !ended.Load() {
		t.Fatal("Stop returned before the running task did")
	}
	ran := false
	tasks.Go(func(context.Context) { ran = true })
	tasks.Stop()
	if ran {
		t.Fatal("a task given after Stop ran")
	}
}
