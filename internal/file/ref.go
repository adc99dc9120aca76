package file

import "github.com/cerulean-db/cerulean/internal/azhttp"

// Ref names a file or directory. Share is the share a read addresses:
// the live share, or one of its snapshots as SnapshotNamespace names it.
type Ref struct {
	Account, Share, Path string
}

// ShareRef names a share (or a snapshot of it, for reads).
type ShareRef struct {
	Account, Share string
}

// ShareRef names the share the file is in.
func (r Ref) ShareRef() ShareRef { return ShareRef{Account: r.Account, Share: r.Share} }

// HandleRef names an open handle: the file it is open on and its id.
type HandleRef struct {
	Account, Share   string
	FileID, HandleID uint64
}

// CreateFileOptions describe a new (or replaced) file.
type CreateFileOptions struct {
	Size       int64
	Headers    ContentHeaders
	SMB        SMBChange
	Metadata   azhttp.Metadata
	Conditions Preconditions
	// Data, at most MaxPutRange bytes and at most Size, is written from
	// the file's start by the same transaction (Create File with a body,
	// from version 2026-02-06).
	Data []byte
}

// GetFileOptions are the range read (nil for the whole file) and its
// conditions.
type GetFileOptions struct {
	Range      *Range
	Conditions Preconditions
}

// ListDirectoryOptions page a directory listing.
type ListDirectoryOptions struct {
	Prefix, Marker string
	Max            int
}

// ListHandlesOptions page a handle listing; Recursive takes in the
// handles below a directory too.
type ListHandlesOptions struct {
	Recursive bool
	Marker    string
	Max       int
}

// ForceCloseOptions say which handles Force Close Handles closes: the one
// HandleID names, or every one (nil), of the path or, Recursive, below it.
type ForceCloseOptions struct {
	HandleID  *uint64
	Recursive bool
	Marker    string
}

// ListRangesDiffOptions are List Ranges' diff against the earlier
// snapshot PrevSnapshot; FollowRenames compares a file renamed since.
type ListRangesDiffOptions struct {
	PrevSnapshot  string
	FollowRenames bool
	Range         *Range
	Conditions    Preconditions
}

// SharePropertiesOptions are Set Share Properties' quota (0 keeps it),
// access tier ("" keeps it) and lease.
type SharePropertiesOptions struct {
	Quota   int
	Tier    string
	LeaseID string
	// NFS changes an NFS share's settings (nfs.go).
	NFS ShareNFSOptions
}

// DeleteOnCloseOptions set or clear a handle's delete-on-close.
type DeleteOnCloseOptions struct {
	DeleteOnClose bool
}

// RenameHandleOptions: ReplaceIfExists lets the rename replace a file at
// the destination.
type RenameHandleOptions struct {
	ReplaceIfExists bool
}

// RangeAccess is a read (Write false) or write of [Offset, Offset+Length)
// that CheckRange checks against the byte-range locks.
type RangeAccess struct {
	Offset, Length uint64
	Write          bool
}
