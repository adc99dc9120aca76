package script

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// A script that doubles a string forever is stopped for its memory long
// before its time runs out, before the heap has grown to 32 times its
// bound, and other scripts keep running afterwards. Three bombs run one
// after the other, each once the last one's memory has been collected
// (a script that starts while garbage still fills the heap is measured
// against that heap: see memoryWatch).
func TestMemoryBombIsStopped(t *testing.T) {
	for range 3 {
		runtime.GC()
		runMemoryBomb(t)
	}
	e := NewEngine()
	ok := Script{ID: "ok", ETag: "1", Body: `function ok() { getContext().getResponse().setBody(new Array(1000).join("y").length); }`}
	res, err := e.RunSproc(context.Background(), ok, []byte(`[]`), newFakeCollection(), Options{MaxMemory: 64 << 20})
	if err != nil || string(res.Body) != "999" {
		t.Fatalf("a script after the bomb: %s, %v", res.Body, err)
	}
}

func runMemoryBomb(t *testing.T) {
	t.Helper()
	const bound = 64 << 20
	e := NewEngine()
	bomb := Script{ID: "bomb", ETag: "1", Body: `function bomb() { var s = "xxxxxxxx"; var keep = []; while (true) { s = s + s; keep.push(s); } }`}
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	base := heapObjects()
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if n := heapObjects(); n > base && n-base > peak.Load() {
				peak.Store(n - base)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	_, err := e.RunSproc(context.Background(), bomb, []byte(`[]`), newFakeCollection(), Options{Budget: time.Minute, MaxMemory: bound})
	close(done)
	<-sampled
	if !errors.Is(err, ErrMemory) {
		t.Fatalf("got %v, want ErrMemory", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("stopped after %v", d)
	}
	if p := peak.Load(); p >= 32*bound {
		t.Fatalf("the heap grew %d MiB past its start, the bound being %d MiB", p>>20, bound>>20)
	}
}
