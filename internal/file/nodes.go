package file

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// located is a path resolved within a share: where its record lives and
// the record itself (nil when nothing is there).
type located struct {
	// key is where the node's record lives: its directory entry, or for
	// a hard-linked file its inode record; entry is always the entry.
	key, entry []byte
	parentID   uint64
	node       *Node
	// stored is the path with each name as stored (the case it was
	// created or last renamed with); a last element that is absent keeps
	// the case it was asked for.
	stored string
	// unopened is set when existingFor read the node's handles and found
	// none open (locate reads none and leaves it unset).
	unopened bool
}

// locate walks path ("" is the root directory) from the share's root,
// reading every ancestor so that a concurrent delete of one conflicts.
// A missing share is ErrShareNotFound, a missing or non-directory
// ancestor ErrParentNotFound; the last element itself may be absent.
func (t *Tx) locate(acct, share, path string) (*located, error) {
	if _, err := loadShare(t.r, acct, share); err != nil {
		return nil, err
	}
	if path == "" {
		n, err := loadNode(t.r, rootKey(acct, share))
		if err != nil {
			return nil, err
		}
		if n == nil {
			return nil, errors.New("file: share has no root directory")
		}
		return &located{key: rootKey(acct, share), entry: rootKey(acct, share), node: n}, nil
	}
	parts := strings.Split(path, "/")
	parent := uint64(rootID)
	for i, name := range parts {
		key := nodeKey(acct, share, parent, name)
		n, err := loadNode(t.r, key)
		if err != nil {
			return nil, err
		}
		if n != nil {
			parts[i] = n.Name
		}
		if i == len(parts)-1 {
			l := &located{key: key, entry: key, parentID: parent, node: n, stored: strings.Join(parts, "/")}
			return l, t.followLink(acct, share, l)
		}
		if n == nil || !n.Dir {
			return nil, azerr.ErrParentNotFound
		}
		if n.DeletePending {
			return nil, azerr.ErrDeletePending
		}
		parent = n.ID
	}
	panic("unreachable")
}

// existing resolves path to a directory (dir) or a file, refuses it
// while an SMB handle has it delete-pending, and checks the request's
// conditions, and a file's lease, against it. Operations on content call
// existingFor, which also checks the open handles.
func (t *Tx) existing(acct, share, path string, dir bool, kind conditions.Kind, pre Preconditions) (*located, error) {
	l, err := t.locate(acct, share, path)
	if err != nil {
		return nil, err
	}
	if l.node == nil || l.node.Dir != dir {
		return nil, azerr.ErrResourceNotFound
	}
	if l.node.DeletePending {
		return nil, azerr.ErrDeletePending
	}
	if !dir {
		if err := l.node.Lease.CheckUse(t.now, pre.LeaseID, kind != conditions.Read); err != nil {
			return nil, azerr.LeaseError(err, azerr.FileLeaseCodes)
		}
	}
	if err := check(pre, kind, l.node.state(), azerr.ErrResourceAlreadyExists); err != nil {
		return nil, err
	}
	return l, nil
}

// SMBChange is what a create asks of the SMB properties: "" and nil
// take the defaults (the file's or directory's attribute, the request's
// time, the parent's permission).
type SMBChange struct {
	Attributes    string
	CreationTime  *time.Time
	LastWriteTime *time.Time
	ChangeTime    *time.Time
	Permission    string // an SDDL; "" inherits
	// PermissionKey names a permission stored by Create Permission
	// (x-ms-file-permission-key); set at most one of the two.
	PermissionKey string
	// NFS is what the request asks of the POSIX properties, which only an
	// NFS share's nodes have (nfs.go); the times above apply to both.
	NFS *NFSChange
}

func (c SMBChange) smb(now time.Time, defaultAttrs string) SMB {
	at := func(t *time.Time) time.Time {
		if t == nil {
			return now
		}
		return t.UTC()
	}
	return SMB{Attributes: cmp.Or(c.Attributes, defaultAttrs), CreationTime: at(c.CreationTime),
		LastWriteTime: at(c.LastWriteTime), ChangeTime: at(c.ChangeTime), Permission: c.Permission}
}

