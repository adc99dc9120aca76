package smb

import (
	"maps"
	"slices"
	"time"
)

// watchOrderWait bounds how long a request that may change a share's
// files waits for other connections to answer the frames they had
// already received (awaitWatchers).
const watchOrderWait = 50 * time.Millisecond

// awaitWatchers lets the frames other connections had received before a
// request that may change share's files be answered first, when those
// connections hold an open directory of the share: a CHANGE_NOTIFY a
// client sent on one connection before it changed a file on another is
// then watching when the change is made, as the order the frames arrived
// in says (smbtorture smb2.notify.basedir asks for a notification on one
// connection and at once sets attributes on another).
//
// Only what may still start watching is waited for (mayStartWatching):
// a frame in hand that asks for a notification, or input not read yet.
// Each such connection is waited for until it has nothing of the kind or
// has answered two more frames (the one in hand and the next), for at
// most watchOrderWait in all. Two connections that change files while
// each holds a directory open would wait for each other here; the one
// whose frame began later yields, so the earlier change goes first and
// neither waits for the bound.
func (s *Server) awaitWatchers(self *conn, share string) {
	type mark struct {
		c       *conn
		handled uint64
	}
	mine := self.frame.Load()
	var busy []mark
	for _, c := range s.connections() {
		// Whether c holds a directory is read from memory, and only then
		// its socket.
		if c != self && c.holdsDirectory(share) && c.mayStartWatching(mine) {
			busy = append(busy, mark{c, c.handled.Load()})
		}
	}
	if len(busy) == 0 {
		return
	}
	self.ordering.Store(true)
	defer self.ordering.Store(false)
	deadline := time.Now().Add(watchOrderWait)
	for _, m := range busy {
		for m.c.handled.Load() < m.handled+2 && m.c.mayStartWatching(mine) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Microsecond)
		}
	}
	if time.Now().After(deadline) {
		s.orderingTimeouts.Add(1)
	}
}

// mayStartWatching reports whether c has received something that may
// still ask for a change notification, as seen by a change in the frame
// begun mine-th: a frame in hand that asks for one (or is sealed and not
// opened yet), or input c has not read, unless c's read loop is itself
// waiting in awaitWatchers for a frame begun after mine (that one waits
// for this change instead).
func (c *conn) mayStartWatching(mine uint64) bool {
	if c.inFrame.Load() && c.watchInFrame.Load() {
		return true
	}
	if c.ordering.Load() && c.frame.Load() > mine {
		return false
	}
	return unreadInput(c.nc)
}

// mayWatch reports whether frame, as read, may ask for a change
// notification: a chain with a CHANGE_NOTIFY in it, or a sealed frame,
// whose commands are known only once it is decrypted.
func mayWatch(frame []byte) bool {
	if len(frame) >= 4 && frame[0] == 0xFD && string(frame[1:4]) == "SMB" {
		return true
	}
	for off := 0; off < len(frame); {
		h, err := parseHeader(frame[off:])
		if err != nil {
			return false
		}
		if h.Command == cmdChangeNotify {
			return true
		}
		if h.NextCommand < headerSize {
			return false
		}
		off += int(h.NextCommand)
	}
	return false
}

// holdsDirectory reports whether one of c's sessions has a directory of
// share open.
func (c *conn) holdsDirectory(share string) bool {
	c.mu.Lock()
	sessions := slices.Collect(maps.Values(c.sessions))
	c.mu.Unlock()
	for _, s := range sessions {
		s.mu.Lock()
		for _, o := range s.opens {
			if o.dir && o.tree.share == share {
				s.mu.Unlock()
				return true
			}
		}
		s.mu.Unlock()
	}
	return false
}
