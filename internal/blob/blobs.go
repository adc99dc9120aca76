package blob

import (
	"bytes"
	"context"
	"crypto/md5"
	"errors"
	"io"

	"github.com/cerulean-db/cerulean/internal/azbody"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// PutBlob creates or replaces a block blob with c's content, verifying
// c.MD5 when given. A rejected or failed write leaves the store as it was.
func (s *Service) PutBlob(ctx context.Context, ref Ref, c Content, o PutBlobOptions) (*Written, error) {
	acct, container, name, h, meta, tags, pre := ref.Account, ref.Container, ref.Name, o.Headers, o.Metadata, o.Tags, o.Conditions
	var out *Blob
	w, err := s.upload(ctx, acct, container, name, c, func(t *Tx, p *payload) error {
		var err error
		out, err = t.putBlob(p, h, meta, tags, pre)
		return err
	})
	if err != nil {
		return nil, err
	}
	w.Blob = out
	return w, nil
}

// PutBlob creates or replaces a block blob with data, which the
// transaction carries itself: it may be at most 4 MiB.
func (t *Tx) PutBlob(ref Ref, data []byte, o PutBlobOptions) (*Blob, error) {
	acct, container, name, h, meta, tags, pre := ref.Account, ref.Container, ref.Name, o.Headers, o.Metadata, o.Tags, o.Conditions
	if len(data) > inlineLimit {
		return nil, azerr.ErrRequestBodyTooLarge
	}
	return t.putBlob(objects.Inline(blobID{acct, container, name}, data), h, meta, tags, pre)
}

func (t *Tx) putBlob(p *payload, h ContentHeaders, meta azhttp.Metadata, tags Tags, pre Preconditions) (*Blob, error) {
	if h.ContentMD5 == nil {
		h.ContentMD5 = p.MD5
	}
	// The uncommitted blocks go with the write: read them first, which
	// also says whether a blob without a record may hold a lease.
	blocks, err := loadBlocks(t.r, p.Owner.acct, p.Owner.container, p.Owner.name)
	if err != nil {
		return nil, err
	}
	old, err := t.blobForWriteKnowing(p.Owner.acct, p.Owner.container, p.Owner.name, conditions.Create, pre, presenceOf(len(blocks) > 0))
	if err != nil {
		return nil, err
	}
	if err := p.Place(t.tx, t.tx.Version()); err != nil {
		return nil, err
	}
	var extents []extent
	if p.Size > 0 {
		extents = []extent{{Data: p.ID(), Size: p.Size}}
	}
	rec := t.newRecord(old, p.Size, h, meta)
	rec.Tags = tags
	if err := t.keepPrevious(p.Owner.acct, p.Owner.container, p.Owner.name, old, rec); err != nil {
		return nil, err
	}
	if err := pre.Encryption.apply(t, p.Owner.acct, p.Owner.container, rec); err != nil {
		return nil, err
	}
	if err := commitWithBlocks(t.tx, p.Owner.acct, p.Owner.container, p.Owner.name, old, rec, extents, blocks); err != nil {
		return nil, err
	}
	return rec, nil
}

// blobForWrite loads a blob for a write under pre: the container must
// exist; the blob may not.
func (t *Tx) blobForWrite(acct, container, name string, kind conditions.Kind, pre Preconditions) (*Blob, error) {
	return t.blobForWriteKnowing(acct, container, name, kind, pre, blocksUnknown)
}

// blobForWriteKnowing is blobForWrite for a caller that knows whether the
// blob has uncommitted blocks: a blob without a record is checked against
// their lease, which it can hold only with them.
func (t *Tx) blobForWriteKnowing(acct, container, name string, kind conditions.Kind, pre Preconditions, blocks blockPresence) (*Blob, error) {
	if err := requireContainer(t.r, acct, container); err != nil {
		return nil, err
	}
	old, err := loadBlob(t.r, acct, container, name)
	if err != nil {
		return nil, err
	}
	if old != nil {
		return old, t.checkBlob(pre, kind, old)
	}
	l, err := placeholderLease(t.r, acct, container, name, blocks)
	if err != nil {
		return nil, err
	}
	return nil, t.checkBlobLease(pre, kind, nil, l)
}

// findBlob loads a blob (or one of its snapshots) that must exist, in a
// container that must exist.
func findBlob(r kv.Reader, acct, container, name, snapshot string) (*Blob, error) {
	if err := requireContainer(r, acct, container); err != nil {
		return nil, err
	}
	b, err := loadBlobAt(r, acct, container, name, snapshot)
	if err != nil {
		return nil, err
	}
	if b == nil || !b.Deleted.IsZero() {
		return nil, azerr.ErrBlobNotFound
	}
	return b, nil
}

// existingBlob loads a blob (or one of its snapshots) that must exist,
// under pre. Snapshots are read-only and carry no lease.
func (t *Tx) existingBlob(acct, container, name, snapshot string, kind conditions.Kind, pre Preconditions) (*Blob, error) {
	b, err := findBlob(t.r, acct, container, name, snapshot)
	if err != nil {
		return nil, err
	}
	b.settleTier(t.now)
	if snapshot != "" {
		if err := check(pre.Conditions, kind, b.state(), azerr.ErrBlobAlreadyExists); err != nil {
			return nil, err
		}
		if err := checkTags(pre.IfTags, b); err != nil {
			return nil, err
		}
		return b, pre.Encryption.check(kind, b)
	}
	return b, t.checkBlob(pre, kind, b)
}

func (t *Tx) newRecord(old *Blob, size int64, h ContentHeaders, meta azhttp.Metadata) *Blob {
	created := t.now
	if old != nil {
		created = old.Created
	}
	rec := &Blob{Type: "BlockBlob", Version: t.tx.Version(), Created: created, Modified: t.now, Size: size, Headers: h, Metadata: meta}
	if old != nil {
		rec.Lease = old.Lease // a lease survives the content it locks
	}
	if h.Tier != "" {
		rec.Tier, rec.TierChanged, rec.Headers.Tier = h.Tier, t.now, ""
	}
	return rec
}

// commitContent makes extents the blob's content and rec its record. Data
// objects that the old content or the uncommitted blocks referenced and the
// new content does not are freed with them. Block and append blob extents
// get their offsets here; page blob extents come with theirs.
func commitContent(tx kv.Txn, acct, container, name string, old, rec *Blob, extents []extent) error {
	blocks, err := loadBlocks(tx, acct, container, name)
	if err != nil {
		return err
	}
	return commitWithBlocks(tx, acct, container, name, old, rec, extents, blocks)
}

// commitWithBlocks is commitContent for a caller that has loaded the
// blob's uncommitted blocks already (there may be 100,000).
func commitWithBlocks(tx kv.Txn, acct, container, name string, old, rec *Blob, extents []extent, blocks []BlockInfo) error {
	keep := make(map[uint64]bool, len(extents))
	for _, e := range extents {
		keep[e.Data] = true
	}
	// A blob with no record has no committed extents: skip the scan.
	var oldExtents []extent
	if old != nil {
		var err error
		if oldExtents, err = loadExtents(tx, acct, container, name); err != nil {
			return err
		}
	}
	doomed := map[uint64]bool{}
	for _, e := range oldExtents {
		if !keep[e.Data] {
			doomed[e.Data] = true
		}
	}
	for _, b := range blocks {
		if !keep[b.Data] {
			doomed[b.Data] = true
		}
	}
	if old == nil && len(blocks) > 0 {
		// The record takes over the lease of the blocks' placeholder,
		// which clearBlocks deletes.
		l, err := placeholderLease(tx, acct, container, name, someBlocks)
		if err != nil {
			return err
		}
		rec.Lease = l
	}
	// Point deletes of the old keys (a page holds many extents): most
	// writes replace nothing or a few keys, and a range tombstone per write
	// would slow every read.
	var last []byte
	for _, e := range oldExtents {
		if bytes.Equal(e.key, last) {
			continue
		}
		if err := kv.Remove(tx, e.key, e.stored); err != nil {
			return err
		}
		last = e.key
	}
	if len(blocks) > 0 {
		if err := clearBlocks(tx, acct, container, name); err != nil {
			return err
		}
	}
	var offset int64
	for i := range extents {
		if rec.Type != pageBlob {
			extents[i].Offset = offset
			offset += extents[i].Size
		}
	}
	if err := storeExtents(tx, extentsPrefix(acct, container, name), rec.Type, extents); err != nil {
		return err
	}
	rec.Extents = len(extents)
	if err := record.Store(tx, blobKey(acct, container, name), rec); err != nil {
		return err
	}
	var oldTags Tags
	if old != nil {
		oldTags = old.Tags
	}
	if err := indexTags(tx, acct, container, name, oldTags, rec.Tags); err != nil {
		return err
	}
	return dropUnreferenced(tx, acct, container, name, doomed, "", false)
}

// extentSlot is where a page blob extent is stored.
func extentSlot(acct, container, name string, e extent) tuple.Key {
	return extentsPrefix(acct, container, name).Uint(uint64(e.Offset + e.Size))
}

// updateBlob changes an existing blob's record under pre.
func (t *Tx) updateBlob(acct, container, name string, pre Preconditions, change func(*Blob) error) (*Blob, error) {
	b, err := t.existingBlob(acct, container, name, "", conditions.Write, pre)
	if err != nil {
		return nil, err
	}
	if b.Tier == tierArchive {
		return nil, azerr.ErrBlobArchived
	}
	if err := change(b); err != nil {
		return nil, err
	}
	b.Version, b.Modified = t.tx.Version(), t.now
	if err := record.Store(t.tx, blobKey(acct, container, name), b); err != nil {
		return nil, err
	}
	return b, nil
}

// PropertyChange is what one Set Blob Properties changes.
type PropertyChange struct {
	Headers        *ContentHeaders // nil leaves them (a resize or sequence-number call)
	Size           *int64          // page blobs: resize
	SequenceAction string          // page blobs: "", max, update or increment
	Sequence       *int64
}

// SetBlobProperties replaces the blob's content headers and, for page
// blobs, resizes it and updates its sequence number.
func (s *Service) SetBlobProperties(ctx context.Context, ref Ref, c PropertyChange, pre Preconditions) (*Blob, error) {
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Blob, error) { return t.SetBlobProperties(ref, c, pre) })
}

