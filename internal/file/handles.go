package file

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// Access is a set of SMB access rights, or of SMB share modes (the rights
// a handle lets others hold while it is open).
type Access uint8

const (
	AccessRead Access = 1 << iota
	AccessWrite
	AccessDelete

	// AccessAll is read, write and delete: as a share mode, deny nothing.
	AccessAll = AccessRead | AccessWrite | AccessDelete
)

// names lists the rights in the order Azure's AccessRightList gives them.
func (a Access) names() []string {
	var out []string
	for _, r := range []struct {
		bit  Access
		name string
	}{{AccessRead, "Read"}, {AccessWrite, "Write"}, {AccessDelete, "Delete"}} {
		if a&r.bit != 0 {
			out = append(out, r.name)
		}
	}
	return out
}

// HandleOptions is what an SMB open asks for.
type HandleOptions struct {
	// Dir opens a directory; otherwise the path must name a file.
	Dir bool
	// Access is the rights the handle holds; ShareAccess the rights it
	// lets other handles hold (and REST operations use) while it is open.
	Access, ShareAccess Access
	// DeleteOnClose marks the node delete-pending at once (Azure's
	// reading of an open for delete): it is deleted when its last handle
	// closes. It needs Delete access.
	DeleteOnClose bool
	SessionID     uint64
	ClientIP      string
	ClientName    string
}

// Handle is one open handle, stored durably so that it survives a restart
// the way Azure's durable handles do.
type Handle struct {
	ID       uint64
	FileID   uint64
	ParentID uint64
	// Name is the node's name under ParentID as stored (Node.Name, ""
	// for the root), so that closing the handle finds the node without a
	// path.
	Name        string `json:",omitempty"`
	Dir         bool   `json:",omitempty"`
	Access      Access
	ShareAccess Access
	SessionID   uint64
	ClientIP    string `json:",omitempty"`
	ClientName  string `json:",omitempty"`
	Opened      time.Time
	// Owner is the id of the server process whose client opened the
	// handle (package liveness); a handle outlives no process.
	Owner string `json:",omitempty"`
	// HoldsChangeTime is MS-FSA's Open.UserSetChangeTime: once the handle
	// has set the node's change time (or asked, with -1, that its changes
	// leave it), its later changes no longer advance it.
	HoldsChangeTime bool `json:",omitempty"`
}

// ErrHandleClosed is what closing or changing a handle that is no longer
// open (closed, force-closed, or its share deleted) returns.
var ErrHandleClosed = errors.New("file: handle is not open")

// use is what a FileREST operation does to a node, checked against the
// node's open handles (see "Manage file locks" in Azure's REST reference).
type use struct {
	// access is the rights the operation needs: every open handle's share
	// mode must grant them.
	access Access
	// share is the share mode the operation grants: every open handle's
	// access must lie within it.
	share Access
	// exclusive operations (deletes) fail while any handle is open.
	exclusive bool
	// modifies operations fail on a ReadOnly file or directory.
	modifies bool
}

// The uses of the FileREST operations. Operations that do not touch
// content (properties, metadata reads, listings) need none.
var (
	// useRead: Get File, List Ranges.
	useRead = use{access: AccessRead, share: AccessAll}
	// useWrite: Put Range, Set Metadata, Set Properties (and a range
	// written from a URL).
	useWrite = use{access: AccessWrite, share: AccessAll, modifies: true}
	// useAttributes: Set Properties that leave the content alone, which
	// is how a ReadOnly attribute is cleared, and the later batches of a
	// copy told to ignore ReadOnly: write access, ReadOnly not in the way.
	useAttributes = use{access: AccessWrite, share: AccessAll}
	// useRename: a rename needs delete access to its source, so every
	// open handle must share delete; renaming a ReadOnly node is allowed.
	useRename = use{access: AccessDelete, share: AccessAll}
	// useReplace: Create File over an existing file.
	useReplace = use{access: AccessWrite | AccessDelete, share: AccessAll, modifies: true}
	// useDelete: Delete File, Delete Directory.
	useDelete = use{access: AccessDelete, share: AccessAll, exclusive: true}
	// useLease: acquiring a lease takes write and delete access and shares
	// only reading while it lasts.
	useLease = use{access: AccessAll, share: AccessRead}
)

