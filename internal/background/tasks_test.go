package background

import (
	"context"
	"sync/atomic"
	"testing"
)

func TestTasksWaitForRunningOnes(t *testing.T) {
	tasks := NewTasks()
	defer tasks.Stop()
	release := make(chan struct{})
	var ended atomic.Int32
	for range 3 {
		tasks.Go(func(context.Context) {
			<-release
			ended.Add(1)
		})
	}
	close(release)
	tasks.Wait()
	if n := ended.Load(); n != 3 {
		t.Fatalf("Wait returned with %d of 3 tasks ended", n)
	}
}

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
