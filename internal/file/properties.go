package file

import (
	"context"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// TimeChange is what a Set Properties, Rename or Copy asks of one SMB
// time: the zero value keeps the current time ("preserve"), Now takes
// the request's time, otherwise At.
type TimeChange struct {
	Now bool
	At  *time.Time
}

func (c TimeChange) apply(cur, now time.Time) time.Time {
	switch {
	case c.At != nil:
		return c.At.UTC()
	case c.Now:
		return now
	}
	return cur
}

// SMBUpdate is what a change of an existing directory's or file's SMB
// properties asks: "" and zero values keep what is there.
type SMBUpdate struct {
	Attributes    string // names joined by " | ", or "" to keep
	CreationTime  TimeChange
	LastWriteTime TimeChange
	ChangeTime    TimeChange
	// LastAccessTime is set over SMB only (FileREST has no header).
	LastAccessTime TimeChange
	// Permission is nil to keep the permission, else the SDDL to set
	// ("" inherits).
	Permission *string
	// PermissionKey names a stored permission to set instead.
	PermissionKey string
	// NFS is what the request asks of an NFS share's node's POSIX
	// properties (nfs.go); nil keeps them.
	NFS *NFSChange
	// HoldChangeTime, through a handle (SetHandleProperties), sets whether
	// the handle's later changes leave the change time (Handle.
	// HoldsChangeTime); nil keeps the handle's setting. A ChangeTime
	// given holds it too.
	HoldChangeTime *bool
}

// resolvePermission turns u's permission key into the SDDL it names, and
// stores an SDDL set inline under its key, as a create does.
func (t *Tx) resolveUpdate(acct, share string, u *SMBUpdate) error {
	if u.Permission == nil && u.PermissionKey == "" {
		return nil
	}
	c := SMBChange{PermissionKey: u.PermissionKey}
	if u.Permission != nil {
		c.Permission = *u.Permission
	}
	if err := t.resolvePermission(acct, share, &c); err != nil {
		return err
	}
	u.Permission, u.PermissionKey = &c.Permission, ""
	return nil
}

func (u SMBUpdate) apply(s *SMB, now time.Time) {
	if u.Attributes != "" {
		s.Attributes = u.Attributes
	}
	s.CreationTime = u.CreationTime.apply(s.CreationTime, now)
	s.LastWriteTime = u.LastWriteTime.apply(s.LastWriteTime, now)
	s.ChangeTime = u.ChangeTime.apply(s.ChangeTime, now)
	if u.LastAccessTime != (TimeChange{}) {
		s.LastAccessTime = u.LastAccessTime.apply(s.AccessTime(), now)
	}
	if u.Permission != nil {
		s.Permission = *u.Permission
	}
}

// FileProperties is one Set File Properties: the content headers replace
// the file's (absent ones are cleared); Size, when not nil, resizes it.
type FileProperties struct {
	// Headers replace the file's content headers; nil keeps them.
	Headers *ContentHeaders
	Size    *int64
	SMB     SMBUpdate
}

// SetFileProperties sets a file's content headers, SMB properties and
// size. Shrinking cuts the content beyond the new size and frees the data
// objects nothing references any more; growing adds bytes that read as
// zeros and cost nothing. It ends what a finished copy reported.
func (s *Service) SetFileProperties(ctx context.Context, ref Ref, p FileProperties, pre Preconditions) (*Node, error) {
	s.breakCaching(ctx, ref, true)
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Node, error) { return t.SetFileProperties(ref, p, pre) })
}

// SetFileProperties sets a file's properties inside t's transaction.
func (t *Tx) SetFileProperties(ref Ref, p FileProperties, pre Preconditions) (*Node, error) {
	acct, share, path := ref.Account, ref.Share, ref.Path
	if p.Size != nil && (*p.Size < 0 || *p.Size > MaxFileSize) {
		return nil, azerr.ErrOutOfRangeInput.WithMessage("A file holds 0 to 4 TiB.")
	}
	if err := t.resolveUpdate(acct, share, &p.SMB); err != nil {
		return nil, err
	}
	// Attributes change on a ReadOnly file (that is how it is cleared);
	// its size does not.
	u := useAttributes
	if p.Size != nil {
		u = useWrite
	}
	return t.updateNode(acct, share, path, false, pre, u, func(n *Node) error {
		if err := nfsUpdate(n, p.SMB.NFS, &p.SMB); err != nil {
			return err
		}
		if p.Size != nil {
			// A resize writes the bytes between the two sizes.
			if err := t.restWrite(acct, share, n.ID, min(*p.Size, n.Size), max(*p.Size, n.Size)); err != nil {
				return err
			}
		}
		if p.Size != nil && *p.Size < n.Size {
			if err := cutRange(t.tx, acct, share, n.ID, *p.Size, n.Size); err != nil {
				return err
			}
		}
		if p.Size != nil {
			// Any key of the file picks its usage shard.
			if err := t.ChargeUsage(acct, share, extentsPrefix(acct, share, n.ID), *p.Size-n.Size); err != nil {
				return err
			}
			n.Size = *p.Size
		}
		if p.Headers != nil {
			n.Headers = *p.Headers
		}
		p.SMB.apply(&n.SMB, t.now)
		n.Copy = nil
		return nil
	})
}

// SetDirectoryProperties sets a directory's SMB properties ("" is the
// root).
func (s *Service) SetDirectoryProperties(ctx context.Context, ref Ref, smb SMBUpdate, pre Preconditions) (*Node, error) {
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Node, error) { return t.SetDirectoryProperties(ref, smb, pre) })
}

// SetDirectoryProperties sets a directory's SMB properties inside t's
// transaction.
func (t *Tx) SetDirectoryProperties(ref Ref, smb SMBUpdate, pre Preconditions) (*Node, error) {
	acct, share, path := ref.Account, ref.Share, ref.Path
	if err := t.resolveUpdate(acct, share, &smb); err != nil {
		return nil, err
	}
	return t.updateNode(acct, share, path, true, pre, useAttributes, func(n *Node) error {
		if err := nfsUpdate(n, smb.NFS, &smb); err != nil {
			return err
		}
		smb.apply(&n.SMB, t.now)
		return nil
	})
}
