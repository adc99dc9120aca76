package file

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// This file holds the operations an SMB server needs: an open that
// creates or overwrites as it opens, and reads, writes and changes
// addressed by an open handle. A handle names its node's parent ID and
// name, so each of them finds the node with one read, without walking a
// path, and keeps working after the node was renamed.

// Disposition is what an open does depending on whether its path exists.
type Disposition uint8

const (
	// OpenExisting opens what is there; nothing there is ResourceNotFound.
	OpenExisting Disposition = iota
	// CreateNew creates; something there is ResourceAlreadyExists.
	CreateNew
	// OpenOrCreate opens what is there, or creates it.
	OpenOrCreate
	// Overwrite empties the file that is there; nothing there is
	// ResourceNotFound.
	Overwrite
	// OverwriteOrCreate empties the file that is there, or creates it.
	OverwriteOrCreate
	// Supersede replaces the file that is there, or creates it.
	Supersede
)

// OpenAction is what an open did.
type OpenAction uint8

const (
	Opened OpenAction = iota
	Created
	Overwritten
	Superseded
)

// OpenRequest is one SMB open.
type OpenRequest struct {
	HandleOptions
	Disposition Disposition
	// Dir asks for a directory (HandleOptions.Dir), NonDir for a file;
	// neither takes whatever is there and creates a file.
	NonDir bool
	// Attributes are the attribute names a created or overwritten node
	// gets ("" for the default).
	Attributes string
	// Permission is the SDDL a created node gets ("" inherits), as an
	// SMB security descriptor create context gives it.
	Permission string
	// Allocation is the space a created or overwritten file reserves
	// (the SMB allocation size create context; allocation.go).
	Allocation int64
}

// OpenResult is an open handle and its node as the open left it.
type OpenResult struct {
	Handle *Handle
	Node   *Node
	Action OpenAction
	// Path is the path opened with each name as stored, whatever case
	// the open named it in (FileNormalizedNameInformation).
	Path string
	// Handles is the IDs of the handles open on the node once the open
	// is made that hold read, write or delete access (stat opens left
	// out), its own included: an SMB server grants caching (oplocks,
	// leases) by who else has the file open.
	Handles []uint64
}

// Renamed is what RenameHandle answers: the node, and its new path with
// each name as stored.
type Renamed struct {
	*Node
	Path string
}

// ErrNotDirectory and ErrIsDirectory are what the SMB operations answer
// when a path or handle names a file but a directory was asked for, and
// the other way round. FileREST never meets them.
var (
	ErrNotDirectory = errors.New("file: not a directory")
	ErrIsDirectory  = errors.New("file: is a directory")
)

// Open opens path with the sharing rules of OpenHandle, creating or
// overwriting as the disposition says, in one transaction: the open
// either happens with its effects or not at all. Opening a ReadOnly file
// for writing, or overwriting it, answers ReadOnlyAttribute.
func (s *Service) Open(ctx context.Context, ref Ref, o OpenRequest) (*OpenResult, error) {
	return kv.Returning(ctx, s.Update, func(t *Tx) (*OpenResult, error) { return t.Open(ref, o) })
}

