package table

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// etagWindow is how far past the tick it issues a reservation reaches:
// one second of 100 ns ticks, so the watermark is written about once a
// second under load and a restart moves ETag times ahead by at most that.
const etagWindow = 1e7

// clockKey holds the ETag watermark: a tick (100 ns after 1970) that no
// committed entity write has reached. See etagClock.
func clockKey() tuple.Key { return tuple.New(keyspace.TableETagClock) }

// unixEpochTicks is 1970-01-01 in Timestamp ticks (100 ns after 0001-01-01).
var unixEpochTicks = odata.Ticks(time.Unix(0, 0).UTC())

// etagClock issues the times entity writes are stamped with: a hybrid
// clock. A tick is the server clock at the write in 100 ns units after
// 1970, raised to one past the last tick issued, so ticks are unique and
// increasing however the clock moves. The entity's ETag and its Timestamp
// both render the tick.
//
// Uniqueness survives restarts through the watermark under clockKey:
// every tick a committed transaction carries is below a watermark that
// committed with it or before it. A write whose tick reaches the watermark
// it knows raises it (tick + etagWindow) in its own transaction, so the
// reservation is durable exactly when the write is; after a restart the
// first write reads the watermark and issues no tick below it.
//
// Writes reading and raising the watermark in their own transactions
// would conflict with each other through it, so a write transaction does
// so only as a fallback: before it begins, reserve raises the watermark
// in a transaction of its own whenever the clock comes within half a
// window of it, so that the writes under way issue ticks below a
// committed reservation and never touch the watermark's key.
//
// The clock is safe for concurrent use.
type etagClock struct {
	now func() time.Time

	mu       sync.Mutex
	last     uint64 // last tick issued
	loaded   bool   // the stored watermark has been read since start
	reserved uint64 // a committed watermark: ticks below it need no write
	// raising is closed when the reservation under way commits or
	// fails; nil when none is under way.
	raising chan struct{}
}

// reserve makes sure, before a write transaction begins, that the ticks
// it will issue are below a committed watermark: when the clock has come
// within half a window of the watermark (or has not read it since start)
// one caller raises it in a transaction of its own (raise) while others
// go on as long as the old reservation still covers them.
func (c *etagClock) reserve(ctx context.Context, store kv.Store) error {
	for {
		c.mu.Lock()
		t := c.peek()
		if c.loaded && t+etagWindow/2 < c.reserved {
			c.mu.Unlock()
			return nil
		}
		if wait := c.raising; wait != nil {
			covered := c.loaded && t < c.reserved
			c.mu.Unlock()
			if covered {
				return nil
			}
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		done := make(chan struct{})
		c.raising = done
		c.mu.Unlock()
		err := c.raise(ctx, store)
		c.mu.Lock()
		c.raising = nil
		c.mu.Unlock()
		close(done)
		return err
	}
}

// raise reads the stored watermark and, unless it is already a window
// ahead of the clock, writes one that is; c.reserved takes the
// watermark once it has committed.
func (c *etagClock) raise(ctx context.Context, store kv.Store) error {
	mark, err := kv.Returning(ctx, store.Update, func(tx kv.Txn) (uint64, error) {
		stored, err := loadWatermark(tx)
		if err != nil {
			return 0, err
		}
		c.mu.Lock()
		c.load(stored)
		want := c.peek() + etagWindow
		c.mu.Unlock()
		if stored >= want-etagWindow/2 {
			return stored, nil
		}
		return want, tx.Set(clockKey(), binary.BigEndian.AppendUint64(nil, want))
	})
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.reserved = max(c.reserved, mark)
	c.mu.Unlock()
	return nil
}

// next issues a tick above floor for a write in tx. A tick that reaches
// the reservation (a transaction that ran past it, or a floor ahead of
// the clock) is covered in tx itself: tx reads the stored watermark and
// raises it when the tick reaches it.
func (c *etagClock) next(tx kv.Txn, floor uint64) (uint64, error) {
	c.mu.Lock()
	loaded := c.loaded
	var t uint64
	if loaded {
		t = c.issue(floor)
		if t < c.reserved {
			c.mu.Unlock()
			return t, nil
		}
	}
	c.mu.Unlock()

	stored, err := loadWatermark(tx)
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !loaded {
		c.load(stored)
		t = c.issue(floor)
	}
	if t < stored {
		c.reserved = max(c.reserved, stored)
		return t, nil
	}
	return t, tx.Set(clockKey(), binary.BigEndian.AppendUint64(nil, t+etagWindow))
}

// load takes the stored watermark as read for the first time since
// start: ticks issued before the restart are all below it. c.mu is held.
func (c *etagClock) load(stored uint64) {
	if !c.loaded {
		c.last, c.loaded = max(c.last, stored-min(stored, 1)), true
	}
}

// peek is the tick the clock would issue next with no floor; c.mu is
// held.
func (c *etagClock) peek() uint64 { return max(unixTicks(c.now()), c.last+1) }

// issue takes the next tick above floor; c.mu is held.
func (c *etagClock) issue(floor uint64) uint64 {
	t := max(c.peek(), floor+1)
	c.last = t
	return t
}

func unixTicks(t time.Time) uint64 {
	n := odata.Ticks(t.UTC()) - unixEpochTicks
	if n < 0 {
		return 0
	}
	return uint64(n)
}

// loadWatermark reads the stored watermark, 0 when none was written.
func loadWatermark(r kv.Reader) (uint64, error) {
	v, err := r.Get(clockKey())
	if errors.Is(err, kv.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(v) != 8 {
		return 0, errCorrupt
	}
	return binary.BigEndian.Uint64(v), nil
}
