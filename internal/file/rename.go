package file

import (
	"context"
	"net/http"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// Rename is one Rename File or Rename Directory within a share.
type Rename struct {
	Source, Dest string // paths within the share
	Dir          bool   // a directory is renamed
	// ReplaceIfExists lets the rename replace a file at Dest;
	// IgnoreReadOnly lets it replace one with the ReadOnly attribute.
	ReplaceIfExists bool
	IgnoreReadOnly  bool
	SourceLeaseID   string
	DestLeaseID     string
	SMB             SMBUpdate
	Metadata        azhttp.Metadata // nil keeps the source's
	ContentType     *string         // nil keeps the source's (files only)
}

// Rename moves a directory or file to another path of the same share. A
// record moves and nothing else: a file keeps its ID and so its content
// and lease, a directory keeps its ID and so its whole subtree.
func (s *Service) Rename(ctx context.Context, ref ShareRef, r Rename) (*Node, error) {
	s.breakCaching(ctx, Ref{Account: ref.Account, Share: ref.Share, Path: r.Source}, true)
	if r.ReplaceIfExists {
		s.breakCaching(ctx, Ref{Account: ref.Account, Share: ref.Share, Path: r.Dest}, true)
	}
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Node, error) { return t.Rename(ref, r) })
}

// Rename moves a directory or file inside t's transaction.
func (t *Tx) Rename(ref ShareRef, r Rename) (*Node, error) {
	acct, share := ref.Account, ref.Share
	if r.Source == "" || r.Dest == "" {
		return nil, azerr.ErrInvalidInput.WithMessage("The root directory of a share cannot be renamed or replaced.")
	}
	if r.Dir && strings.HasPrefix(pathKey(r.Dest), pathKey(r.Source)+"/") {
		return nil, azerr.ErrInvalidInput.WithMessage("A directory cannot be moved into its own subtree.")
	}
	src, err := t.existingFor(acct, share, r.Source, r.Dir, Preconditions{LeaseID: r.SourceLeaseID}, useRename)
	if err != nil {
		return nil, err
	}
	dst, err := t.locate(acct, share, r.Dest)
	if err != nil {
		return nil, err
	}
	// A destination naming the source itself, in any case, renames it in
	// place: the stored name takes the destination's case.
	if dst.node != nil && dst.node.ID == src.node.ID && src.linked() && string(dst.entry) != string(src.entry) {
		// Two names of one hard-linked file: renaming one over the other
		// leaves both, as rename(2) does.
		return src.node, nil
	}
	if dst.node != nil && dst.node.ID != src.node.ID {
		if err := t.replaceable(acct, share, r, dst.node); err != nil {
			return nil, err
		}
	}
	if err := t.resolveUpdate(acct, share, &r.SMB); err != nil {
		return nil, err
	}
	n := src.node
	if err := t.tx.Delete(src.entry); err != nil {
		return nil, err
	}
	oldName := n.Name
	n.Name, n.ParentID = baseName(r.Dest), dst.parentID
	n.Version, n.Modified, n.SMB.ChangeTime = t.tx.Version(), t.now, t.now
	r.SMB.apply(&n.SMB, t.now)
	if r.Metadata != nil {
		n.Metadata = r.Metadata
	}
	if r.ContentType != nil && !n.Dir {
		n.Headers.ContentType = *r.ContentType
	}
	// Handles name their node's parent and name: they follow it.
	if err := t.moveHandles(acct, share, n.ID, n.ID, dst.parentID, n.Name); err != nil {
		return nil, err
	}
	t.moved(acct, share, src, dst, n, oldName)
	if src.linked() {
		// A hard link's entry moves; the file stays in its inode record.
		if err := record.Store(t.tx, dst.entry, linkStub(n)); err != nil {
			return nil, err
		}
		return n, record.Store(t.tx, src.key, n)
	}
	return n, record.Store(t.tx, dst.entry, n)
}

// errRenameReadOnly is a rename's answer for a read-only file at its
// destination: 409, where a write to a read-only file answers 412 (the
// azfile recording TestDirectoryRenameIgnoreReadOnly).
var errRenameReadOnly = &azerr.Error{Status: http.StatusConflict, Code: azerr.ErrReadOnlyAttribute.Code, Message: azerr.ErrReadOnlyAttribute.Message}

// replaceable checks that a rename may replace what is at its
// destination, and deletes it when it may: only a file (by a file or a
// directory, as Azure does: the azfile recordings
// TestDirectoryRenameIgnoreReadOnly and TestDirectoryRenameDestLease),
// only when asked to, a read-only one only when told to ignore that, a
// leased one only with its lease ID.
func (t *Tx) replaceable(acct, share string, r Rename, old *Node) error {
	switch {
	case !r.ReplaceIfExists:
		return azerr.ErrResourceAlreadyExists
	case old.Dir && !r.Dir:
		return azerr.ErrResourceTypeMismatch
	case old.Dir:
		return azerr.ErrResourceAlreadyExists.WithMessage("A rename replaces only a file at its destination, not a directory.")
	case hasAttribute(old.SMB.Attributes, "ReadOnly") && !r.IgnoreReadOnly:
		return errRenameReadOnly
	}
	l, err := t.existingFor(acct, share, r.Dest, false, Preconditions{LeaseID: r.DestLeaseID}, useDelete)
	if err != nil {
		return err
	}
	return t.removeFile(acct, share, l)
}