// CreateDirectory creates a directory; its parent must exist.
func (s *Service) CreateDirectory(ctx context.Context, ref Ref, smb SMBChange, meta azhttp.Metadata) (*Node, error) {
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Node, error) { return t.CreateDirectory(ref, smb, meta) })
}

// CreateDirectory creates a directory inside t's transaction.
func (t *Tx) CreateDirectory(ref Ref, smb SMBChange, meta azhttp.Metadata) (*Node, error) {
	acct, share, path := ref.Account, ref.Share, ref.Path
	l, err := t.locate(acct, share, path)
	if err != nil {
		return nil, err
	}
	if l.node != nil && l.node.DeletePending {
		return nil, azerr.ErrDeletePending
	}
	// A file of the name is another type of resource: Azure answers
	// ResourceTypeMismatch, not ResourceAlreadyExists (the Create
	// Directory over an empty file that microsoft/vscode-azurestorage
	// issue 848 reports).
	if l.node != nil && !l.node.Dir {
		return nil, azerr.ErrResourceTypeMismatch
	}
	if l.node != nil {
		return nil, azerr.ErrResourceAlreadyExists
	}
	nfs, err := t.nfsCreate(acct, share, smb.NFS, smb, "Directory", defaultDirMode)
	if err != nil {
		return nil, err
	}
	if err := t.resolvePermission(acct, share, &smb); err != nil {
		return nil, err
	}
	id, err := t.newID()
	if err != nil {
		return nil, err
	}
	n := &Node{Name: baseName(path), ID: id, ParentID: l.parentID, Dir: true, Version: t.tx.Version(), Created: t.now, Modified: t.now,
		SMB: smb.smb(t.now, "Directory"), Metadata: meta, NFS: nfs}
	if nfs != nil {
		n.SMB.Attributes = ""
	}
	t.changed(acct, share, l, n, EntryAdded, 0)
	return n, record.Store(t.tx, l.key, n)
}

// GetDirectory returns a directory's properties ("" is the root).
func (s *Service) GetDirectory(ctx context.Context, ref Ref, pre Preconditions) (*Node, error) {
	acct, share, path := ref.Account, ref.Share, ref.Path
	var out *Node
	err := s.view(ctx, func(t *Tx) error {
		l, err := t.existing(acct, share, path, true, conditions.Read, pre)
		if err == nil {
			out = l.node
		}
		return err
	})
	return out, err
}

// SetDirectoryMetadata replaces a directory's metadata.
func (s *Service) SetDirectoryMetadata(ctx context.Context, ref Ref, meta azhttp.Metadata, pre Preconditions) (*Node, error) {
	return s.setMetadata(ctx, ref, true, meta, pre)
}

// setMetadata replaces the metadata of a directory (dir) or a file.
func (s *Service) setMetadata(ctx context.Context, ref Ref, dir bool, meta azhttp.Metadata, pre Preconditions) (*Node, error) {
	return s.updateNode(ctx, ref.Account, ref.Share, ref.Path, dir, pre, useWrite, func(n *Node) error {
		n.Metadata = meta
		n.MetadataCleared = len(meta) == 0
		return nil
	})
}

// DeleteDirectory deletes an empty directory; the root cannot be deleted.
func (s *Service) DeleteDirectory(ctx context.Context, ref Ref, pre Preconditions) error {
	return s.Update(ctx, func(t *Tx) error { return t.DeleteDirectory(ref, pre) })
}

// DeleteDirectory deletes an empty directory inside t's transaction.
func (t *Tx) DeleteDirectory(ref Ref, pre Preconditions) error {
	acct, share, path := ref.Account, ref.Share, ref.Path
	if path == "" {
		return azerr.ErrInvalidResourceName.WithMessage("The root directory of a share cannot be deleted.")
	}
	l, err := t.existingFor(acct, share, path, true, pre, useDelete)
	if err != nil {
		return err
	}
	// Reading the children range makes a concurrent create inside the
	// directory conflict with this delete.
	p := childrenPrefix(acct, share, l.node.ID)
	empty := true
	if err := t.r.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { empty = false; return kv.ErrStopScan }); err != nil {
		return err
	}
	if !empty {
		return azerr.ErrDirectoryNotEmpty
	}
	t.changed(acct, share, l, l.node, EntryRemoved, 0)
	return t.tx.Delete(l.key)
}