// SetBlobProperties replaces the blob's content headers and, for page
// blobs, resizes it and updates its sequence number.
func (t *Tx) SetBlobProperties(ref Ref, c PropertyChange, pre Preconditions) (*Blob, error) {
	acct, container, name := ref.Account, ref.Container, ref.Name
	return t.updateBlob(acct, container, name, pre, func(b *Blob) error {
		if (c.Size != nil || c.SequenceAction != "") && b.Type != pageBlob {
			return azerr.ErrInvalidBlobType
		}
		if c.Headers != nil {
			b.Headers = *c.Headers
		}
		if c.Size != nil {
			if err := resizePages(t.tx, acct, container, name, b, *c.Size); err != nil {
				return err
			}
		}
		switch c.SequenceAction {
		case "max":
			b.SequenceNumber = max(b.SequenceNumber, *c.Sequence)
		case "update":
			b.SequenceNumber = *c.Sequence
		case "increment":
			b.SequenceNumber++
		}
		return nil
	})
}

// SetBlobMetadata replaces the blob's metadata.
func (s *Service) SetBlobMetadata(ctx context.Context, ref Ref, meta azhttp.Metadata, pre Preconditions) (*Blob, error) {
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Blob, error) { return t.SetBlobMetadata(ref, meta, pre) })
}