// Open opens path inside t's transaction.
func (t *Tx) Open(ref Ref, o OpenRequest) (*OpenResult, error) {
	acct, share, path := ref.Account, ref.Share, ref.Path
	l, err := t.locate(acct, share, path)
	if err != nil {
		return nil, err
	}
	n := l.node
	res := &OpenResult{Action: Opened, Path: l.stored}
	if n == nil {
		switch o.Disposition {
		case OpenExisting, Overwrite:
			return nil, azerr.ErrResourceNotFound
		}
		if o.Dir {
			n, err = t.CreateDirectory(ref, SMBChange{Attributes: o.Attributes, Permission: o.Permission}, nil)
		} else {
			n, err = t.CreateFile(ref, CreateFileOptions{SMB: SMBChange{Attributes: o.Attributes, Permission: o.Permission}})
		}
		if err != nil {
			return nil, err
		}
		res.Action = Created
	} else {
		switch {
		case n.DeletePending:
			return nil, azerr.ErrDeletePending
		case o.Dir && !n.Dir:
			return nil, ErrNotDirectory
		case o.NonDir && n.Dir:
			return nil, ErrIsDirectory
		case o.Disposition == CreateNew:
			return nil, azerr.ErrResourceAlreadyExists
		}
		overwrite := o.Disposition == Overwrite || o.Disposition == OverwriteOrCreate || o.Disposition == Supersede
		if n.Dir && overwrite {
			return nil, azerr.ErrInvalidInput.WithMessage("A directory cannot be overwritten.")
		}
		if !n.Dir && (overwrite || o.Access&AccessWrite != 0) && hasAttribute(n.SMB.Attributes, "ReadOnly") {
			return nil, errReadOnly
		}
		if overwrite {
			res.Action = Overwritten
			if o.Disposition == Supersede {
				res.Action = Superseded
			}
		}
	}
	ho := o.HandleOptions
	ho.Dir = n.Dir
	h, err := t.OpenHandle(ref, ho)
	if err != nil {
		return nil, err
	}
	if o.DeleteOnClose {
		n.DeletePending = true // as OpenHandle stored it
	}
	if res.Action == Overwritten || res.Action == Superseded {
		// Sharing allowed the open; now the content goes.
		if err := t.dropContent(acct, share, n.ID); err != nil {
			return nil, err
		}
		if err := t.ChargeUsage(acct, share, l.key, -n.Size); err != nil {
			return nil, err
		}
		old, oldSize := n.SMB, n.Size
		defer t.modified(acct, share, l, old, oldSize, n.Metadata, n)
		n.Size, n.Version, n.Modified = 0, t.tx.Version(), t.now
		n.SMB.LastWriteTime, n.SMB.ChangeTime = t.now, t.now
		if o.Attributes != "" {
			n.SMB.Attributes = o.Attributes
		}
		n.Copy = nil
		if err := record.Store(t.tx, l.key, n); err != nil {
			return nil, err
		}
	}
	hs, err := t.handlesOf(acct, share, n.ID)
	if err != nil {
		return nil, err
	}
	for _, other := range hs {
		if other.Access != 0 {
			res.Handles = append(res.Handles, other.ID)
		}
	}
	if res.Action != Opened {
		if err := t.reserve(l.key, n, o.Allocation); err != nil {
			return nil, err
		}
	}
	res.Handle, res.Node = h, n
	return res, nil
}

// NodeID returns the ID of the node at path, and false when nothing is
// there (nor its parent): what an SMB server breaks caching on before
// an open or a FileREST change reaches the node. A delete-pending node
// is DeletePending, with its ID: an open of it fails before any caching
// breaks, unless the open that made it pending is a disconnected
// durable one the open purges.
func (s *Service) NodeID(ctx context.Context, ref Ref) (uint64, bool, error) {
	var id uint64
	var found bool
	err := s.view(ctx, func(t *Tx) error {
		l, err := t.locate(ref.Account, ref.Share, ref.Path)
		switch {
		case errors.Is(err, azerr.ErrParentNotFound), errors.Is(err, azerr.ErrResourceNotFound):
			return nil
		case err != nil:
			return err
		}
		if l.node != nil {
			id, found = l.node.ID, true
		}
		if l.node != nil && l.node.DeletePending {
			return azerr.ErrDeletePending
		}
		return nil
	})
	return id, found, err
}

// HandleInfo returns an open handle and the node it is open on, as one
// snapshot has them; a handle that is not open is ErrHandleClosed.
func (s *Service) HandleInfo(ctx context.Context, ref HandleRef) (*Handle, *Node, error) {
	acct, share, fileID, handleID := ref.Account, ref.Share, ref.FileID, ref.HandleID
	var h *Handle
	var n *Node
	err := s.view(ctx, func(t *Tx) error {
		var l *located
		var err error
		h, l, err = t.handleNode(acct, share, fileID, handleID)
		if err == nil {
			n = l.node
		}
		return err
	})
	return h, n, err
}

// ReadHandle reads up to length bytes of the file a handle is open on,
// from offset; it returns fewer at the end of the file and none at or
// past it. Unwritten bytes read as zeros. A range another handle's
// exclusive lock covers is ErrLockConflict.
func (s *Service) ReadHandle(ctx context.Context, ref HandleRef, offset int64, length int) ([]byte, *Node, error) {
	acct, share, fileID, handleID := ref.Account, ref.Share, ref.FileID, ref.HandleID
	var out []byte
	var node *Node
	err := s.view(ctx, func(t *Tx) error {
		out, node = nil, nil
		_, l, err := t.handleNode(acct, share, fileID, handleID)
		if err != nil {
			return err
		}
		node = l.node
		if node.Dir {
			return ErrIsDirectory
		}
		if offset < 0 || length <= 0 {
			return nil
		}
		if err := t.CheckRange(HandleRef{Account: acct, Share: share, FileID: node.ID, HandleID: handleID}, RangeAccess{Offset: uint64(offset), Length: uint64(length)}); err != nil {
			return err
		}
		if offset >= node.Size {
			return nil
		}
		d := &Download{File: node, Offset: offset, Length: min(int64(length), node.Size-offset), r: t.r, acct: acct, shr: share}
		if d.extents, err = overlapping(t.r, acct, share, node.ID, d.Offset, d.Offset+d.Length); err != nil {
			return err
		}
		var buf bytes.Buffer
		buf.Grow(int(d.Length))
		if err := d.Stream(&buf); err != nil {
			return err
		}
		out = buf.Bytes()
		return nil
	})
	return out, node, err
}

