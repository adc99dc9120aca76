package file

import (
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// Share is the stored state of a file share.
type Share struct {
	Version  uint64
	Created  time.Time
	Modified time.Time
	// Quota is the share's size limit in GiB: the sizes of its files may
	// not add up to more (see usage.go).
	Quota    int
	Metadata azhttp.Metadata
	// AccessTier is the share's tier (TransactionOptimized, Hot or Cool)
	// and TierChanged when it was last set; a change takes effect at once.
	AccessTier  string    `json:",omitempty"`
	TierChanged time.Time `json:",omitzero"`
	// ACL are the share's stored access policies (Set Share ACL), which a
	// service SAS names with si.
	ACL []azauth.SignedIdentifier `json:",omitempty"`
	// Lease locks the share against deletion (Lease Share).
	Lease lease.Lease `json:",omitzero"`
	// NFS is set on a share created with x-ms-enabled-protocols: NFS
	// (nfs.go); nil is an SMB share, as every share recorded before NFS
	// shares were served is.
	NFS *ShareNFS `json:",omitempty"`
}

// tier is the share's access tier and when it was set: a share recorded
// before tiers were kept has the default tier since its creation.
func (sh *Share) tier() (string, time.Time) {
	if sh.AccessTier == "" {
		return DefaultAccessTier, sh.Created
	}
	return sh.AccessTier, sh.TierChanged
}

// ContentHeaders are the standard HTTP properties stored with a file.
type ContentHeaders struct {
	ContentType        string
	ContentEncoding    string
	ContentLanguage    string
	ContentDisposition string
	CacheControl       string
	ContentMD5         []byte
}

// SMB are a directory's or file's SMB properties as FileREST carries them.
type SMB struct {
	// Attributes are NTFS attribute names joined by " | " the way Azure
	// reports them ("Archive", "Directory", "ReadOnly | Archive").
	Attributes    string
	CreationTime  time.Time
	LastWriteTime time.Time
	ChangeTime    time.Time
	// LastAccessTime is the last access time an SMB client set; zero
	// reads as LastWriteTime. It is kept as set and never advanced by
	// reads, as Azure Files keeps it (FileREST has no header for it).
	LastAccessTime time.Time `json:",omitzero"`
	// Permission is an SDDL the client set explicitly, "" when inherited.
	Permission string `json:",omitempty"`
}

// AccessTime is the last access time SMB reports: the one a client set,
// else the last write time.
func (s SMB) AccessTime() time.Time {
	if s.LastAccessTime.IsZero() {
		return s.LastWriteTime
	}
	return s.LastAccessTime
}

// Node is the stored state of a directory or a file.
type Node struct {
	// Name is the directory's or file's name as it was created or last
	// renamed, in that case ("" for a share's root); its record is keyed
	// by the name's fold (names.go).
	Name     string `json:",omitempty"`
	ID       uint64
	ParentID uint64
	Dir      bool
	Version  uint64
	Created  time.Time
	Modified time.Time
	SMB      SMB
	Metadata azhttp.Metadata
	// Size and Headers belong to files.
	Size    int64          `json:",omitempty"`
	Headers ContentHeaders `json:",omitzero"`
	// Allocation is the space an SMB open reserved for a file beyond its
	// size (allocation.go), in whole clusters; it is given back (0) when
	// the file's last handle closes. FileREST never sees it.
	Allocation int64 `json:",omitempty"`
	// Lease locks a file's writes and deletes (file leases are infinite).
	Lease lease.Lease `json:",omitzero"`
	// DeletePending is set by an SMB handle's delete disposition: FileREST
	// answers DeletePending and its listings leave the node out (SMB
	// enumerations keep it, as NTFS does) until its last
	// handle closes (deleting it) or the disposition is cleared.
	DeletePending bool `json:",omitempty"`
	// Copy is the last Copy File that wrote this file, until Put Range or
	// Set File Properties changes it.
	Copy *CopyInfo `json:",omitempty"`
	// MetadataCleared is set on a directory or file whose metadata Set
	// Directory/File Metadata last replaced with none: Azure then reports
	// it not server-encrypted, which one created without metadata is (the
	// azfile recording TestDirGetSetMetadataDefault; @azure/storage-file-
	// share's recording "setMetadata with cleaning up metadata").
	MetadataCleared bool `json:",omitempty"`
	// NFS are the POSIX properties of a directory or file of an NFS share
	// (nfs.go); nil on an SMB share's.
	NFS *NFSProperties `json:",omitempty"`
	// SymLink marks a symbolic link (Create Symbolic Link) and LinkText
	// is its target, stored as given and never resolved (links.go).
	SymLink  bool   `json:",omitempty"`
	LinkText string `json:",omitempty"`
	// Links counts the directory entries naming a hard-linked file; 0 is
	// one. A file with more than one lives in its inode record, and each
	// entry is a stub with Linked set (links.go).
	Links  int  `json:",omitempty"`
	Linked bool `json:",omitempty"`
}

// CopyInfo is what a file reports of the Copy File that made it. A copy
// is "pending" only while its transactions run (or after a crash cut it
// short, until Abort Copy File); then "success", "failed" or "aborted".
type CopyInfo struct {
	ID          string
	Source      string
	Status      string
	Description string `json:",omitempty"`
	Copied      int64  // bytes copied so far
	Total       int64
	Completed   time.Time `json:",omitzero"`
}

// extent covers bytes [Offset, Offset+Size) of a file with bytes
// [DataOff, DataOff+Size) of data object Data.
type extent struct {
	Data    uint64
	DataOff int64 `json:",omitempty"`
	Offset  int64
	Size    int64
	// DataSize is the whole data object's size: every piece of it lies in
	// [Offset-DataOff, Offset-DataOff+DataSize).
	DataSize int64
}

func (n *Node) state() conditions.State {
	if n == nil {
		return conditions.State{}
	}
	return conditions.State{Exists: true, ETag: azhttp.ETag(n.Version), LastModified: n.Modified}
}

// loadShare returns the share or ErrShareNotFound.
func loadShare(r kv.Reader, acct, name string) (*Share, error) {
	return record.RequireShared[Share](r, shareKey(acct, name), azerr.ErrShareNotFound)
}

// loadNode returns the node stored at key, nil when absent.
func loadNode(r kv.Reader, key []byte) (*Node, error) {
	var n Node
	found, err := record.Load(r, key, &n)
	if err != nil || !found {
		return nil, err
	}
	return &n, nil
}
