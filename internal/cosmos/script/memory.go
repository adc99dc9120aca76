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
//
// A script is judged on the live heap, as the last collection measured
// it: when a collection since the script began found the bound passed,
// the script stops at once. A heap that has grown past the bound with no
// such verdict yet (the growth may be garbage) is collected first, unless
// it has grown past twice the bound: garbage that outgrows a bound of a
// gigabyte (the default) between two collections needs a live heap of
// that size, which the server does not keep. An allocation bomb (a string
// doubled in a loop) grows the heap so fast that waiting for a forced
// collection, which it slows down, with no sampling meanwhile let it
// pass a 64 MiB bound eightfold and more. What is left: a doubling is
// one instruction, which no interrupt cuts short, and the collector's
// pauses wait for its copy, so the heap passes the bound by a doubling or
// two (128–256 MiB for 64 MiB); and a script that starts while the
// garbage of one stopped just before still fills the heap is measured
// from that heap until a collection has run.
type memoryWatch struct {
	mu         sync.Mutex
	running    map[*execution]heapBase
	active     bool // the sampling goroutine runs
	collecting bool // a collection it asked for runs
}

// heapBase is the heap when an execution began: the bytes its objects
// occupied, garbage included, the live bytes the last collection before
// it found, and the number of collections completed.
type heapBase struct{ objects, live, cycles uint64 }

var watch = &memoryWatch{running: make(map[*execution]heapBase)}

// heapObjects is the heap the program's objects occupy, garbage not yet
// swept included.
func heapObjects() uint64 { return readHeap().objects }

// readHeap is the heap now: its objects' bytes, and the live bytes the
// last collection found.
func readHeap() heapBase {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	var v [3]uint64
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	return heapBase{objects: v[0], live: v[1], cycles: v[2]}
}

// grewLive reports whether a collection that began after base was taken
// found the live heap grown past it by more than bound. The collection
// under way when it was taken may have marked the garbage of an
// execution that ended just before as live, so its figure is not used.
func grewLive(now, base heapBase, bound int) bool {
	return now.cycles >= base.cycles+2 && over(now.live, base.live, bound)
}

// over reports whether n bytes have grown past base by more than bound.
func over(n, base uint64, bound int) bool { return n > base && n-base > uint64(bound) }

// track registers x for the watch until the returned func is called.
func (w *memoryWatch) track(x *execution) (untrack func()) {
	base := readHeap()
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
		now := readHeap()
		var suspects []*execution
		for x, base := range w.running {
			switch {
			case grewLive(now, base, x.o.MaxMemory), over(now.objects, base.objects, 2*x.o.MaxMemory):
				x.stop(ErrMemory)
			case over(now.objects, base.objects, x.o.MaxMemory):
				suspects = append(suspects, x)
			}
		}
		if len(suspects) > 0 && !w.collecting {
			// Growth may be garbage: collect, then judge on what is
			// live. The sampling goes on meanwhile: a bomb slows the
			// collection down, and must not grow unwatched while it runs.
			w.collecting = true
			go w.collect(suspects)
		}
		w.mu.Unlock()
	}
}

// collect runs a collection and stops those of suspects, executions that
// ran before it began, still running and whose growth the live heap left
// then still passes their bound.
func (w *memoryWatch) collect(suspects []*execution) {
	runtime.GC()
	live := heapObjects()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.collecting = false
	for _, x := range suspects {
		if base, ok := w.running[x]; ok && over(live, base.live, x.o.MaxMemory) {
			x.stop(ErrMemory)
		}
	}
}
