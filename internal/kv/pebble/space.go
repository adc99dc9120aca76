package pebble

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
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

// startupMargin is the free space below which even the writes of a
// start are refused: they are a few KiB (the data format, this process's
// liveness record), far less than the reserve.
const startupMargin = 128 << 10

// AutoReserve, as Options.MinFreeBytes, keeps DefaultReserve of the
// data volume's size in reserve.
const AutoReserve = ^uint64(0)

// maxReserve bounds the default reserve: what the store may need to
// finish what it has begun is a few write-ahead log files and one
// compaction's output, not a share of a large volume.
const maxReserve = 256 << 20

// DefaultReserve is the free space kept on a volume of size bytes unless
// configured: 5% of it, at most 256 MiB (a 400 MiB volume keeps 20 MiB, a
// 10 GiB one 256 MiB).
func DefaultReserve(size uint64) uint64 { return min(maxReserve, size/20) }

// ReserveFlag names the setting of the reserve in the messages an
// operator reads when writes are refused.
const ReserveFlag = "--min-free-space"

// spaceGuard refuses writes while the data volume has less free space
// than the reserve, so that the store never meets a full disk half-way
// through a write-ahead log record or a compaction: what was acknowledged
// stays readable, and writes resume by themselves once space is freed —
// by the store itself too: while free space is short (below twice the
// reserve) the ranges that deletions covered are compacted away
// (reclaimer), so that deleting data gives its space back promptly.
//
// While the server starts (until endStartup), writes are admitted down
// to an emergency margin (startupMargin): the few KiB of bookkeeping a
// start writes must not keep a server on a nearly full volume from
// serving reads.
type spaceGuard struct {
	reserve   uint64
	emergency uint64
	free      func() (uint64, error)
	log       *slog.Logger

	starting atomic.Bool
	full     atomic.Bool
	// enospcUntil (Unix nanoseconds) holds the refusal after the file
	// system answered ENOSPC, whatever the free space reads meanwhile.
	enospcUntil atomic.Int64
	lastFree    atomic.Uint64
	// written is what admitted writes carried since the last reading:
	// past an eighth of the reserve the free space is read again at
	// once, so that uploads arriving faster than the readings cannot
	// run through the reserve between two of them.
	written atomic.Uint64
	checkMu sync.Mutex
	// reclaim, when set, compacts the ranges deleted so far away; it
	// runs on the guard's goroutine while space is short.
	reclaim func() error
	stop    chan struct{}
	done    sync.WaitGroup
}

func newSpaceGuard(dir string, reserve uint64, free func() (uint64, error), log *slog.Logger) *spaceGuard {
	if free == nil {
		free = func() (uint64, error) { return freeBytes(dir) }
	}
	if log == nil {
		log = slog.Default()
	}
	g := &spaceGuard{reserve: reserve, emergency: min(reserve, startupMargin), free: free, log: log.With("dir", dir), stop: make(chan struct{})}
	g.starting.Store(true)
	g.check()
	return g
}

// run reads the free space every interval until close, and reclaims
// deleted ranges while space is short.
func (g *spaceGuard) run(every time.Duration) {
	if every <= 0 {
		every = spaceInterval
	}
	g.done.Add(1)
	go func() {
		defer g.done.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		var failures int
		var retryAt time.Time
		for {
			select {
			case <-g.stop:
				return
			case <-t.C:
				n, ok := g.check()
				if !ok || g.reclaim == nil || n >= 2*g.reserve || time.Now().Before(retryAt) {
					continue
				}
				if err := g.reclaim(); err != nil {
					// A compaction that cannot finish (the volume is
					// full to the last byte) is retried later, not in
					// a loop.
					failures++
					wait := min(time.Duration(1<<min(failures, 6))*time.Second, time.Minute)
					retryAt = time.Now().Add(wait)
					g.log.Warn("could not reclaim the space of deleted data; retrying", "err", err, "retry_in", wait)
					continue
				}
				failures = 0
				g.check()
			}
		}
	}()
}

