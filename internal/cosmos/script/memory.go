package script

import (
	"errors"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// ErrMemory ends a script whose allocations grew the server's live heap
// past Options.MaxMemory while it ran; nothing it wrote is kept.
var ErrMemory = errors.New("script: the execution exceeded its memory bound")

// defaultMaxMemory is generous on purpose: it stops allocation bombs
// (a string doubled in a loop reaches gigabytes in milliseconds) without
// ever touching ordinary scripts.
const defaultMaxMemory = 1 << 30

// watchInterval is how often the heap is sampled while scripts run.
const watchInterval = 5 * time.Millisecond

// memoryWatch samples the heap while any script runs. goja keeps no
// account of what one runtime allocates, so the bound is on the process:
// the live heap's growth since a script started. When a script passes it,
// every script running then is stopped — a concurrent one may pay for its
// neighbour, which is the price of a bound that cannot be per script.
type memoryWatch struct {
	mu      sync.Mutex
	running map[*execution]uint64 // heap objects when the execution began
	active  bool                  // the sampling goroutine runs
}

var watch = &memoryWatch{running: make(map[*execution]uint64)}

// heapObjects is the heap the program's objects occupy, garbage not yet
// swept included.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// track registers x for the watch until the returned func is called.
func (w *memoryWatch) track(x *execution) (untrack func()) {
	base := heapObjects()
	w.mu.Lock()
	w.running[x] = base
	if !w.active {
		w.active = true
		go w.sample()
	}
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		delete(w.running, x)
		w.mu.Unlock()
	}
}

func (w *memoryWatch) sample() {
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	for range t.C {
		w.mu.Lock()
		if len(w.running) == 0 {
			w.active = false
			w.mu.Unlock()
			return
		}
		now := heapObjects()
		var suspects []*execution
		for x, base := range w.running {
			if now > base && now-base > uint64(x.o.MaxMemory) {
				suspects = append(suspects, x)
			}
		}
		w.mu.Unlock()
		if len(suspects) == 0 {
			continue
		}
		// Growth may be garbage: collect, then judge on what is live.
		runtime.GC()
		now = heapObjects()
		w.mu.Lock()
		for _, x := range suspects {
			if base, ok := w.running[x]; ok && now > base && now-base > uint64(x.o.MaxMemory) {
				x.stop(ErrMemory)
			}
		}
		w.mu.Unlock()
	}
}