// SetBlobMetadata replaces the blob's metadata.
func (t *Tx) SetBlobMetadata(ref Ref, meta azhttp.Metadata, pre Preconditions) (*Blob, error) {
	acct, container, name := ref.Account, ref.Container, ref.Name
	return t.updateBlob(acct, container, name, pre, func(b *Blob) error {
		if err := pre.Encryption.checkMetadataScope(t.r, acct, container, b); err != nil {
			return err
		}
		if err := t.newVersion(acct, container, name, b); err != nil {
			return err
		}
		b.Metadata = meta
		return nil
	})
}

// DeleteSnapshots is x-ms-delete-snapshots.
type DeleteSnapshots int

const (
	// KeepSnapshots: no header; deleting a blob that has snapshots fails.
	KeepSnapshots DeleteSnapshots = iota
	IncludeSnapshots
	OnlySnapshots
)

// DeleteBlob removes a blob with its blocks, bytes and (as asked) its
// snapshots, or only its snapshots.
func (s *Service) DeleteBlob(ctx context.Context, ref Ref, snaps DeleteSnapshots, pre Preconditions) error {
	return s.Update(ctx, func(t *Tx) error { return t.DeleteBlob(ref, snaps, pre) })
}

// DeleteBlob removes a blob with its blocks, bytes and (as asked) its
// snapshots, or only its snapshots.
func (t *Tx) DeleteBlob(ref Ref, snaps DeleteSnapshots, pre Preconditions) error {
	acct, container, name := ref.Account, ref.Container, ref.Name
	b, err := t.existingBlob(acct, container, name, "", conditions.Write, pre)
	if errors.Is(err, azerr.ErrBlobNotFound) {
		// A blob of uncommitted blocks only is deleted with them
		// (@azure/storage-blob's recording "listBlobsFlat to list
		// uncommitted blobs" deletes three such blobs: 202 each).
		return t.deleteUncommitted(acct, container, name, pre, err)
	}
	if err != nil {
		return err
	}
	if err := checkTierChangeTime(pre.AccessTierSince, b); err != nil {
		return err
	}
	has, err := hasLiveSnapshots(t.tx, acct, container, name)
	if err != nil {
		return err
	}
	policy, err := t.softDelete(acct)
	if err != nil {
		return err
	}
	switch {
	case snaps == OnlySnapshots:
		return t.removeSnapshots(acct, container, name, policy)
	case has && snaps == KeepSnapshots:
		return azerr.ErrSnapshotsPresent
	case t.dp.versioning || policy != nil:
		if err := t.removeSnapshots(acct, container, name, policy); err != nil {
			return err
		}
		return t.retireBlob(acct, container, name, b, policy)
	}
	if err := indexTags(t.tx, acct, container, name, b.Tags, nil); err != nil {
		return err
	}
	if err := deleteBlobKeys(t.tx, acct, container, name); err != nil {
		return err
	}
	return t.tx.Delete(blobKey(acct, container, name))
}

