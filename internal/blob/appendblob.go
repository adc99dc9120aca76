package blob

import (
	"context"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// maxAppendBlock is the largest Append Block body (current service versions).
const maxAppendBlock = 100 << 20

// CreateEmpty creates (or replaces) an append blob, or a page blob of the
// given size, with no content.
func (s *Service) CreateEmpty(ctx context.Context, acct, container, name, typ string, size, seq int64, h ContentHeaders, meta azhttp.Metadata, pre Preconditions) (*Blob, error) {
	var out *Blob
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		old, err := s.blobForWrite(tx, acct, container, name, conditions.Create, pre)
		if err != nil {
			return err
		}
		out = s.newRecord(tx, old, size, h, meta)
		out.Type, out.SequenceNumber = typ, seq
		return commitContent(tx, acct, container, name, old, out, nil)
	})
	return out, err
}

// AppendConditions are Append Block's own preconditions.
type AppendConditions struct {
	MaxSize   *int64 // x-ms-blob-condition-maxsize
	AppendPos *int64 // x-ms-blob-condition-appendpos
}

// AppendBlock adds the payload as a new block at the end of an append
// blob and returns the offset it was written at.
func (s *Service) AppendBlock(ctx context.Context, p *payload, ac AppendConditions, pre Preconditions) (*Blob, int64, error) {
	var out *Blob
	var offset int64
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		b, err := s.existingBlob(tx, p.acct, p.container, p.blob, "", conditions.Write, pre)
		if err != nil {
			return err
		}
		switch {
		case b.Type != appendBlob:
			return azhttp.ErrInvalidBlobType
		case b.Sealed:
			return azhttp.ErrBlobIsSealed
		case ac.MaxSize != nil && b.Size+p.size > *ac.MaxSize:
			return azhttp.ErrMaxBlobSizeConditionNotMet
		case ac.AppendPos != nil && b.Size != *ac.AppendPos:
			return azhttp.ErrAppendPositionConditionNotMet
		case b.Extents >= maxCommittedBlocks:
			return azhttp.ErrBlockCountExceedsLimit
		}
		if err := p.place(tx); err != nil {
			return err
		}
		offset = b.Size
		if err := appendExtent(tx, p.acct, p.container, p.blob, b.Extents, extent{Data: p.data, Offset: offset, Size: p.size}); err != nil {
			return err
		}
		b.Size += p.size
		b.Extents++
		b.Version, b.Modified = tx.Version(), s.clock()
		out = b
		return record.Store(tx, blobKey(p.acct, p.container, p.blob), b)
	})
	if err != nil {
		s.discard(ctx, p)
	}
	return out, offset, err
}

// SealBlob makes an append blob read-only.
func (s *Service) SealBlob(ctx context.Context, acct, container, name string, pre Preconditions) (*Blob, error) {
	var out *Blob
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		b, err := s.existingBlob(tx, acct, container, name, "", conditions.Write, pre)
		if err != nil {
			return err
		}
		if b.Type != appendBlob {
			return azhttp.ErrInvalidBlobType
		}
		b.Sealed = true
		b.Version, b.Modified = tx.Version(), s.clock()
		out = b
		return record.Store(tx, blobKey(acct, container, name), b)
	})
	return out, err
}
