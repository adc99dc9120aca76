package smb

import (
	"strings"
	"sync"

	"github.com/cerulean-db/cerulean/internal/file"
)

// CHANGE_NOTIFY (MS-SMB2 2.2.35, 3.3.5.19), as Windows serves it and
// smbtorture smb2.notify checks it: the first request on an open
// directory starts a watch that lasts until the open closes; its
// completion filter, WATCH_TREE flag and output buffer length stay the
// watch's. Changes are buffered on the watch while no request waits; a
// request finds them at once, or waits (STATUS_PENDING) for the next
// one. Changes that no longer fit the buffer make the next answer
// STATUS_NOTIFY_ENUM_DIR with no entries. Closing the open, or its tree
// or session going, ends a waiting request with STATUS_NOTIFY_CLEANUP.
// The changes come from the file model (file.Service.WatchChanges), so
// writes over FileREST are seen as SMB's are.

// Completion filter bits (MS-SMB2 2.2.35) and the FILE_NOTIFY_INFORMATION
// actions (MS-FSCC 2.7.1).
const (
	notifyFileName   uint32 = 0x001
	notifyDirName    uint32 = 0x002
	notifyAttributes uint32 = 0x004
	notifySize       uint32 = 0x008
	notifyLastWrite  uint32 = 0x010
	notifyLastAccess uint32 = 0x020
	notifyCreation   uint32 = 0x040
	notifyEA         uint32 = 0x080
	notifySecurity   uint32 = 0x100

	watchTree uint16 = 0x0001

	statusNotifyCleanup uint32 = 0x0000010B
	statusNotifyEnumDir uint32 = 0x0000010C
)

// notifyMaxBuffer is the largest output buffer a request may ask for:
// the connection's maximum transaction size.
const notifyMaxBuffer = maxIO

// notifyEntry is one buffered FILE_NOTIFY_INFORMATION.
type notifyEntry struct {
	action uint32
	name   string // relative to the watched directory, \-separated
}

// size is the entry's encoded size, padded to 4 bytes.
func (e notifyEntry) size() int { return (12 + 2*len([]rune(e.name)) + 3) &^ 3 }

// watch is the change notification state of one open directory.
type watch struct {
	c      *conn
	o      *open
	acct   string
	dirID  uint64
	path   string // the directory's path in the share, names as stored
	tree   bool
	filter uint32
	limit  int // the buffer size of the first request

	// guarded by notifier.mu
	entries  []notifyEntry
	used     int
	overflow bool
	waiting  []*pendingOp
	closed   bool
}

type shareKey struct{ account, share string }

// notifier hands the file model's committed changes to the watches of
// the shares they happen in. It also remembers the paths of the
// directories it hears of in watched shares, so that a change made
// through a handle (which names only the parent's ID) reaches a watch
// of an ancestor with its path.
type notifier struct {
	mu      sync.Mutex
	watches map[shareKey]map[*watch]struct{}
	dirs    map[shareKey]map[uint64]string
}

// maxKnownDirs bounds the directory paths remembered per share.
const maxKnownDirs = 1 << 14

func newNotifier() *notifier {
	return &notifier{watches: map[shareKey]map[*watch]struct{}{}, dirs: map[shareKey]map[uint64]string{}}
}

// learn remembers a directory's path in a watched share.
func (n *notifier) learn(k shareKey, id uint64, path string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.learnLocked(k, id, path)
}

func (n *notifier) learnLocked(k shareKey, id uint64, path string) {
	if len(n.watches[k]) == 0 {
		return
	}
	d := n.dirs[k]
	if d == nil || len(d) >= maxKnownDirs {
		d = map[uint64]string{}
		n.dirs[k] = d
	}
	d[id] = path
}

