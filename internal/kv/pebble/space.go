package pebble

import (
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/occ"
)

// spaceInterval is how often the data volume's free space is read
// unless Options.FreeSpaceInterval says.
const spaceInterval = time.Second

// spaceGuard refuses writes while the data volume has less free space
// than the reserve, so that the store never meets a full disk half-way
// through a write-ahead log record or a compaction: what was acknowledged
// stays readable, and writes resume by themselves once space is freed.
type spaceGuard struct {
	reserve uint64
	free    func() (uint64, error)
	log     *slog.Logger

	full     atomic.Bool
	lastFree atomic.Uint64
	stop     chan struct{}
	done     sync.WaitGroup
}

func newSpaceGuard(dir string, reserve uint64, free func() (uint64, error), every time.Duration, log *slog.Logger) *spaceGuard {
	if every <= 0 {
		every = spaceInterval
	}
	if free == nil {
		free = func() (uint64, error) { return freeBytes(dir) }
	}
	if log == nil {
		log = slog.Default()
	}
	g := &spaceGuard{reserve: reserve, free: free, log: log.With("dir", dir), stop: make(chan struct{})}
	g.check()
	g.done.Add(1)
	go func() {
		defer g.done.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-g.stop:
				return
			case <-t.C:
				g.check()
			}
		}
	}()
	return g
}

// check reads the free space and turns writes off or back on, logging
// each change.
func (g *spaceGuard) check() {
	n, err := g.free()
	if err != nil {
		g.log.Warn("cannot read the data volume's free space; writes are not held back", "err", err)
		return
	}
	g.lastFree.Store(n)
	full := n < g.reserve
	if g.full.Swap(full) == full {
		return
	}
	if full {
		g.log.Error("data volume nearly full: refusing writes until space is freed (reads and deletions go on)",
			"free_bytes", n, "reserve_bytes", g.reserve)
	} else {
		g.log.Warn("space freed on the data volume: accepting writes again", "free_bytes", n, "reserve_bytes", g.reserve)
	}
}

// admit refuses w while the volume is nearly full, unless w only deletes
// (deletions are how space comes back, and take little log space).
func (g *spaceGuard) admit(w *occ.WriteSet) error {
	if !g.full.Load() || onlyDeletes(w) {
		return nil
	}
	return fmt.Errorf("%w: %d bytes free, %d kept in reserve", kv.ErrNoSpace, g.lastFree.Load(), g.reserve)
}

func (g *spaceGuard) close() {
	close(g.stop)
	g.done.Wait()
}

func onlyDeletes(w *occ.WriteSet) bool {
	only := true
	w.Points(func(p occ.Write) { only = only && p.Delete })
	return only
}

// freeBytes is the space on dir's volume available to this process.
func freeBytes(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", dir, err)
	}
	return st.Bavail * uint64(st.Bsize), nil
}