var (
	errReadOnly = azerr.ErrReadOnlyAttribute
	errSharing  = azerr.ErrSharingViolation
)

// conflicts reports whether two sets of (access, share mode) cannot both
// be open on one node: each side's access must lie within the other's
// share mode. As in Windows, an open with no read, write or delete access
// (attributes only) takes no part in sharing.
func conflicts(access, share, otherAccess, otherShare Access) bool {
	if access == 0 || otherAccess == 0 {
		return false
	}
	return access&^otherShare != 0 || otherAccess&^share != 0
}

// checkUse verifies that an operation doing u may act on n now: no open
// handle's share mode denies it, and a ReadOnly node refuses changes. The
// scan of n's handles is in the transaction's read set, so a concurrent
// open conflicts with the operation. Delete-pending nodes never get here:
// existing refuses them.
func (t *Tx) checkUse(acct, share string, n *Node, u use) error {
	_, err := t.checkUseCounting(acct, share, n, u)
	return err
}

// checkUseCounting is checkUse, which also reports how many handles are
// open on the node.
func (t *Tx) checkUseCounting(acct, share string, n *Node, u use) (open int, err error) {
	if u.modifies && hasAttribute(n.SMB.Attributes, "ReadOnly") {
		return 0, errReadOnly
	}
	hs, err := t.handlesOf(acct, share, n.ID)
	if err != nil {
		return 0, err
	}
	for _, h := range hs {
		if u.exclusive || conflicts(u.access, u.share, h.Access, h.ShareAccess) {
			return 0, errSharing
		}
	}
	return len(hs), nil
}

// existingFor is existing followed by checkUse: the one call an operation
// that reads or changes a node's content makes to find it.
func (t *Tx) existingFor(acct, share, path string, dir bool, pre Preconditions, u use) (*located, error) {
	kind := conditionsKind(u)
	l, err := t.existing(acct, share, path, dir, kind, pre)
	if err != nil {
		return nil, err
	}
	open, err := t.checkUseCounting(acct, share, l.node, u)
	l.unopened = open == 0
	return l, err
}

// conditionsKind is how conditional headers and leases judge an
// operation doing u: as a write when it changes or deletes anything.
func conditionsKind(u use) conditions.Kind {
	if u.modifies || u.exclusive || u.access&(AccessWrite|AccessDelete) != 0 {
		return conditions.Write
	}
	return conditions.Read
}

func hasAttribute(attrs, name string) bool {
	for _, a := range strings.Split(attrs, "|") {
		if strings.EqualFold(strings.TrimSpace(a), name) {
			return true
		}
	}
	return false
}

// handlesOf returns the open handles of one node in ID order.
func (t *Tx) handlesOf(acct, share string, id uint64) ([]*Handle, error) {
	return record.LoadAll[Handle](t.r, handlesPrefix(acct, share, id))
}

// OpenHandle opens a handle on the directory or file at path, applying
// SMB sharing rules: the open fails with SharingViolation when its access
// is denied by an open handle's share mode, when its share mode denies an
// open handle's access, or when it asks to write or delete a file under
// an active lease. A delete-pending node answers DeletePending.
func (s *Service) OpenHandle(ctx context.Context, ref Ref, o HandleOptions) (*Handle, error) {
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Handle, error) { return t.OpenHandle(ref, o) })
}

