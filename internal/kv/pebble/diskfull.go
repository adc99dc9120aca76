package pebble

import (
	"log/slog"
	"sync"
	"time"
)

// Backoff after the file system answered ENOSPC: pebble retries a failed
// flush or compaction at once, so on a volume full to the last byte it
// would spin (thousands of attempts a minute, a core burnt) without
// this pause between them.
const (
	firstDiskFullPause = 100 * time.Millisecond
	maxDiskFullPause   = 2 * time.Second
	// diskFullCalm is how long without ENOSPC resets the pause.
	diskFullCalm = 10 * time.Second
)

// diskFullBackoff is the callback pebble's vfs.OnDiskFull runs when a
// write meets ENOSPC: it refuses writes at once (guard), says so in the
// log now and then, and waits before the failed operation is retried,
// longer each time until the volume has been calm for a while. New file
// writes wait meanwhile; reads do not. Closing the store ends a wait.
type diskFullBackoff struct {
	guard *spaceGuard // nil without a reserve
	log   *slog.Logger
	stop  chan struct{}

	mu       sync.Mutex
	pause    time.Duration
	last     time.Time
	logged   time.Time
	count    int
	stopOnce sync.Once
}

func newDiskFullBackoff(guard *spaceGuard, log *slog.Logger) *diskFullBackoff {
	if log == nil {
		log = slog.Default()
	}
	return &diskFullBackoff{guard: guard, log: log, stop: make(chan struct{})}
}

func (b *diskFullBackoff) onDiskFull() {
	if b.guard != nil {
		b.guard.diskFull()
	}
	b.mu.Lock()
	now := time.Now()
	if now.Sub(b.last) > diskFullCalm || b.pause == 0 {
		b.pause = firstDiskFullPause
	} else {
		b.pause = min(2*b.pause, maxDiskFullPause)
	}
	b.last = now
	b.count++
	pause := b.pause
	if now.Sub(b.logged) > time.Minute {
		b.log.Error("the data volume is full: the store's background work (flushes, compactions) waits and retries; free space on the volume",
			"enospc_since_last_report", b.count, "pause", pause)
		b.logged, b.count = now, 0
	}
	b.mu.Unlock()
	t := time.NewTimer(pause)
	defer t.Stop()
	select {
	case <-t.C:
	case <-b.stop:
	}
}

func (b *diskFullBackoff) close() { b.stopOnce.Do(func() { close(b.stop) }) }
