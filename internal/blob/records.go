package blob

import (
	"errors"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// Container is the stored state of a container.
type Container struct {
	Version      uint64
	Created      time.Time
	Modified     time.Time
	Metadata     azhttp.Metadata
	PublicAccess string // "", "blob" or "container"
	ACL          []azauth.SignedIdentifier
	Lease        lease.Lease
	// DefaultEncryptionScope is the scope of blobs written without one,
	// "" for a container created before scopes were kept (read as
	// $account-encryption-key); DenyEncryptionScopeOverride makes it the
	// only one allowed (encryption.go).
	DefaultEncryptionScope      string `json:",omitempty"`
	DenyEncryptionScopeOverride bool   `json:",omitempty"`
}

// ContentHeaders are the standard HTTP properties stored with a blob.
type ContentHeaders struct {
	ContentType        string
	ContentEncoding    string
	ContentLanguage    string
	ContentDisposition string
	CacheControl       string
	ContentMD5         []byte
	// Tier is the x-ms-access-tier an upload asks for: not a content
	// header, it only travels with them into the new record (tiers.go).
	Tier string `json:"-"`
}

// Blob types.
const (
	blockBlob  = "BlockBlob"
	appendBlob = "AppendBlob"
	pageBlob   = "PageBlob"
)

// Blob is the stored state of a committed blob.
type Blob struct {
	Type     string // BlockBlob
	Version  uint64
	Created  time.Time
	Modified time.Time
	Size     int64
	Extents  int // number of extents (block and append blobs)
	Headers  ContentHeaders
	Metadata azhttp.Metadata
	Lease    lease.Lease
	Copy     *CopyInfo `json:",omitempty"`
	// SequenceNumber belongs to page blobs, Sealed to append blobs.
	SequenceNumber int64 `json:",omitempty"`
	Sealed         bool  `json:",omitempty"`
	// Tier is a block blob's explicit access tier, "" while inferred (Hot);
	// Rehydrate is set while it moves out of Archive (tiers.go).
	Tier        string       `json:",omitempty"`
	TierChanged time.Time    `json:",omitzero"`
	Rehydrate   *rehydration `json:",omitempty"`
	Tags        Tags         `json:",omitempty"` // index tags, see tags.go
	// IncrementalCopy marks the destination of Incremental Copy Blob.
	IncrementalCopy bool `json:",omitempty"`
	// Accessed is when a Get Blob last counted as an access, with last
	// access time tracking on (lastaccess.go).
	Accessed time.Time `json:",omitzero"`

	// VersionID is the version the record is (versions.go); a blob keeps
	// its current one. Deleted is when a snapshot or version was soft
	// deleted and Purge when it goes for good; DeletedBase marks the
	// snapshot a soft-deleted blob became (softdelete.go).
	VersionID   string    `json:",omitempty"`
	Deleted     time.Time `json:",omitzero"`
	Purge       time.Time `json:",omitzero"`
	DeletedBase bool      `json:",omitempty"`

	// point is where the record was loaded from: "" for the blob itself,
	// else the snapshot or version point (see versionPoint).
	point string

	// KeySHA256 is the SHA-256 of the customer-provided key the blob was
	// written with (the key itself is never kept), EncryptionScope the
	// scope it was written in (encryption.go).
	KeySHA256       []byte `json:",omitempty"`
	EncryptionScope string `json:",omitempty"`
}

// extent is a run of a blob's content: a committed block, the content of a
// Put Blob, an appended block, or a written page range. It covers bytes
// [Offset, Offset+Size) of the blob with bytes [DataOff, DataOff+Size) of a
// data object. Block and append blobs store extents in pages keyed by
// index, page blobs one per key by end offset (so a range scan finds the
// extents overlapping a range).
type extent struct {
	BlockID []byte `json:",omitempty"` // nil for Put Blob content and pages
	Data    uint64
	DataOff int64 `json:",omitempty"`
	Offset  int64 `json:",omitempty"`
	Size    int64

	key    []byte // where the extent (or its page) is stored
	stored int    // the length of the value at key
}

// block is an uncommitted block. Staged is when it was written (zero in
// records written before it was kept): a blob that has only uncommitted
// blocks is dated by them for Put Block List's date conditions.
type block struct {
	Data   uint64
	Size   int64
	Staged time.Time `json:",omitzero"`
}

// loadContainer returns the container or ErrContainerNotFound.
func loadContainer(r kv.Reader, acct, name string) (*Container, error) {
	return record.RequireShared[Container](r, containerKey(acct, name), azerr.ErrContainerNotFound)
}

// requireContainer checks that a container exists without decoding its
// record: most blob operations need only that (and reading the key still
// orders them against a concurrent Delete Container).
func requireContainer(r kv.Reader, acct, name string) error {
	_, err := kv.GetShared(r, containerKey(acct, name))
	if errors.Is(err, kv.ErrNotFound) {
		return azerr.ErrContainerNotFound
	}
	return err
}

// loadBlob returns the blob, nil when absent.
func loadBlob(r kv.Reader, acct, container, name string) (*Blob, error) {
	return loadBlobAt(r, acct, container, name, "")
}

// loadBlobAt returns the blob or one of its snapshots, nil when absent.
func loadBlobAt(r kv.Reader, acct, container, name, snapshot string) (*Blob, error) {
	if id, ok := versionOf(snapshot); ok {
		return loadVersion(r, acct, container, name, id)
	}
	key := blobKey(acct, container, name)
	if snapshot != "" {
		key = snapshotKey(acct, container, name, snapshot)
	}
	var b Blob
	found, err := record.Load(r, key, &b)
	if err != nil || !found {
		return nil, err
	}
	b.point = snapshot
	return &b, nil
}

// loadExtents returns the blob's committed extents in order.
func loadExtents(r kv.Reader, acct, container, name string) ([]extent, error) {
	return loadExtentsAt(r, acct, container, name, "")
}

// loadExtentsAt returns the extents of the blob or of one of its snapshots.
func loadExtentsAt(r kv.Reader, acct, container, name, snapshot string) ([]extent, error) {
	p, err := versionContent(r, acct, container, name, snapshot)
	if err != nil {
		return nil, err
	}
	var out []extent
	err = r.Scan(p, kv.PrefixEnd(p), func(k, v []byte) error {
		out, err = decodeExtents(out, k, v)
		return err
	})
	return out, err
}