// OpenHandle opens a handle inside t's transaction.
func (t *Tx) OpenHandle(ref Ref, o HandleOptions) (*Handle, error) {
	acct, share, path := ref.Account, ref.Share, ref.Path
	if o.Access&^AccessAll != 0 || o.ShareAccess&^AccessAll != 0 {
		return nil, azerr.ErrInvalidInput.WithMessage("Unknown access rights or share mode.")
	}
	// A snapshot's deletion (and its share's) drops its namespace's
	// records only: a handle opened in it would outlive it.
	if _, _, ok := splitSnapshotNS(share); ok {
		return nil, azerr.ErrShareSnapshotOperationNotSupported
	}
	l, err := t.locate(acct, share, path)
	if err != nil {
		return nil, err
	}
	n := l.node
	if n == nil || n.Dir != o.Dir {
		return nil, azerr.ErrResourceNotFound
	}
	if n.DeletePending {
		return nil, azerr.ErrDeletePending
	}
	if !n.Dir && o.Access&(AccessWrite|AccessDelete) != 0 && n.Lease.Active(t.now) {
		return nil, errSharing
	}
	hs, err := t.handlesOf(acct, share, n.ID)
	if err != nil {
		return nil, err
	}
	for _, h := range hs {
		if conflicts(o.Access, o.ShareAccess, h.Access, h.ShareAccess) {
			return nil, errSharing
		}
	}
	id, err := t.newID()
	if err != nil {
		return nil, err
	}
	h := &Handle{ID: id, FileID: n.ID, ParentID: l.parentID, Name: n.Name, Dir: n.Dir, Access: o.Access, ShareAccess: o.ShareAccess,
		SessionID: o.SessionID, ClientIP: o.ClientIP, ClientName: o.ClientName, Opened: t.now, Owner: t.owner}
	if o.DeleteOnClose {
		if err := t.markDeletePending(acct, share, l, h, true); err != nil {
			return nil, err
		}
	}
	return h, record.Store(t.tx, handleKey(acct, share, n.ID, id), h)
}

// markDeletePending sets or clears the node's delete-pending state on
// behalf of handle h, which must hold Delete access.
func (t *Tx) markDeletePending(acct, share string, l *located, h *Handle, on bool) error {
	n := l.node
	if on && n.DeletePending == on {
		return nil
	}
	if h.Access&AccessDelete == 0 {
		return azerr.ErrInvalidInput.WithMessage("A delete disposition needs a handle opened with Delete access.")
	}
	if on {
		switch {
		case n.ID == rootID && n.Dir:
			return azerr.ErrInvalidInput.WithMessage("The root directory of a share cannot be deleted.")
		case hasAttribute(n.SMB.Attributes, "ReadOnly"):
			return errReadOnly
		}
		if n.Dir {
			empty, err := t.emptyDir(acct, share, n.ID)
			if err != nil {
				return err
			}
			if !empty {
				return azerr.ErrDirectoryNotEmpty
			}
		}
	}
	n.DeletePending = on
	if on && n.Dir {
		t.changed(acct, share, l, n, EntryDeletePending, 0)
	}
	return record.Store(t.tx, l.key, n)
}

// emptyDir reports whether a directory has no entries; the scan makes a
// concurrent create inside it conflict.
func (t *Tx) emptyDir(acct, share string, id uint64) (bool, error) {
	p := childrenPrefix(acct, share, id)
	empty := true
	err := t.r.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { empty = false; return kv.ErrStopScan })
	return empty, err
}

// handleNode loads an open handle and the node it is open on.
func (t *Tx) handleNode(acct, share string, fileID, handleID uint64) (*Handle, *located, error) {
	if _, err := loadShare(t.r, acct, share); err != nil {
		if errors.Is(err, azerr.ErrShareNotFound) {
			return nil, nil, ErrHandleClosed
		}
		return nil, nil, err
	}
	h := new(Handle)
	found, err := record.Load(t.r, handleKey(acct, share, fileID, handleID), h)
	if err != nil {
		return nil, nil, err
	}
	if !found {
		return nil, nil, ErrHandleClosed
	}
	key := nodeKey(acct, share, h.ParentID, h.Name)
	if h.FileID == rootID && h.Dir {
		key = rootKey(acct, share)
	}
	n, err := loadNode(t.r, key)
	if err != nil {
		return nil, nil, err
	}
	if n == nil || n.ID != h.FileID {
		return nil, nil, errors.New("file: handle outlives its node")
	}
	return h, &located{key: key, entry: key, parentID: h.ParentID, node: n}, nil
}