// check reads the free space and turns writes off or back on, logging
// each change; it returns the free space and whether it could read it.
func (g *spaceGuard) check() (uint64, bool) {
	g.checkMu.Lock()
	defer g.checkMu.Unlock()
	g.written.Store(0)
	n, err := g.free()
	if err != nil {
		g.log.Warn("cannot read the data volume's free space; writes are not held back", "err", err)
		return 0, false
	}
	g.lastFree.Store(n)
	full := n < g.reserve || time.Now().UnixNano() < g.enospcUntil.Load()
	if g.full.Swap(full) == full {
		return n, true
	}
	if full {
		g.log.Error("data volume nearly full: refusing writes until space is freed (reads and deletions go on; "+ReserveFlag+" sets the reserve)",
			"free_bytes", n, "reserve_bytes", g.reserve)
	} else {
		g.log.Warn("space freed on the data volume: accepting writes again", "free_bytes", n, "reserve_bytes", g.reserve)
	}
	return n, true
}

// diskFull marks the volume full at once: the file system refused to
// allocate space (something else filled the volume between two reads of
// its free space, or a quota the free space does not show). The first
// check that finds the reserve free once the volume has been calm for
// diskFullCalm lifts it.
func (g *spaceGuard) diskFull() {
	g.enospcUntil.Store(time.Now().Add(diskFullCalm).UnixNano())
	if !g.full.Swap(true) {
		g.log.Error("data volume full: refusing writes until space is freed (reads and deletions go on; "+ReserveFlag+" sets the reserve)",
			"reserve_bytes", g.reserve)
	}
}

// admit refuses w while the volume is nearly full, unless w only deletes
// (deletions are how space comes back, and take little log space; the
// sums of the counts they change come with them), or
// the server is starting and the emergency margin is still free.
func (g *spaceGuard) admit(w *occ.WriteSet) error {
	if g.written.Add(uint64(w.Size())) > g.reserve/8 {
		g.check()
	}
	if !g.full.Load() || onlyDeletes(w) {
		return nil
	}
	free := g.lastFree.Load()
	if g.starting.Load() && free >= g.emergency {
		return nil
	}
	return fmt.Errorf("%w: %d bytes free, %d kept in reserve (%s)", kv.ErrNoSpace, free, g.reserve, ReserveFlag)
}

// endStartup ends the start-up's use of the emergency margin.
func (g *spaceGuard) endStartup() { g.starting.Store(false) }

func (g *spaceGuard) close() {
	close(g.stop)
	g.done.Wait()
}

// onlyDeletes reports whether w only deletes, besides the sums of the
// counts its deletions changed (the stored-bytes counts every write
// keeps) and the records that register what they delete after the commit
// (kv.Reclaimer).
func onlyDeletes(w *occ.WriteSet) bool {
	only := true
	w.Points(func(p occ.Write) { only = only && (p.Delete || p.Count || p.Reclaim) })
	return only
}

// freeBytes is the space on dir's volume available to this process.
func freeBytes(dir string) (uint64, error) {
	st, err := statfs(dir)
	if err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// volumeBytes is the size of dir's volume.
func volumeBytes(dir string) (uint64, error) {
	st, err := statfs(dir)
	if err != nil {
		return 0, err
	}
	return st.Blocks * uint64(st.Bsize), nil
}

// statfs describes the volume of dir, or of its nearest existing parent
// when dir is still to be created.
func statfs(dir string) (syscall.Statfs_t, error) {
	var st syscall.Statfs_t
	for d := dir; ; {
		err := syscall.Statfs(d, &st)
		if err == nil {
			return st, nil
		}
		parent := filepath.Dir(d)
		if !errors.Is(err, syscall.ENOENT) || parent == d {
			return st, fmt.Errorf("statfs %s: %w", d, err)
		}
		d = parent
	}
}

// short reports whether free space was below twice the reserve at the
// last reading: deletions are then remembered for the reclaimer.
func (g *spaceGuard) short() bool { return g.lastFree.Load() < 2*g.reserve }
