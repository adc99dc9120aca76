package blob

import (
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// Incremental Copy Blob copies a snapshot of a page blob into a
// destination page blob marked as an incremental copy, and snapshots the
// destination so that every copied source snapshot stays readable there.
// Azure transfers only what changed since the previous copy; the result
// is the same as copying the whole snapshot, which is what happens here
// (sharing the source's immutable data objects, so no bytes move twice).
// The destination may only take later snapshots of the same source.

// sourceName identifies a copy source blob, snapshot aside.
func sourceName(src CopySource) string { return src.Acct + "/" + src.Container + "/" + src.Blob }

// checkIncrementalDest applies Azure's rules to an existing destination:
// it must be an incremental copy of the same source, which the new
// snapshot must postdate.
func checkIncrementalDest(old *Blob, src CopySource) error {
	if old == nil {
		return nil
	}
	if !old.IncrementalCopy {
		return azerr.ErrInvalidBlobType.WithMessage("The destination of an incremental copy must be an incremental copy blob.")
	}
	if old.Copy == nil || old.Copy.IncrementalSource != sourceName(src) {
		return azerr.ErrIncrementalCopyBlobMismatch
	}
	// Normalised snapshot times compare as strings.
	if src.Snapshot <= old.Copy.SourceSnapshot {
		return azerr.ErrIncrementalCopyOfEarlierSnapshotNotAllowed
	}
	return nil
}

// commitIncremental commits an incremental copy's destination and the
// snapshot of it that records the copied source snapshot.
func (s *Service) commitIncremental(t *Tx, req CopyRequest, old, out *Blob, extents []extent) error {
	id, err := s.nextSnapshotID(t.tx, req.Acct, req.Container, req.Blob)
	if err != nil {
		return err
	}
	out.IncrementalCopy = true
	out.Tags, out.Tier = nil, ""
	out.Copy.IncrementalSource = sourceName(req.Source)
	out.Copy.SourceSnapshot = req.Source.Snapshot
	out.Copy.DestinationSnapshot = id
	if err := commitContent(t.tx, req.Acct, req.Container, req.Blob, old, out, extents); err != nil {
		return err
	}
	snap := *out
	snap.Lease = lease.Lease{}
	if err := copyExtents(t.tx, extentsPrefix(req.Acct, req.Container, req.Blob), contentPrefix(req.Acct, req.Container, req.Blob, id)); err != nil {
		return err
	}
	return record.Store(t.tx, snapshotKey(req.Acct, req.Container, req.Blob, id), snap)
}
