package blob

import (
	"context"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// Azure's block limits.
const (
	maxBlockIDLen        = 64
	maxCommittedBlocks   = 50_000
	maxUncommittedBlocks = 100_000
	maxBlockSize         = 4000 << 20
	maxSinglePutBlobLen  = 5000 << 20
)

// BlockInfo is a block in a block list.
type BlockInfo struct {
	ID     []byte
	Size   int64
	Data   uint64
	Staged time.Time // zero when unknown
}

// loadBlocks returns the blob's uncommitted blocks in block-ID order.
func loadBlocks(r kv.Reader, acct, container, name string) ([]BlockInfo, error) {
	var out []BlockInfo
	err := record.Each(r, blocksPrefix(acct, container, name), func(rd *tuple.Reader, b *block) error {
		id, err := rd.Bytes()
		out = append(out, BlockInfo{ID: id, Size: b.Size, Data: b.Data, Staged: b.Staged})
		return err
	})
	return out, err
}

// PutBlock stores c's content as an uncommitted block of the blob under
// id, verifying c.MD5 when given. Only the lease is checked: Put Block
// takes no conditional headers.
func (s *Service) PutBlock(ctx context.Context, ref Ref, id []byte, c Content, leaseID string) (*Written, error) {
	acct, container, name := ref.Account, ref.Container, ref.Name
	near, err := s.nearBlockLimit(ctx, acct, container, name)
	if err != nil {
		return nil, err
	}
	w, err := s.upload(ctx, acct, container, name, c, func(t *Tx, p *payload) error {
		tx := t.tx
		first, err := firstBlockID(tx, p.Owner.acct, p.Owner.container, p.Owner.name)
		if err != nil {
			return err
		}
		current, err := t.blobForWriteKnowing(p.Owner.acct, p.Owner.container, p.Owner.name, conditions.Write, Preconditions{LeaseID: leaseID}, presenceOf(first != nil))
		if err != nil {
			return err
		}
		if current != nil && current.Type != blockBlob {
			return azerr.ErrInvalidBlobType
		}
		if first != nil && len(first) != len(id) {
			return errBlockIDLength
		}
		var replaced block
		found, err := record.Load(tx, blockKey(p.Owner.acct, p.Owner.container, p.Owner.name, id), &replaced)
		if err != nil {
			return err
		}
		if found {
			// A block holds its whole data object: deleting it saying its
			// size reads none of it, however large.
			if err := objects.DeleteSized(tx, p.Owner, replaced.Data, replaced.Size); err != nil {
				return err
			}
		} else if err := countBlock(tx, p.Owner.acct, p.Owner.container, p.Owner.name, id, near); err != nil {
			return err
		}
		if err := p.Place(tx, tx.Version()); err != nil {
			return err
		}
		return record.Store(tx, blockKey(p.Owner.acct, p.Owner.container, p.Owner.name, id), block{Data: p.ID(), Size: p.Size, Staged: t.now})
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// errBlockIDLength refuses a block whose ID is not as long as the blob's
// first uncommitted block's: Azure's rule is that the uncommitted block
// IDs of a blob have one length. The committed blocks do not count: Azure
// stages 3-byte IDs on a blob committed with a 4-byte one
// (go-azblob-TestBlobPutBlockListModifyBlob).
var errBlockIDLength = azerr.ErrInvalidBlobOrBlock.WithMessage("The specified blob or block content is invalid. All block IDs of a blob must have the same length.")

// BlockList names which list a Put Block List entry is taken from.
type BlockList int

const (
	Committed BlockList = iota
	Uncommitted
	Latest
)

// BlockRef is one Put Block List entry.
type BlockRef struct {
	ID   []byte
	From BlockList
}

// PutBlockList commits the blob as the concatenation of the referenced
// blocks; uncommitted blocks not referenced are discarded.
func (s *Service) PutBlockList(ctx context.Context, ref Ref, refs []BlockRef, o PutBlobOptions) (*Blob, error) {
	acct, container, name, h, meta, tags, pre := ref.Account, ref.Container, ref.Name, o.Headers, o.Metadata, o.Tags, o.Conditions
	if len(refs) > maxCommittedBlocks {
		return nil, azerr.ErrBlockListTooLong
	}
	var out *Blob
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		t := s.In(tx)
		blocks, err := loadBlocks(tx, acct, container, name)
		if err != nil {
			return err
		}
		old, err := t.blobForWriteKnowing(acct, container, name, conditions.Create, pre, presenceOf(len(blocks) > 0))
		if err != nil {
			return err
		}
		if old != nil && old.Type != blockBlob {
			return azerr.ErrInvalidBlobType
		}
		committed := map[string]extent{}
		if old != nil {
			exts, err := loadExtents(tx, acct, container, name)
			if err != nil {
				return err
			}
			for _, e := range exts {
				if e.BlockID != nil {
					committed[string(e.BlockID)] = e
				}
			}
		}
		uncommitted := make(map[string]BlockInfo, len(blocks))
		var staged time.Time
		for _, b := range blocks {
			uncommitted[string(b.ID)] = b
			if b.Staged.After(staged) {
				staged = b.Staged
			}
		}
		if old == nil && !staged.IsZero() {
			// A blob with only uncommitted blocks is dated by the last
			// of them: Azure answers 412 to If-Modified-Since after it
			// (go-azblob-TestBlobPutBlockListIfModifiedSinceFalse).
			dates := conditions.Conditions{IfModifiedSince: pre.IfModifiedSince, IfUnmodifiedSince: pre.IfUnmodifiedSince}
			if err := check(dates, conditions.Write, conditions.State{Exists: true, LastModified: staged}, azerr.ErrBlobAlreadyExists); err != nil {
				return err
			}
		}
		extents := make([]extent, 0, len(refs))
		var size int64
		for _, ref := range refs {
			e, ok := resolveBlock(ref, committed, uncommitted)
			if !ok {
				return azerr.ErrInvalidBlockList
			}
			extents = append(extents, e)
			size += e.Size
		}
		out = t.newRecord(old, size, h, meta)
		out.Tags = tags
		if err := t.keepPrevious(acct, container, name, old, out); err != nil {
			return err
		}
		if err := pre.Encryption.apply(t, acct, container, out); err != nil {
			return err
		}
		return commitWithBlocks(tx, acct, container, name, old, out, extents, blocks)
	})
	return out, err
}

func resolveBlock(ref BlockRef, committed map[string]extent, uncommitted map[string]BlockInfo) (extent, bool) {
	if ref.From != Committed {
		if b, ok := uncommitted[string(ref.ID)]; ok {
			return extent{BlockID: b.ID, Data: b.Data, Size: b.Size}, true
		}
		if ref.From == Uncommitted {
			return extent{}, false
		}
	}
	e, ok := committed[string(ref.ID)]
	return e, ok
}

// BlockListing is Get Block List's answer.
type BlockListing struct {
	Record      *Blob // nil when the blob has only uncommitted blocks
	Committed   []BlockInfo
	Uncommitted []BlockInfo
}

// GetBlockList lists the committed and/or uncommitted blocks of a blob.
func (s *Service) GetBlockList(ctx context.Context, ref Ref, o GetBlockListOptions) (*BlockListing, error) {
	acct, container, name, snapshot, committed, uncommitted := ref.Account, ref.Container, ref.Name, ref.Snapshot, o.Committed, o.Uncommitted
	out := &BlockListing{}
	err := s.store.View(ctx, func(r kv.Reader) error {
		if err := requireContainer(r, acct, container); err != nil {
			return err
		}
		var err error
		if out.Record, err = loadBlobAt(r, acct, container, name, snapshot); err != nil {
			return err
		}
		var blocks []BlockInfo
		if snapshot == "" {
			if blocks, err = loadBlocks(r, acct, container, name); err != nil {
				return err
			}
		}
		if out.Record == nil && len(blocks) == 0 {
			return azerr.ErrBlobNotFound
		}
		if out.Record != nil && out.Record.Type != blockBlob {
			return azerr.ErrInvalidBlobType
		}
		var held lease.Lease
		if out.Record != nil {
			held = out.Record.Lease
		} else if held, err = placeholderLease(r, acct, container, name, someBlocks); err != nil {
			return err
		}
		if err := held.CheckUse(s.clock(), o.LeaseID, false); err != nil {
			return azerr.LeaseError(err, azerr.BlobLeaseCodes)
		}
		if uncommitted {
			out.Uncommitted = blocks
		}
		if committed && out.Record != nil {
			exts, err := loadExtentsAt(r, acct, container, name, snapshot)
			if err != nil {
				return err
			}
			for _, e := range exts {
				if e.BlockID != nil {
					out.Committed = append(out.Committed, BlockInfo{ID: e.BlockID, Size: e.Size, Data: e.Data})
				}
			}
		}
		return nil
	})
	return out, err
}