// updateNode applies change to an existing directory or file and gives it
// a new version.
func (s *Service) updateNode(ctx context.Context, acct, share, path string, dir bool, pre Preconditions, u use, change func(*Node) error) (*Node, error) {
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Node, error) { return t.updateNode(acct, share, path, dir, pre, u, change) })
}

func (t *Tx) updateNode(acct, share, path string, dir bool, pre Preconditions, u use, change func(*Node) error) (*Node, error) {
	return t.updateLocated(acct, share, path, dir, pre, u, func(l *located) error { return change(l.node) })
}

// updateLocated is updateNode for a change that needs more than the node:
// whether any handle is open on it, say.
func (t *Tx) updateLocated(acct, share, path string, dir bool, pre Preconditions, u use, change func(*located) error) (*Node, error) {
	l, err := t.existingFor(acct, share, path, dir, pre, u)
	if err != nil {
		return nil, err
	}
	n := l.node
	old, oldSize, oldMeta := n.SMB, n.Size, n.Metadata
	// The change time is set first so that a change may set its own.
	n.Version, n.Modified, n.SMB.ChangeTime = t.tx.Version(), t.now, t.now
	if err := change(l); err != nil {
		return nil, err
	}
	t.modified(acct, share, l, old, oldSize, oldMeta, n)
	return n, record.Store(t.tx, l.key, n)
}

// Entry is one directory or file of a listing.
type Entry struct {
	Name string // as stored: in the case it was created or renamed with
	*Node
}

// Listing is one page of List Directories and Files.
type Listing struct {
	Directory *Node
	Entries   []Entry
	// NextMarker is where the next page starts, "" at the end.
	NextMarker string
}

// ListDirectory lists up to o.Max entries of a directory whose names start
// with o.Prefix, in any case (as Azure's do: microsoft/AzureStorageExplorer
// issue 5168), from o.Marker on, in the order of their names' folds
// (names.go). Entries an SMB handle has delete-pending are
// left out (the page may come out shorter).
func (s *Service) ListDirectory(ctx context.Context, ref Ref, o ListDirectoryOptions) (*Listing, error) {
	acct, share, path := ref.Account, ref.Share, ref.Path
	var out *Listing
	err := s.view(ctx, func(t *Tx) error {
		l, err := t.existing(acct, share, path, true, conditions.Read, Preconditions{})
		if err != nil {
			return err
		}
		out = &Listing{Directory: l.node}
		out.NextMarker, err = pageEntries(t.r, childrenPrefix(acct, share, l.node.ID), o.Prefix, o.Marker, o.Max, func(n *Node) {
			if !n.DeletePending {
				out.Entries = append(out.Entries, Entry{n.Name, n})
			}
		})
		if err != nil {
			return err
		}
		for i, e := range out.Entries {
			if out.Entries[i].Node, err = t.resolveEntry(acct, share, e.Node); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// pageEntries pages through a directory's entries as record.Page does,
// comparing prefix and marker case-insensitively: both are folded as the
// keys are. The next marker is the next entry's stored name.
func pageEntries(r kv.Reader, base tuple.Key, prefix, marker string, max int, add func(*Node)) (next string, err error) {
	prefix, marker = nameKey(prefix), nameKey(marker)
	start := base.StrPrefix(prefix)
	end := kv.PrefixEnd(start)
	if marker > prefix {
		start = base.Str(marker)
	}
	listed := 0
	err = r.Scan(start, end, func(_, v []byte) error {
		n := new(Node)
		if err := record.Decode(v, n); err != nil {
			return err
		}
		if listed == max {
			next = n.Name
			return kv.ErrStopScan
		}
		add(n)
		listed++
		return nil
	})
	return next, err
}