// Changed implements file.ChangeWatcher.
func (n *notifier) Changed(ch file.Change) {
	k := shareKey{ch.Account, ch.Share}
	n.mu.Lock()
	defer n.mu.Unlock()
	ws := n.watches[k]
	if len(ws) == 0 {
		return
	}
	path := ch.Path
	if path == "" {
		if ch.Parent == rootNodeID {
			path = ch.Name
		} else if p, ok := n.dirs[k][ch.Parent]; ok {
			path = p + "/" + ch.Name
		}
	}
	if ch.Dir && path != "" {
		switch ch.Action {
		case file.EntryRemoved, file.EntryRenamedFrom:
			delete(n.dirs[k], ch.ID)
		default:
			n.learnLocked(k, ch.ID, path)
		}
	}
	if ch.Action == file.EntryDeletePending {
		// A watched directory about to go answers what waits on it
		// with STATUS_DELETE_PENDING (smbtorture smb2.notify.rmdir1-4).
		for w := range ws {
			if w.dirID == ch.ID {
				w.fail(statusDeletePending)
			}
		}
		return
	}
	action, bits := notifyAction(ch)
	for w := range ws {
		if w.filter&bits == 0 {
			continue
		}
		var name string
		switch {
		case ch.Parent == w.dirID:
			name = ch.Name
		case !w.tree || path == "":
			continue
		case w.path == "":
			name = path
		case strings.HasPrefix(strings.ToLower(path), strings.ToLower(w.path)+"/"):
			name = path[len(w.path)+1:]
		default:
			continue
		}
		w.add(notifyEntry{action: action, name: strings.ReplaceAll(name, "/", "\\")})
	}
}

// rootNodeID is the ID of a share's root directory in the file model.
const rootNodeID = 0

// notifyAction is a change's FILE_NOTIFY_INFORMATION action and the
// completion filter bits that select it.
func notifyAction(ch file.Change) (uint32, uint32) {
	name := notifyFileName
	if ch.Dir {
		name = notifyDirName
	}
	switch ch.Action {
	case file.EntryAdded:
		return 1, name
	case file.EntryRemoved:
		return 2, name
	case file.EntryRenamedFrom:
		return 4, name
	case file.EntryRenamedTo:
		return 5, name
	}
	var bits uint32
	for _, m := range []struct {
		k file.ChangeKind
		b uint32
	}{
		{file.ChangedAttributes, notifyAttributes}, {file.ChangedSize, notifySize}, {file.ChangedLastWrite, notifyLastWrite},
		{file.ChangedCreation, notifyCreation}, {file.ChangedLastAccess, notifyLastAccess}, {file.ChangedSecurity, notifySecurity}, {file.ChangedMetadata, notifyEA},
	} {
		if ch.Kind&m.k != 0 {
			bits |= m.b
		}
	}
	return 3, bits
}

// add buffers an entry (n.mu held) and answers the first waiting
// request. An entry identical to the last one buffered adds nothing, as
// Windows folds repeated modifications of one file.
func (w *watch) add(e notifyEntry) {
	if w.closed {
		return
	}
	if !w.overflow {
		if k := len(w.entries); k > 0 && w.entries[k-1] == e {
			return
		}
		if w.used+e.size() > w.limit {
			w.overflow, w.entries, w.used = true, nil, 0
		} else {
			w.entries = append(w.entries, e)
			w.used += e.size()
		}
	}
	w.answer()
}

// fail ends every waiting request with status (n.mu held).
func (w *watch) fail(status uint32) {
	for _, p := range w.waiting {
		go w.c.finish(p, errResp(status))
	}
	w.waiting = nil
}

// answer completes the first waiting request with what is buffered
// (n.mu held).
func (w *watch) answer() {
	if len(w.waiting) == 0 || (len(w.entries) == 0 && !w.overflow) {
		return
	}
	p := w.waiting[0]
	w.waiting = w.waiting[1:]
	resp := w.take(notifyOutLen(p.r))
	go w.c.finish(p, resp)
}

func notifyOutLen(r *request) int { return int(r.b.u32(4)) }

// take empties the buffer into a response for a request whose output
// buffer holds outLen bytes (n.mu held).
func (w *watch) take(outLen int) response {
	entries, used, overflow := w.entries, w.used, w.overflow
	w.entries, w.used, w.overflow = nil, 0, false
	if overflow || used > outLen {
		return errResp(statusNotifyEnumDir)
	}
	var out buf
	for i, e := range entries {
		start := len(out.b)
		name := utf16le(e.name)
		out.u32(0)
		out.u32(e.action)
		out.u32(uint32(len(name)))
		out.raw(name)
		out.align(4)
		if i < len(entries)-1 {
			le.PutUint32(out.b[start:], uint32(len(out.b)-start))
		}
	}
	var b buf
	b.u16(9)
	b.u16(headerSize + 8)
	b.u32(uint32(len(out.b)))
	b.raw(out.b)
	return response{body: b.b}
}

