package blob

import (
	"bytes"
	"context"
	"io"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// PutBlob creates or replaces a block blob with the payload's content.
// A rejected or failed write leaves the store as it was.
func (s *Service) PutBlob(ctx context.Context, p *payload, h ContentHeaders, meta azhttp.Metadata, pre Preconditions) (*blobRecord, error) {
	if h.ContentMD5 == nil {
		h.ContentMD5 = p.md5
	}
	var out *blobRecord
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		old, err := s.blobForWrite(tx, p.acct, p.container, p.blob, conditions.Create, pre)
		if err != nil {
			return err
		}
		if err := p.place(tx); err != nil {
			return err
		}
		var extents []extent
		if p.size > 0 {
			extents = []extent{{Data: p.data, Size: p.size}}
		}
		out = s.newRecord(tx, old, p.size, h, meta)
		return commitContent(tx, p.acct, p.container, p.blob, out, extents)
	})
	if err != nil {
		s.discard(ctx, p)
	}
	return out, err
}

// blobForWrite loads a blob for a write under pre: the container must
// exist; the blob may not.
func (s *Service) blobForWrite(tx kv.Txn, acct, container, name string, kind conditions.Kind, pre Preconditions) (*blobRecord, error) {
	if _, err := loadContainer(tx, acct, container); err != nil {
		return nil, err
	}
	old, err := loadBlob(tx, acct, container, name)
	if err != nil {
		return nil, err
	}
	return old, s.checkBlob(pre, kind, old)
}

// existingBlob loads a blob that must exist, under pre.
func (s *Service) existingBlob(r kv.Reader, acct, container, name string, kind conditions.Kind, pre Preconditions) (*blobRecord, error) {
	if _, err := loadContainer(r, acct, container); err != nil {
		return nil, err
	}
	b, err := loadBlob(r, acct, container, name)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, azhttp.ErrBlobNotFound
	}
	return b, s.checkBlob(pre, kind, b)
}

func (s *Service) newRecord(tx kv.Txn, old *blobRecord, size int64, h ContentHeaders, meta azhttp.Metadata) *blobRecord {
	now := s.clock()
	created := now
	if old != nil {
		created = old.Created
	}
	rec := &blobRecord{Type: "BlockBlob", Version: tx.Version(), Created: created, Modified: now, Size: size, Headers: h, Metadata: meta}
	if old != nil {
		rec.Lease = old.Lease // a lease survives the content it locks
	}
	return rec
}

// commitContent makes extents the blob's content and rec its record. Data
// objects that the old content or the uncommitted blocks referenced and the
// new content does not are deleted with them.
func commitContent(tx kv.Txn, acct, container, name string, rec *blobRecord, extents []extent) error {
	keep := make(map[uint64]bool, len(extents))
	for _, e := range extents {
		keep[e.Data] = true
	}
	old, err := loadExtents(tx, acct, container, name)
	if err != nil {
		return err
	}
	doomed := map[uint64]bool{}
	for _, e := range old {
		if !keep[e.Data] {
			doomed[e.Data] = true
		}
	}
	blocks, err := loadBlocks(tx, acct, container, name)
	if err != nil {
		return err
	}
	for _, b := range blocks {
		if !keep[b.Data] {
			doomed[b.Data] = true
		}
	}
	for data := range doomed {
		if err := deleteData(tx, acct, container, name, data); err != nil {
			return err
		}
	}
	// Point deletes, not range deletes: most writes replace nothing or a
	// few keys, and a range tombstone per write would slow every read.
	for i := len(extents); i < len(old); i++ {
		if err := tx.Delete(extentKey(acct, container, name, i)); err != nil {
			return err
		}
	}
	for _, b := range blocks {
		if err := tx.Delete(blockKey(acct, container, name, b.ID)); err != nil {
			return err
		}
	}
	for i, e := range extents {
		if err := store(tx, extentKey(acct, container, name, i), e); err != nil {
			return err
		}
	}
	rec.Extents = len(extents)
	return store(tx, blobKey(acct, container, name), rec)
}

// updateBlob changes an existing blob's record under pre.
func (s *Service) updateBlob(ctx context.Context, acct, container, name string, pre Preconditions, change func(*blobRecord)) (*blobRecord, error) {
	var out *blobRecord
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		b, err := s.existingBlob(tx, acct, container, name, conditions.Write, pre)
		if err != nil {
			return err
		}
		change(b)
		b.Version, b.Modified = tx.Version(), s.clock()
		out = b
		return store(tx, blobKey(acct, container, name), b)
	})
	return out, err
}