// deleteUncommitted deletes the uncommitted blocks of a blob that has no
// record, and the data they alone hold; notFound when it has none.
func (t *Tx) deleteUncommitted(acct, container, name string, pre Preconditions, notFound error) error {
	blocks, err := loadBlocks(t.tx, acct, container, name)
	if err != nil {
		return err
	}
	if len(blocks) == 0 {
		return notFound
	}
	l, err := placeholderLease(t.tx, acct, container, name, someBlocks)
	if err != nil {
		return err
	}
	if err := l.CheckUse(t.now, pre.LeaseID, true); err != nil {
		return azerr.LeaseError(err, azerr.BlobLeaseCodes)
	}
	doomed := make(map[uint64]bool, len(blocks))
	for _, b := range blocks {
		doomed[b.Data] = true
	}
	if err := clearBlocks(t.tx, acct, container, name); err != nil {
		return err
	}
	return dropUnreferenced(t.tx, acct, container, name, doomed, "", false)
}

// GetBlobProperties returns the record of an existing blob under pre.
func (s *Service) GetBlobProperties(ctx context.Context, ref Ref, pre Preconditions) (*Blob, error) {
	return kv.Returning(ctx, s.view, func(t *Tx) (*Blob, error) { return t.GetBlobProperties(ref, pre) })
}

// GetBlobProperties returns the record of an existing blob (or of one of
// its snapshots) under pre.
func (t *Tx) GetBlobProperties(ref Ref, pre Preconditions) (*Blob, error) {
	acct, container, name, snapshot := ref.Account, ref.Container, ref.Name, ref.Snapshot
	return t.existingBlob(acct, container, name, snapshot, conditions.Read, pre)
}

// ByteRange is a requested range; End < 0 means "to the end".
type ByteRange = azhttp.ByteRange

// Download is an open read of one blob version, valid inside the send
// function GetBlob calls.
type Download struct {
	Record *Blob
	Offset int64 // first byte served
	Length int64 // bytes served
	Ranged bool

	r                     kv.Reader
	acct, container, name string
	extents               []extent
}

// GetBlob reads the blob (or o.Range within it) under o.Conditions and hands the open
// read to send. Everything send streams comes from one snapshot, however
// long the client takes: a download that began before an overwrite
// finishes with the old content, never a mix and never cut short.
func (s *Service) GetBlob(ctx context.Context, ref Ref, o GetBlobOptions, send func(*Download) error) error {
	acct, container, name, snapshot, rng, pre := ref.Account, ref.Container, ref.Name, ref.Snapshot, o.Range, o.Conditions
	var read *Blob
	err := s.view(ctx, func(t *Tx) error {
		b, err := t.existingBlob(acct, container, name, snapshot, conditions.Read, pre)
		if err != nil {
			return err
		}
		read = b
		if b.Tier == tierArchive {
			return azerr.ErrBlobArchived
		}
		r := t.r
		d := &Download{Record: b, Length: b.Size, r: r, acct: acct, container: container, name: name}
		if rng != nil {
			if rng.Start >= b.Size || (rng.End >= 0 && rng.End < rng.Start) {
				return &unsatisfiableRange{size: b.Size}
			}
			end := b.Size - 1
			if rng.End >= 0 && rng.End < end {
				end = rng.End
			}
			d.Offset, d.Length, d.Ranged = rng.Start, end-rng.Start+1, true
		}
		if d.extents, err = loadExtentsAt(r, acct, container, name, snapshot); err != nil {
			return err
		}
		return send(d)
	})
	if err == nil {
		s.noteRead(ctx, ref, read)
	}
	return err
}

// MD5 returns the MD5 of the bytes the read serves.
func (d *Download) MD5() ([]byte, error) {
	h := md5.New()
	if err := d.Stream(h); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// CRC64 returns the CRC64 of the bytes the read serves, as
// x-ms-content-crc64 writes it.
func (d *Download) CRC64() ([]byte, error) {
	h := azbody.NewCRC64()
	if err := d.Stream(h); err != nil {
		return nil, err
	}
	return azbody.CRC64Bytes(h.Sum64()), nil
}

// Stream writes the served bytes to w.
func (d *Download) Stream(w io.Writer) error {
	return readContent(d.r, d.acct, d.container, d.name, d.extents, d.Offset, d.Length, w)
}
