package file

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// Symbolic and hard links, which only NFS shares hold.
//
// A symbolic link is a file record of its own (SymLink set, no content)
// whose LinkText is stored as given and never resolved: Get Symbolic
// Link returns it, URL-encoded as Azure returns it (TestGetSymbolicLinkNFS).
//
// A hard link is a second directory entry for one file: the file keeps
// one ID, one content and one set of properties whichever name reaches
// it. A file with one entry lives in that entry, as every file did before
// hard links; its first Create Hard Link moves its record to an inode
// record ("Fa acct i share id", keys.go) and leaves a stub (Linked, with
// only the entry's name, parent and the file's ID) in each entry. locate
// follows a stub to the inode, so every operation on a path reads and
// writes the one record; Links counts the stubs. Deleting one entry
// deletes its stub; deleting the last deletes the inode and the content.
// A rename moves a stub. CheckInvariants verifies that each inode's Links
// is the number of stubs naming it.

// followLink resolves l when its entry is a hard link's stub: l.key and
// l.node become the inode's, with the entry's name and parent.
func (t *Tx) followLink(acct, share string, l *located) error {
	if l.node == nil || !l.node.Linked {
		return nil
	}
	key := inodeKey(acct, share, l.node.ID)
	n, err := loadNode(t.r, key)
	if err != nil {
		return err
	}
	if n == nil {
		return errors.New("file: a hard link names no inode record")
	}
	n.Name, n.ParentID = l.node.Name, l.node.ParentID
	l.key, l.node = key, n
	return nil
}

// linked reports whether l reached its node through a hard link's stub.
func (l *located) linked() bool { return !bytes.Equal(l.key, l.entry) }

// resolveEntry returns the node a listed directory entry names: the entry
// itself, or a stub's inode with the stub's name and parent.
func (t *Tx) resolveEntry(acct, share string, n *Node) (*Node, error) {
	l := &located{node: n}
	if err := t.followLink(acct, share, l); err != nil {
		return nil, err
	}
	return l.node, nil
}

// linkStub is the directory entry of a hard-linked file n.
func linkStub(n *Node) *Node {
	return &Node{Name: n.Name, ID: n.ID, ParentID: n.ParentID, Linked: true}
}

// unlink deletes one entry of a hard-linked file: the stub, and when it
// was the last one the file itself.
func (t *Tx) unlink(acct, share string, l *located) error {
	if err := t.tx.Delete(l.entry); err != nil {
		return err
	}
	n := l.node
	n.Links--
	if n.Links > 0 {
		n.Version, n.SMB.ChangeTime = t.tx.Version(), t.now
		return record.Store(t.tx, l.key, n)
	}
	if err := t.dropContent(acct, share, n.ID); err != nil {
		return err
	}
	if err := t.ChargeUsage(acct, share, l.key, -n.Size); err != nil {
		return err
	}
	return t.tx.Delete(l.key)
}

// SymbolicLinkOptions describe a new symbolic link.
type SymbolicLinkOptions struct {
	// LinkText is the link's target, stored as given.
	LinkText string
	// NFS may name the owner and group (a link's mode is always 0777).
	NFS           *NFSChange
	Metadata      azhttp.Metadata
	CreationTime  *time.Time
	LastWriteTime *time.Time
}

// errNotNFS is the answer to a link operation on an SMB share: the
// header that only NFS shares take is refused, as x-ms-mode is on an SMB
// share (TestFileCreateFileNFS).
func errNotNFS(header, value string) error {
	return azerr.InvalidHeaderValue(header, value).WithMessage("Links are served on NFS shares only.")
}

// CreateSymbolicLink creates a symbolic link at ref's path.
func (s *Service) CreateSymbolicLink(ctx context.Context, ref Ref, o SymbolicLinkOptions) (*Node, error) {
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Node, error) { return t.CreateSymbolicLink(ref, o) })
}

// CreateSymbolicLink creates a symbolic link inside t's transaction.
func (t *Tx) CreateSymbolicLink(ref Ref, o SymbolicLinkOptions) (*Node, error) {
	acct, share, path := ref.Account, ref.Share, ref.Path
	sh, err := loadShare(t.r, acct, share)
	if err != nil {
		return nil, err
	}
	if sh.NFS == nil {
		return nil, errNotNFS("x-ms-link-text", o.LinkText)
	}
	if o.LinkText == "" {
		return nil, azerr.MissingRequiredHeader("x-ms-link-text")
	}
	if o.NFS != nil && o.NFS.Mode != "" {
		return nil, azerr.InvalidHeaderValue("x-ms-mode", o.NFS.Mode).WithMessage("A symbolic link's mode is 0777.")
	}
	if path == "" {
		return nil, azerr.ErrResourceAlreadyExists.WithMessage("The share's root is a directory.")
	}
	l, err := t.locate(acct, share, path)
	if err != nil {
		return nil, err
	}
	if l.node != nil {
		return nil, azerr.ErrResourceAlreadyExists
	}
	id, err := t.newID()
	if err != nil {
		return nil, err
	}
	times := SMBChange{CreationTime: o.CreationTime, LastWriteTime: o.LastWriteTime}.smb(t.now, "")
	n := &Node{Name: baseName(path), ID: id, ParentID: l.parentID, Version: t.tx.Version(), Created: t.now, Modified: t.now,
		SMB: times, Metadata: o.Metadata, NFS: o.NFS.properties(defaultSymLinkMode), SymLink: true, LinkText: o.LinkText}
	return n, record.Store(t.tx, l.key, n)
}

