package file

import (
	"slices"
	"sync"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// ChangeAction is what a committed change did to an entry of a directory.
type ChangeAction uint8

// The actions, in the order SMB's FILE_NOTIFY_INFORMATION numbers them.
const (
	EntryAdded ChangeAction = iota + 1
	EntryRemoved
	EntryModified
	// A rename within one directory is EntryRenamedFrom then
	// EntryRenamedTo; a move to another directory is EntryRemoved in the
	// old one and EntryAdded in the new one, as NTFS reports it.
	EntryRenamedFrom
	EntryRenamedTo
	// EntryDeletePending: a directory's delete disposition was set (an
	// SMB handle will delete it when the last handle closes).
	EntryDeletePending
)

// ChangeKind is the set of properties an EntryModified change touched.
type ChangeKind uint16

const (
	ChangedAttributes ChangeKind = 1 << iota
	ChangedSize
	ChangedLastWrite
	ChangedCreation
	ChangedSecurity
	ChangedMetadata
	ChangedLastAccess
)

// Change is one committed change to an entry (a file or directory) of a
// directory of a share.
type Change struct {
	Account, Share string
	// Parent is the ID of the directory the entry is in; Name the
	// entry's name there, as stored.
	Parent uint64
	Name   string
	// Path is the entry's path in the share, names as stored, when the
	// operation resolved one ("" when it addressed the entry through a
	// handle).
	Path   string
	ID     uint64 // the entry's node ID
	Dir    bool
	Action ChangeAction
	Kind   ChangeKind // for EntryModified
}

// ChangeWatcher is told of every change a transaction of the Service
// commits, in commit order per goroutine, after the commit. Changed runs
// on the committing goroutine: it must return quickly and must not call
// back into the Service. Changes other processes sharing the store commit
// are not seen.
type ChangeWatcher interface {
	Changed(Change)
}

// changeWatchers are the watchers registered with WatchChanges.
type changeWatchers struct {
	mu   sync.RWMutex
	list []*ChangeWatcher
}

// WatchChanges registers w to be told of committed changes (SMB's
// CHANGE_NOTIFY); the function returned unregisters it.
func (s *Service) WatchChanges(w ChangeWatcher) (stop func()) {
	cw := s.watchers
	p := &w
	cw.mu.Lock()
	cw.list = append(cw.list, p)
	cw.mu.Unlock()
	return func() {
		cw.mu.Lock()
		defer cw.mu.Unlock()
		for i, q := range cw.list {
			if q == p {
				cw.list = append(cw.list[:i:i], cw.list[i+1:]...)
				return
			}
		}
	}
}

func (cw *changeWatchers) active() bool {
	if cw == nil {
		return false
	}
	cw.mu.RLock()
	defer cw.mu.RUnlock()
	return len(cw.list) > 0
}

func (cw *changeWatchers) notify(c Change) {
	cw.mu.RLock()
	list := cw.list
	cw.mu.RUnlock()
	for _, w := range list {
		(*w).Changed(c)
	}
}

// changed registers a change to the node n at l, told to the watchers
// once the transaction commits.
func (t *Tx) changed(acct, share string, l *located, n *Node, action ChangeAction, kind ChangeKind) {
	if !t.watchers.active() || n == nil {
		return
	}
	c := Change{Account: acct, Share: share, Parent: l.parentID, Name: n.Name, Path: l.stored, ID: n.ID, Dir: n.Dir, Action: action, Kind: kind}
	if c.Name == "" && c.Path != "" {
		c.Name = baseName(c.Path)
	}
	if n.ID == rootID && n.Dir {
		return // the root is in no directory
	}
	cw := t.watchers
	t.tx.OnCommit(func() { cw.notify(c) })
}

// moved registers a rename of n from src to dst.
func (t *Tx) moved(acct, share string, src, dst *located, n *Node, oldName string) {
	if !t.watchers.active() {
		return
	}
	old := *n
	old.Name = oldName
	if src.parentID == dst.parentID {
		t.changed(acct, share, src, &old, EntryRenamedFrom, 0)
		t.changed(acct, share, dst, n, EntryRenamedTo, 0)
		return
	}
	t.changed(acct, share, src, &old, EntryRemoved, 0)
	t.changed(acct, share, dst, n, EntryAdded, 0)
}

// modified registers the change from old to n (the same node) as an
// EntryModified of the properties that differ; nothing when none does.
func (t *Tx) modified(acct, share string, l *located, old SMB, oldSize int64, oldMeta azhttp.Metadata, n *Node) {
	if !t.watchers.active() {
		return
	}
	var k ChangeKind
	if old.Attributes != n.SMB.Attributes {
		k |= ChangedAttributes
	}
	if oldSize != n.Size {
		k |= ChangedSize
	}
	if !old.LastWriteTime.Equal(n.SMB.LastWriteTime) {
		k |= ChangedLastWrite
	}
	if !old.AccessTime().Equal(n.SMB.AccessTime()) {
		k |= ChangedLastAccess
	}
	if !old.CreationTime.Equal(n.SMB.CreationTime) {
		k |= ChangedCreation
	}
	if old.Permission != n.SMB.Permission {
		k |= ChangedSecurity
	}
	if !slices.Equal(oldMeta, n.Metadata) {
		k |= ChangedMetadata
	}
	if k != 0 {
		t.changed(acct, share, l, n, EntryModified, k)
	}
}
