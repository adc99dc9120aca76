package file

import (
	"context"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// MaxFileSize is the largest file Azure Files holds: 4 TiB.
const MaxFileSize = 4 << 40

// CreateFile creates a file of the given size with no content written (it
// reads as zeros), replacing a file already at path and its content; a
// leased file is replaced only by a request carrying its lease ID, and
// keeps the lease.
func (s *Service) CreateFile(ctx context.Context, ref Ref, o CreateFileOptions) (*Node, error) {
	s.breakCaching(ctx, ref, true)
	acct, share, size := ref.Account, ref.Share, o.Size
	roomy, err := s.roomFor(ctx, acct, share, size)
	if err != nil {
		return nil, err
	}
	var out *Node
	err = s.Update(ctx, func(t *Tx) error {
		t.roomy = roomy
		var err error
		if out, err = t.CreateFile(ref, o); err != nil || len(o.Data) == 0 {
			return err
		}
		// The write keeps the times the create set: Azure reports a file
		// created with data as last written when it was created (the
		// azfile recording TestFileCreateData).
		out, err = t.writeRange(ref.Account, ref.Share, ref.Path, 0, int64(len(o.Data)), rangeData{b: o.Data}, true, Preconditions{LeaseID: o.Conditions.LeaseID})
		return err
	})
	return out, err
}

// CreateFile creates a file inside t's transaction.
func (t *Tx) CreateFile(ref Ref, o CreateFileOptions) (*Node, error) {
	acct, share, path, size, h, smb, meta, pre := ref.Account, ref.Share, ref.Path, o.Size, o.Headers, o.SMB, o.Metadata, o.Conditions
	return t.createFile(acct, share, path, size, h, smb, meta, pre, useReplace)
}

// createFile creates a file, replacing one already at path when open
// handles allow the replacing use u.
func (t *Tx) createFile(acct, share, path string, size int64, h ContentHeaders, smb SMBChange, meta azhttp.Metadata, pre Preconditions, replace use) (*Node, error) {
	if path == "" {
		return nil, azerr.ErrResourceAlreadyExists.WithMessage("The share's root is a directory.")
	}
	if size < 0 || size > MaxFileSize {
		return nil, azerr.ErrOutOfRangeInput.WithMessage("A file holds 0 to 4 TiB.")
	}
	l, err := t.locate(acct, share, path)
	if err != nil {
		return nil, err
	}
	if l.node != nil && l.node.Dir {
		return nil, azerr.ErrResourceAlreadyExists.WithMessage("A directory of that name already exists.")
	}
	if l.node != nil && l.node.DeletePending {
		return nil, azerr.ErrDeletePending
	}
	// The file replaced keeps its lease, and replacing it is a write the
	// lease guards; a lease ID on a new file names no lease.
	var held lease.Lease
	if l.node != nil {
		held = l.node.Lease
	}
	if err := held.CheckUse(t.now, pre.LeaseID, true); err != nil {
		return nil, azerr.LeaseError(err, azerr.FileLeaseCodes)
	}
	if err := check(pre, conditions.Create, l.node.state(), azerr.ErrResourceAlreadyExists); err != nil {
		return nil, err
	}
	nfs, err := t.nfsCreate(acct, share, smb.NFS, smb, "Regular", defaultFileMode)
	if err != nil {
		return nil, err
	}
	if err := t.resolvePermission(acct, share, &smb); err != nil {
		return nil, err
	}
	grow := size
	if l.node != nil {
		if err := t.checkUse(acct, share, l.node, replace); err != nil {
			return nil, err
		}
		grow -= l.node.Size
		if err := t.restWriteWhole(acct, share, l.node.ID); err != nil {
			return nil, err
		}
		if err := t.dropContent(acct, share, l.node.ID); err != nil {
			return nil, err
		}
	}
	if err := t.ChargeUsage(acct, share, l.key, grow); err != nil {
		return nil, err
	}
	// A file created over another keeps its ID, as an overwrite keeps
	// an NTFS file's: the handles open on it (SMB opens name the node by
	// ID) stay open on it.
	// It keeps its name too, in the case it was stored with: a create
	// naming it in another case replaces its content and leaves the name
	// alone, as Azure Files does (it is case-preserving, and the new
	// write lands on the existing file; microsoft/AzureStorageExplorer
	// issue 5211, answered by its maintainers).
	var id uint64
	name, links := baseName(path), 0
	if l.node != nil {
		// A hard-linked file replaced stays linked: its other names see
		// the new content.
		id, name, links = l.node.ID, l.node.Name, l.node.Links
	} else if id, err = t.newID(); err != nil {
		return nil, err
	}
	// A new file is marked for backup whatever attributes the create
	// names, as NTFS marks one: Azure answers "Hidden | Archive" to a
	// Create File with x-ms-file-attributes: hidden (the Python recording
	// test_create_file).
	props := smb.smb(t.now, "Archive")
	props.Attributes = addAttribute(props.Attributes, "Archive")
	n := &Node{Name: name, ID: id, ParentID: l.parentID, Version: t.tx.Version(), Created: t.now, Modified: t.now,
		SMB: props, Metadata: meta, Size: size, Headers: h, Lease: held, NFS: nfs, Links: links}
	if nfs != nil {
		n.SMB.Attributes = ""
	}
	if l.node == nil {
		t.changed(acct, share, l, n, EntryAdded, 0)
	} else {
		t.modified(acct, share, l, l.node.SMB, l.node.Size, l.node.Metadata, n)
	}
	return n, record.Store(t.tx, l.key, n)
}

// dropContent deletes every extent of a file and its data objects, but
// those a snapshot holds. Without holds, its data objects are dropped
// (deleted after the commit, a piece at a time: a store that counts
// stored bytes would read a file of gigabytes to delete it, past the
// time a transaction may take); content the transaction writes next
// under the file's ID is spared. With holds, every data object is
// referenced by a live extent or held, so the objects to delete are those
// the extents name and no snapshot holds, each deleted saying its size.
func (t *Tx) dropContent(acct, share string, id uint64) error {
	x, owner := extentsPrefix(acct, share, id), dataOwner(acct, share, id)
	if err := dropClearMarks(t.tx, acct, share, id); err != nil {
		return err
	}
	held, err := heldData(t.r, acct, share, id)
	if err != nil {
		return err
	}
	if len(held) == 0 {
		if err := t.tx.DeleteRange(x, kv.PrefixEnd(x)); err != nil {
			return err
		}
		return objects.DropObjects(t.tx, objects.Objects(owner), t.dataBound())
	}
	ext, err := overlapping(t.r, acct, share, id, 0, MaxFileSize)
	if err != nil {
		return err
	}
	for _, e := range ext {
		if held[e.Data] {
			continue
		}
		held[e.Data] = true // deleted once
		if err := objects.DeleteSized(t.tx, owner, e.Data, e.DataSize); err != nil {
			return err
		}
	}
	return t.tx.DeleteRange(x, kv.PrefixEnd(x))
}

// GetFileProperties returns a file's record.
func (s *Service) GetFileProperties(ctx context.Context, ref Ref, pre Preconditions) (*Node, error) {
	return kv.Returning(ctx, s.view, func(t *Tx) (*Node, error) { return t.GetFileProperties(ref, pre) })
}

// GetFileProperties returns a file's record as t sees it.
func (t *Tx) GetFileProperties(ref Ref, pre Preconditions) (*Node, error) {
	acct, share, path := ref.Account, ref.Share, ref.Path
	l, err := t.existing(acct, share, path, false, conditions.Read, pre)
	if err != nil {
		return nil, err
	}
	return l.node, nil
}

// SetFileMetadata replaces a file's metadata.
func (s *Service) SetFileMetadata(ctx context.Context, ref Ref, meta azhttp.Metadata, pre Preconditions) (*Node, error) {
	return s.setMetadata(ctx, ref, false, meta, pre)
}

// DeleteFile deletes a file and its content.
func (s *Service) DeleteFile(ctx context.Context, ref Ref, pre Preconditions) error {
	s.breakCaching(ctx, ref, true)
	return s.Update(ctx, func(t *Tx) error { return t.DeleteFile(ref, pre) })
}

// DeleteFile deletes a file inside t's transaction.
func (t *Tx) DeleteFile(ref Ref, pre Preconditions) error {
	acct, share, path := ref.Account, ref.Share, ref.Path
	l, err := t.existingFor(acct, share, path, false, pre, useDelete)
	if err != nil {
		return err
	}
	return t.removeFile(acct, share, l)
}

// removeFile deletes a file's record and content and gives its size back
// to the share's usage: the one way a file goes (Delete File, a rename
// replacing it, its last delete-on-close handle closing).
func (t *Tx) removeFile(acct, share string, l *located) error {
	if l.linked() {
		return t.unlink(acct, share, l)
	}
	if err := t.dropContent(acct, share, l.node.ID); err != nil {
		return err
	}
	if err := t.ChargeUsage(acct, share, l.key, -l.node.Size); err != nil {
		return err
	}
	t.changed(acct, share, l, l.node, EntryRemoved, 0)
	return t.tx.Delete(l.key)
}
