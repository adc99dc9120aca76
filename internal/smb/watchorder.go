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
// connection and at once sets attributes on another). Each such
// connection is waited for until it is idle or has answered two more
// frames (the one in hand and the next), for at most watchOrderWait in
// all; a connection with nothing received is not waited for.
func (s *Server) awaitWatchers(self *conn, share string) {
	type mark struct {
		c       *conn
		handled uint64
	}
	var busy []mark
	for _, c := range s.connections() {
		if c != self && (c.inFrame.Load() || unreadInput(c.nc)) {
			busy = append(busy, mark{c, c.handled.Load()})
		}
	}
	if len(busy) == 0 {
		return
	}
	deadline := time.Now().Add(watchOrderWait)
	for _, m := range busy {
		if !m.c.holdsDirectory(share) {
			continue
		}
		for m.c.handled.Load() < m.handled+2 && (m.c.inFrame.Load() || unreadInput(m.c.nc)) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Microsecond)
		}
	}
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