// SetBlobProperties replaces the blob's content headers.
func (s *Service) SetBlobProperties(ctx context.Context, acct, container, name string, h ContentHeaders, pre Preconditions) (*blobRecord, error) {
	return s.updateBlob(ctx, acct, container, name, pre, func(b *blobRecord) { b.Headers = h })
}

// SetBlobMetadata replaces the blob's metadata.
func (s *Service) SetBlobMetadata(ctx context.Context, acct, container, name string, meta azhttp.Metadata, pre Preconditions) (*blobRecord, error) {
	return s.updateBlob(ctx, acct, container, name, pre, func(b *blobRecord) { b.Metadata = meta })
}

// DeleteBlob removes a blob with its blocks and bytes.
func (s *Service) DeleteBlob(ctx context.Context, acct, container, name string, pre Preconditions) error {
	return s.store.Update(ctx, func(tx kv.Txn) error {
		if _, err := s.existingBlob(tx, acct, container, name, conditions.Write, pre); err != nil {
			return err
		}
		for _, r := range blobRanges(acct, container, name) {
			if err := tx.DeleteRange(r[0], r[1]); err != nil {
				return err
			}
		}
		return tx.Delete(blobKey(acct, container, name))
	})
}

// GetBlobProperties returns the record of an existing blob under pre.
func (s *Service) GetBlobProperties(ctx context.Context, acct, container, name string, pre Preconditions) (*blobRecord, error) {
	var out *blobRecord
	err := s.store.View(ctx, func(r kv.Reader) error {
		var err error
		out, err = s.existingBlob(r, acct, container, name, conditions.Read, pre)
		return err
	})
	return out, err
}

// ByteRange is a requested range; End < 0 means "to the end".
type ByteRange struct{ Start, End int64 }

// Download is an open read of one blob version.
type Download struct {
	Record *blobRecord
	Offset int64 // first byte served
	Length int64 // bytes served
	Ranged bool

	s                     *Service
	acct, container, name string
	extents               []extent
	head                  []byte // the first bytes, read with the record
}

// downloadStep is how many bytes one snapshot read carries.
const downloadStep = 4 << 20

// GetBlob opens a read of the blob (or of rng within it) under pre. The
// record and the first downloadStep bytes come from one snapshot; a longer
// read continues on later snapshots of the same immutable data objects and
// fails if the blob is replaced meanwhile.
func (s *Service) GetBlob(ctx context.Context, acct, container, name string, rng *ByteRange, pre Preconditions) (*Download, error) {
	d := &Download{s: s, acct: acct, container: container, name: name}
	err := s.store.View(ctx, func(r kv.Reader) error {
		b, err := s.existingBlob(r, acct, container, name, conditions.Read, pre)
		if err != nil {
			return err
		}
		d.Record, d.Length = b, b.Size
		if rng != nil {
			if rng.Start >= b.Size || (rng.End >= 0 && rng.End < rng.Start) {
				return azhttp.ErrInvalidRange
			}
			end := b.Size - 1
			if rng.End >= 0 && rng.End < end {
				end = rng.End
			}
			d.Offset, d.Length, d.Ranged = rng.Start, end-rng.Start+1, true
		}
		if d.extents, err = loadExtents(r, acct, container, name); err != nil {
			return err
		}
		var buf bytes.Buffer
		err = readContent(r, acct, container, name, d.extents, d.Offset, min(d.Length, downloadStep), &buf)
		d.head = buf.Bytes()
		return err
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Head returns the bytes already read (all of them for small reads).
func (d *Download) Head() []byte { return d.head }

// WriteTo writes the whole range to w.
func (d *Download) WriteTo(ctx context.Context, w io.Writer) error {
	if _, err := w.Write(d.head); err != nil {
		return err
	}
	off, left := d.Offset+int64(len(d.head)), d.Length-int64(len(d.head))
	for left > 0 {
		n := min(left, downloadStep)
		var buf bytes.Buffer
		err := d.s.store.View(ctx, func(r kv.Reader) error {
			return readContent(r, d.acct, d.container, d.name, d.extents, off, n, &buf)
		})
		if err != nil {
			return err
		}
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
		off, left = off+n, left-n
	}
	return nil
}
