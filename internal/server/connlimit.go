package server

import (
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxConnections is how many connections one listener keeps open
// at once unless Config.MaxConnections says otherwise. An idle connection
// costs a goroutine and its buffers (a few KiB), so thousands are cheap;
// the bound is there so that a client opening connections without end
// runs into it rather than into the process's file descriptors.
const DefaultMaxConnections = 4096

// refusalLogInterval is how often a listener over its bound logs how many
// connections it refused, so a flood costs one line, not one per
// connection.
const refusalLogInterval = 10 * time.Second

// limitConnections bounds how many connections ln's callers hold open at
// once. A connection past the bound is accepted and closed at once rather
// than left in the kernel's backlog: the client sees the connection reset
// straight away, which every Azure SDK treats as a transient network
// error and retries with backoff, while answering 503 ServerBusy would
// first cost a TLS handshake and a request read — the resources the bound
// is there to save — and a client left in the backlog waits for its own
// timeout with no answer at all.
func limitConnections(ln net.Listener, limit int, name string, log *slog.Logger) net.Listener {
	if limit <= 0 {
		limit = DefaultMaxConnections
	}
	return &connLimiter{Listener: ln, limit: int64(limit), name: name, log: log}
}

type connLimiter struct {
	net.Listener
	limit   int64
	name    string
	log     *slog.Logger
	open    atomic.Int64
	refused atomic.Int64 // since the last log line
	lastLog atomic.Int64 // unix nanoseconds of the last log line
}

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.limit {
			return &limitedConn{Conn: c, release: func() { l.open.Add(-1) }}, nil
		}
		l.open.Add(-1)
		_ = c.Close() // the client sees a reset; nothing of ours is left to release
		l.noteRefusal()
	}
}

// noteRefusal counts a refused connection and logs the count at most
// once per refusalLogInterval.
func (l *connLimiter) noteRefusal() {
	l.refused.Add(1)
	now := time.Now().UnixNano()
	last := l.lastLog.Load()
	if now-last < int64(refusalLogInterval) && last != 0 {
		return
	}
	if !l.lastLog.CompareAndSwap(last, now) {
		return
	}
	n := l.refused.Swap(0)
	l.log.Warn("connection limit reached: closing new connections until open ones end",
		"service", l.name, "max_connections", l.limit, "refused", n)
}

// limitedConn gives its slot back when it closes, once however often
// Close is called.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