// WriteHandle writes data at offset of the file a handle is open on,
// growing the file when the write ends past it. Like Put Range, it gives
// the file a new version (ETag) and last-modified time and sets its last
// write time. Sharing was settled when the handle opened, so no other
// handle is consulted; byte-range locks are (ErrLockConflict).
func (s *Service) WriteHandle(ctx context.Context, ref HandleRef, offset int64, data []byte) (*Node, error) {
	acct, share, fileID, handleID := ref.Account, ref.Share, ref.FileID, ref.HandleID
	if offset < 0 || len(data) > MaxPutRange || offset+int64(len(data)) > MaxFileSize {
		return nil, azerr.ErrOutOfRangeInput.WithMessage("A write lies within 4 TiB and writes at most 4 MiB.")
	}
	return s.updateHandle(ctx, acct, share, fileID, handleID, func(t *Tx, _ *Handle, n *Node) error {
		if n.Dir {
			return ErrIsDirectory
		}
		if len(data) == 0 {
			return nil
		}
		if err := t.CheckRange(HandleRef{Account: acct, Share: share, FileID: n.ID, HandleID: handleID}, RangeAccess{Offset: uint64(offset), Length: uint64(len(data)), Write: true}); err != nil {
			return err
		}
		end := offset + int64(len(data))
		if err := cutRange(t.tx, acct, share, n.ID, offset, end); err != nil {
			return err
		}
		if end > n.Size {
			// Any key of the file picks its usage shard.
			if err := t.ChargeUsage(acct, share, extentsPrefix(acct, share, n.ID), end-n.Size); err != nil {
				return err
			}
			n.Size = end
		}
		n.SMB.LastWriteTime = t.now
		n.Copy = nil
		id, err := t.newID()
		if err != nil {
			return err
		}
		if err := objects.Write(t.tx, dataOwner(acct, share, n.ID), id, data); err != nil {
			return err
		}
		return putCutExtent(t.tx, acct, share, n.ID, extent{Data: id, Offset: offset, Size: int64(len(data)), DataSize: int64(len(data))})
	})
}

// TruncateHandle sets the size of the file a handle is open on: shrinking
// cuts the content beyond it, growing adds bytes that read as zeros.
func (s *Service) TruncateHandle(ctx context.Context, ref HandleRef, size int64) (*Node, error) {
	acct, share, fileID, handleID := ref.Account, ref.Share, ref.FileID, ref.HandleID
	if size < 0 || size > MaxFileSize {
		return nil, azerr.ErrOutOfRangeInput.WithMessage("A file holds 0 to 4 TiB.")
	}
	return s.updateHandle(ctx, acct, share, fileID, handleID, func(t *Tx, _ *Handle, n *Node) error {
		return t.resize(acct, share, n, size)
	})
}

// resize sets the size of file n (TruncateHandle).
func (t *Tx) resize(acct, share string, n *Node, size int64) error {
	if n.Dir {
		return ErrIsDirectory
	}
	if size < n.Size {
		if err := cutRange(t.tx, acct, share, n.ID, size, n.Size); err != nil {
			return err
		}
	}
	if err := t.ChargeUsage(acct, share, extentsPrefix(acct, share, n.ID), size-n.Size); err != nil {
		return err
	}
	n.Size = size
	n.SMB.LastWriteTime = t.now
	n.Copy = nil
	return nil
}