// changeNotify answers CHANGE_NOTIFY.
func (c *conn) changeNotify(r *request) response {
	b := r.b
	flags := b.u16(2)
	outLen := b.u32(4)
	id := b.fileID(8)
	filter := b.u32(24)
	o, st := c.openOf(r, id)
	if o == nil {
		return errResp(st)
	}
	switch {
	case !o.dir, outLen > notifyMaxBuffer:
		return errResp(statusInvalidParameter)
	case o.granted&accReadData == 0: // FILE_LIST_DIRECTORY
		return errResp(statusAccessDenied)
	}
	n, err := c.node(r, o)
	if err != nil {
		return c.gone(r, o, err)
	}
	if n.DeletePending {
		return errResp(statusDeletePending)
	}
	hub := c.srv.notify
	k := shareKey{r.sess.account, o.tree.share}
	hub.mu.Lock()
	w := o.watch
	if w == nil {
		w = &watch{c: c, o: o, acct: r.sess.account, dirID: o.id.Persistent, path: o.stored, tree: flags&watchTree != 0,
			filter: filter, limit: int(outLen)}
		o.watch = w
		if hub.watches[k] == nil {
			hub.watches[k] = map[*watch]struct{}{}
		}
		hub.watches[k][w] = struct{}{}
	}
	if len(w.entries) > 0 || w.overflow {
		resp := w.take(int(outLen))
		hub.mu.Unlock()
		return resp
	}
	hub.mu.Unlock()
	var p *pendingOp
	p, resp, ok := c.goAsync(r, o, func() { c.endNotify(w, p, statusCancelled) })
	if !ok {
		return resp
	}
	// The request joins the watch once STATUS_PENDING is out; a change
	// buffered meanwhile answers it then.
	p.started = func() {
		hub.mu.Lock()
		defer hub.mu.Unlock()
		if w.closed {
			go c.finish(p, errResp(statusNotifyCleanup))
			return
		}
		w.waiting = append(w.waiting, p)
		w.answer()
	}
	return resp
}

// endNotify ends a waiting request of w with status (CANCEL).
func (c *conn) endNotify(w *watch, p *pendingOp, status uint32) {
	hub := c.srv.notify
	hub.mu.Lock()
	for i, q := range w.waiting {
		if q == p {
			w.waiting = append(w.waiting[:i:i], w.waiting[i+1:]...)
			break
		}
	}
	hub.mu.Unlock()
	c.finish(p, errResp(status))
}

// unwatch ends an open's watch as the open closes (or its tree or
// session goes): waiting requests answer STATUS_NOTIFY_CLEANUP.
func (c *conn) unwatch(o *open) {
	hub := c.srv.notify
	hub.mu.Lock()
	w := o.watch
	if w == nil || w.closed {
		hub.mu.Unlock()
		return
	}
	w.closed = true
	waiting := w.waiting
	w.waiting = nil
	for k, ws := range hub.watches {
		if _, ok := ws[w]; ok {
			delete(ws, w)
			if len(ws) == 0 {
				delete(hub.watches, k)
				delete(hub.dirs, k)
			}
		}
	}
	hub.mu.Unlock()
	for _, p := range waiting {
		c.finish(p, errResp(statusNotifyCleanup))
	}
}

// learnPaths remembers, in a watched share, the path of a directory
// opened and of the directory holding an opened file.
func (c *conn) learnPaths(acct string, o *open, n *file.Node) {
	k := shareKey{acct, o.tree.share}
	if o.dir {
		c.srv.notify.learn(k, o.id.Persistent, o.stored)
		return
	}
	if i := strings.LastIndexByte(o.stored, '/'); i > 0 {
		c.srv.notify.learn(k, n.ParentID, o.stored[:i])
	}
}