// GetSymbolicLink returns the symbolic link at ref's path (Share may name
// a snapshot). Anything else there is ErrResourceNotFound.
func (s *Service) GetSymbolicLink(ctx context.Context, ref Ref, pre Preconditions) (*Node, error) {
	return kv.Returning(ctx, s.view, func(t *Tx) (*Node, error) {
		sh, err := loadShare(t.r, ref.Account, ref.Share)
		if err != nil {
			return nil, err
		}
		if sh.NFS == nil {
			return nil, azerr.InvalidQueryParameterValue("restype", "symboliclink", "Links are served on NFS shares only.")
		}
		l, err := t.existing(ref.Account, ref.Share, ref.Path, false, conditions.Read, pre)
		if err != nil {
			return nil, err
		}
		if !l.node.SymLink {
			return nil, azerr.ErrResourceNotFound.WithMessage("The file is not a symbolic link.")
		}
		return l.node, nil
	})
}

// HardLinkOptions name the existing file a new hard link names and the
// lease that file may hold.
type HardLinkOptions struct {
	// Target is the file's path within the share.
	Target string
	// LeaseID must be the target's lease when it has one.
	LeaseID string
}

// CreateHardLink makes ref's path a second name of an existing file of
// the same share. The file keeps its ID, content and properties, counts
// one more link and takes a new ETag and change time.
func (s *Service) CreateHardLink(ctx context.Context, ref Ref, o HardLinkOptions) (*Node, error) {
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Node, error) { return t.CreateHardLink(ref, o) })
}

// CreateHardLink creates a hard link inside t's transaction.
func (t *Tx) CreateHardLink(ref Ref, o HardLinkOptions) (*Node, error) {
	acct, share, path := ref.Account, ref.Share, ref.Path
	sh, err := loadShare(t.r, acct, share)
	if err != nil {
		return nil, err
	}
	if sh.NFS == nil {
		return nil, errNotNFS("x-ms-file-target-file", o.Target)
	}
	if o.Target == "" {
		return nil, azerr.MissingRequiredHeader("x-ms-file-target-file")
	}
	if path == "" {
		return nil, azerr.ErrResourceAlreadyExists.WithMessage("The share's root is a directory.")
	}
	// A lease ID names the target's lease; on a target without one Azure
	// goes ahead (TestCreateHardLinkNFSWithLease sends a share's lease ID).
	target, err := t.existing(acct, share, o.Target, false, conditions.Read, Preconditions{})
	if err != nil {
		return nil, err
	}
	if target.node.Lease.Active(t.now) {
		if err := target.node.Lease.CheckUse(t.now, o.LeaseID, true); err != nil {
			return nil, azerr.LeaseError(err, azerr.FileLeaseCodes)
		}
	}
	dst, err := t.locate(acct, share, path)
	if err != nil {
		return nil, err
	}
	if dst.node != nil {
		return nil, azerr.ErrResourceAlreadyExists
	}
	n := target.node
	if !target.linked() {
		// The file's first second name: its record moves to the inode
		// record and its entry becomes a stub.
		n.Links = 1
		target.key = inodeKey(acct, share, n.ID)
		if err := record.Store(t.tx, target.entry, linkStub(n)); err != nil {
			return nil, err
		}
	}
	n.Links++
	n.Version, n.Modified, n.SMB.ChangeTime = t.tx.Version(), t.now, t.now
	if err := record.Store(t.tx, target.key, n); err != nil {
		return nil, err
	}
	n.Name, n.ParentID = baseName(path), dst.parentID
	return n, record.Store(t.tx, dst.entry, linkStub(n))
}

// verifyLinks checks that every hard link's stub names an inode record
// and that each inode's link count is the number of its stubs, at least
// one.
func (c *fileChecker) verifyLinks() {
	for ref, links := range c.inodes {
		if links < 1 || c.stubs[ref] != links {
			c.Fail("%s/%s: file %d counts %d links but %d entries name it", ref.acct, ref.share, ref.id, links, c.stubs[ref])
		}
	}
	for ref, n := range c.stubs {
		if _, ok := c.inodes[ref]; !ok {
			c.Fail("%s/%s: %d hard links name file %d, which has no inode record", ref.acct, ref.share, n, ref.id)
		}
	}
}