// SetHandleProperties changes the SMB properties (attributes, times and
// permission) of the node a handle is open on.
func (s *Service) SetHandleProperties(ctx context.Context, ref HandleRef, u SMBUpdate) (*Node, error) {
	acct, share, fileID, handleID := ref.Account, ref.Share, ref.FileID, ref.HandleID
	return s.updateHandle(ctx, acct, share, fileID, handleID, func(t *Tx, h *Handle, n *Node) error {
		if err := t.resolveUpdate(acct, share, &u); err != nil {
			return err
		}
		hold := h.HoldsChangeTime
		if u.HoldChangeTime != nil {
			hold = *u.HoldChangeTime
		}
		if u.ChangeTime.At != nil {
			hold = true
		}
		if hold != h.HoldsChangeTime {
			h.HoldsChangeTime = hold
			if err := record.Store(t.tx, handleKey(acct, share, h.FileID, h.ID), h); err != nil {
				return err
			}
		}
		u.apply(&n.SMB, t.now)
		return nil
	})
}

// updateHandle applies change to the node a handle is open on and gives
// the node a new version, as updateNode does for a path; the change time
// advances too unless the handle holds it (Handle.HoldsChangeTime, which
// change may set).
func (s *Service) updateHandle(ctx context.Context, acct, share string, fileID, handleID uint64, change func(*Tx, *Handle, *Node) error) (*Node, error) {
	var out *Node
	err := s.Update(ctx, func(t *Tx) error {
		h, l, err := t.handleNode(acct, share, fileID, handleID)
		if err != nil {
			return err
		}
		n := l.node
		old, oldSize, oldMeta := n.SMB, n.Size, n.Metadata
		n.Version, n.Modified = t.tx.Version(), t.now
		if err := change(t, h, n); err != nil {
			return err
		}
		if !h.HoldsChangeTime {
			n.SMB.ChangeTime = t.now
		}
		t.modified(acct, share, l, old, oldSize, oldMeta, n)
		out = n
		return record.Store(t.tx, l.key, n)
	})
	return out, err
}

// RenameHandle moves the node a handle is open on to dest, a path within
// the share, replacing a file there when o.ReplaceIfExists is set (as Rename
// does). The handle must hold Delete access; every other handle open on
// the node shares delete, or the handle could not have opened, so no
// other handle is consulted. The node keeps its ID, and its handles
// follow it.
func (s *Service) RenameHandle(ctx context.Context, ref HandleRef, dest string, o RenameHandleOptions) (*Renamed, error) {
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Renamed, error) { return t.RenameHandle(ref, dest, o) })
}

// RenameHandle renames inside t's transaction.
func (t *Tx) RenameHandle(ref HandleRef, dest string, o RenameHandleOptions) (*Renamed, error) {
	acct, share, fileID, handleID, replace := ref.Account, ref.Share, ref.FileID, ref.HandleID, o.ReplaceIfExists
	h, src, err := t.handleNode(acct, share, fileID, handleID)
	if err != nil {
		return nil, err
	}
	if h.Access&AccessDelete == 0 {
		return nil, azerr.ErrInvalidInput.WithMessage("A rename needs a handle opened with Delete access.")
	}
	n := src.node
	if n.ID == rootID && n.Dir {
		return nil, azerr.ErrInvalidInput.WithMessage("The root directory of a share cannot be renamed.")
	}
	// As on Windows, every other handle on the node must share delete
	// (attribute-only ones too, which took no part in sharing when they
	// opened), and nothing beneath a directory may be open.
	if err := t.renameable(acct, share, src, h); err != nil {
		return nil, err
	}
	if dest == "" {
		return nil, azerr.ErrInvalidInput.WithMessage("The root directory of a share cannot be replaced.")
	}
	ancestors, err := t.ancestorIDs(acct, share, dest)
	if err != nil {
		return nil, err
	}
	for _, id := range ancestors {
		if n.Dir && id == n.ID {
			return nil, azerr.ErrInvalidInput.WithMessage("A directory cannot be moved into its own subtree.")
		}
	}
	dst, err := t.locate(acct, share, dest)
	if err != nil {
		return nil, err
	}
	name := baseName(dest)
	// The new path keeps the stored case of the directories on the way
	// and takes the case dest gives the name.
	out := &Renamed{Node: n, Path: dst.stored[:len(dst.stored)-len(baseName(dst.stored))] + name}
	if bytes.Equal(dst.key, src.key) {
		// The node itself, named in another case or the same: an NTFS
		// rename changing only case stores the new case.
		if n.Name == name {
			return out, nil
		}
		oldName := n.Name
		n.Name = name
		n.Version, n.Modified, n.SMB.ChangeTime = t.tx.Version(), t.now, t.now
		if err := t.moveHandles(acct, share, n.ID, n.ID, n.ParentID, name); err != nil {
			return nil, err
		}
		t.moved(acct, share, src, src, n, oldName)
		return out, record.Store(t.tx, src.key, n)
	}
	// A rename changes both parent directories: as on Windows, an open
	// of either that holds Delete access or does not share writing is a
	// sharing violation, unless it is an attribute-only open, which
	// takes no part in sharing.
	for _, parent := range []uint64{src.parentID, dst.parentID} {
		hs, err := t.handlesOf(acct, share, parent)
		if err != nil {
			return nil, err
		}
		for _, ph := range hs {
			if ph.Access != 0 && (ph.Access&AccessDelete != 0 || ph.ShareAccess&AccessWrite == 0) {
				return nil, errSharing
			}
		}
	}
	if dst.node != nil {
		if dst.node.DeletePending {
			return nil, azerr.ErrDeletePending
		}
		if err := t.replaceable(acct, share, Rename{Dest: dest, Dir: n.Dir, ReplaceIfExists: replace}, dst.node); err != nil {
			return nil, err
		}
	}
	if err := t.tx.Delete(src.key); err != nil {
		return nil, err
	}
	oldName := n.Name
	n.Name, n.ParentID = name, dst.parentID
	n.Version, n.Modified, n.SMB.ChangeTime = t.tx.Version(), t.now, t.now
	if err := t.moveHandles(acct, share, n.ID, n.ID, dst.parentID, name); err != nil {
		return nil, err
	}
	t.moved(acct, share, src, dst, n, oldName)
	return out, record.Store(t.tx, dst.key, n)
}