// SetDeleteOnClose sets or clears the delete-pending state of the node a
// handle is open on (SMB's delete disposition). While it is set, FileREST
// operations on the node answer DeletePending and listings leave it out.
func (s *Service) SetDeleteOnClose(ctx context.Context, ref HandleRef, o DeleteOnCloseOptions) error {
	return s.Update(ctx, func(t *Tx) error { return t.SetDeleteOnClose(ref, o) })
}

// SetDeleteOnClose changes a node's delete disposition inside t's
// transaction.
func (t *Tx) SetDeleteOnClose(ref HandleRef, o DeleteOnCloseOptions) error {
	acct, share, fileID, handleID, on := ref.Account, ref.Share, ref.FileID, ref.HandleID, o.DeleteOnClose
	h, l, err := t.handleNode(acct, share, fileID, handleID)
	if err != nil {
		return err
	}
	return t.markDeletePending(acct, share, l, h, on)
}

// CloseHandle closes a handle. Closing the last handle of a
// delete-pending node deletes it, a file with its content; a directory
// that is not empty by then stays, no longer pending.
func (s *Service) CloseHandle(ctx context.Context, ref HandleRef) error {
	return s.Update(ctx, func(t *Tx) error { return t.CloseHandle(ref) })
}

// CloseHandle closes a handle inside t's transaction.
func (t *Tx) CloseHandle(ref HandleRef) error {
	acct, share, fileID, handleID := ref.Account, ref.Share, ref.FileID, ref.HandleID
	h, l, err := t.handleNode(acct, share, fileID, handleID)
	if err != nil {
		return err
	}
	return t.closeHandle(acct, share, h, l, true)
}

// closeHandle drops h; when it was the last handle of a delete-pending
// node, the node is deleted (deleteIfPending) or just stops being pending.
func (t *Tx) closeHandle(acct, share string, h *Handle, l *located, deleteIfPending bool) error {
	if err := t.tx.Delete(handleKey(acct, share, h.FileID, h.ID)); err != nil {
		return err
	}
	if err := t.dropHandleLocks(acct, share, h); err != nil {
		return err
	}
	n := l.node
	if n.Allocation != 0 && !n.DeletePending {
		return t.giveBackAllocation(acct, share, l)
	}
	if !n.DeletePending {
		return nil
	}
	rest, err := t.handlesOf(acct, share, n.ID)
	if err != nil || len(rest) > 0 {
		return err
	}
	if deleteIfPending && n.Dir {
		empty, err := t.emptyDir(acct, share, n.ID)
		if err != nil {
			return err
		}
		deleteIfPending = empty
	}
	if !deleteIfPending {
		n.DeletePending, n.Allocation = false, 0
		return record.Store(t.tx, l.key, n)
	}
	if !n.Dir {
		return t.removeFile(acct, share, l)
	}
	t.changed(acct, share, l, n, EntryRemoved, 0)
	return t.tx.Delete(l.key)
}

// moveHandles re-keys the handles open on node from so that they are
// open on the node with ID to, stored as name under parent: Create File
// replacing a file keeps its handles open on the new one, and a rename
// must call it with the node's new parent and name.
func (t *Tx) moveHandles(acct, share string, from, to, parent uint64, name string) error {
	hs, err := t.handlesOf(acct, share, from)
	if err != nil {
		return err
	}
	for _, h := range hs {
		if err := t.tx.Delete(handleKey(acct, share, from, h.ID)); err != nil {
			return err
		}
		h.FileID, h.ParentID, h.Name = to, parent, name
		if err := record.Store(t.tx, handleKey(acct, share, to, h.ID), h); err != nil {
			return err
		}
	}
	return t.moveLocks(acct, share, from, to)
}
