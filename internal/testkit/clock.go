package testkit

import (
	"sync"
	"time"
)

// Clock is a server clock that stands still until the test moves it, so
// leases, visibility timeouts and TTLs are crossed without sleeping. Pass
// its Now to servertest.WithClock. It is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock stopped at start. Start from a real instant
// (time.Now()) when the test also signs SAS tokens, whose times the
// server checks against this clock.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