// ErrOpenBeneath is what renaming a directory answers while something
// beneath it is open.
var ErrOpenBeneath = errors.New("file: a handle is open beneath the directory")

func (t *Tx) renameable(acct, share string, src *located, own *Handle) error {
	return t.walkNode(acct, share, "", src, src.node.Dir, func(_ string, h *Handle, l *located) error {
		switch {
		case h.ID == own.ID:
			return nil
		case l.node.ID != src.node.ID:
			return ErrOpenBeneath
		case h.ShareAccess&AccessDelete == 0:
			return errSharing
		}
		return nil
	})
}

// ancestorIDs returns the IDs of the directories on the way to path's
// last element, the root's included.
func (t *Tx) ancestorIDs(acct, share, path string) ([]uint64, error) {
	ids := []uint64{rootID}
	parts := strings.Split(path, "/")
	parent := uint64(rootID)
	for _, name := range parts[:len(parts)-1] {
		n, err := loadNode(t.r, nodeKey(acct, share, parent, name))
		if err != nil {
			return nil, err
		}
		if n == nil || !n.Dir {
			return nil, azerr.ErrParentNotFound
		}
		parent = n.ID
		ids = append(ids, parent)
	}
	return ids, nil
}

// ListHandleDirectory lists up to max entries of the directory a handle
// is open on, in name order from marker on (the name the previous page's
// next marker gave). Unlike FileREST's listings it keeps delete-pending
// entries: on NTFS a file whose delete disposition is set stays in its
// directory's enumeration until its last handle closes (smbtorture
// smb2.dir.modify). next is "" at the end.
func (s *Service) ListHandleDirectory(ctx context.Context, ref HandleRef, marker string, max int) (dir *Node, entries []Entry, next string, err error) {
	acct, share, fileID, handleID := ref.Account, ref.Share, ref.FileID, ref.HandleID
	err = s.view(ctx, func(t *Tx) error {
		entries = nil
		_, l, err := t.handleNode(acct, share, fileID, handleID)
		if err != nil {
			return err
		}
		if !l.node.Dir {
			return ErrNotDirectory
		}
		dir = l.node
		next, err = pageEntries(t.r, childrenPrefix(acct, share, l.node.ID), "", marker, max, func(n *Node) {
			entries = append(entries, Entry{n.Name, n})
		})
		return err
	})
	return dir, entries, next, err
}

// IsHandleClosed reports whether err says a handle is no longer open.
func IsHandleClosed(err error) bool { return errors.Is(err, ErrHandleClosed) }

// NodeHandles returns the IDs of the handles open on a node that hold
// read, write or delete access, as OpenResult.Handles has them: what an
// SMB server that waited for caching breaks after an open grants by.
func (s *Service) NodeHandles(ctx context.Context, acct, share string, id uint64) ([]uint64, error) {
	var out []uint64
	err := s.view(ctx, func(t *Tx) error {
		out = nil
		hs, err := t.handlesOf(acct, share, id)
		for _, h := range hs {
			if h.Access != 0 {
				out = append(out, h.ID)
			}
		}
		return err
	})
	return out, err
}
