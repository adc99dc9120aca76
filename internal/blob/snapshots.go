package blob

import (
	"context"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// snapshotLayout is how snapshot IDs look on the wire: UTC with seven
// fractional digits, which also makes them sort in time order.
const snapshotLayout = "2006-01-02T15:04:05.0000000Z"

// CreateSnapshot makes a read-only copy of the blob's current content and
// properties. The copy shares the blob's immutable data objects; meta, when
// given, replaces the metadata of the snapshot.
func (s *Service) CreateSnapshot(ctx context.Context, ref Ref, meta azhttp.Metadata, pre Preconditions) (string, *Blob, error) {
	acct, container, name := ref.Account, ref.Container, ref.Name
	var id string
	var out *Blob
	err := s.Update(ctx, func(t *Tx) error {
		tx := t.tx
		b, err := findBlob(tx, acct, container, name, "")
		if err != nil {
			return err
		}
		if b.settleTier(s.clock()); b.Tier == tierArchive {
			return azerr.ErrBlobArchived
		}
		if err := s.checkLeaseFree(b, pre, false); err != nil {
			return err
		}
		if err := pre.Encryption.check(conditions.Write, b); err != nil {
			return err
		}
		if err := pre.Encryption.checkMetadataScope(tx, acct, container, b); err != nil {
			return err
		}
		if id, err = s.nextSnapshotID(tx, acct, container, name); err != nil {
			return err
		}
		snap := *b
		snap.Lease = lease.Lease{}
		if meta != nil {
			// New metadata makes the snapshot a write of its own, with an
			// ETag of its own (go-azblob-TestBlobSnapshotMetadata).
			snap.Metadata = meta
			snap.Version, snap.Modified = tx.Version(), s.clock()
		}
		if err := copyExtents(tx, extentsPrefix(acct, container, name), contentPrefix(acct, container, name, id)); err != nil {
			return err
		}
		if err := record.Store(tx, snapshotKey(acct, container, name, id), snap); err != nil {
			return err
		}
		out = &snap
		if !t.dp.versioning {
			return nil
		}
		// With versioning a snapshot also gives the blob a new current
		// version, a millisecond after the snapshot, its ETag and time
		// unchanged; the answer names it (@azure/storage-blob's
		// recordings createSnapshot, "delete snapshot", "get blob tags
		// should work with a snapshot": the listing that follows shows
		// that version current).
		at, err := time.Parse(snapshotLayout, id)
		if err != nil {
			return err
		}
		if err := t.newVersionAt(acct, container, name, b, at.Add(time.Millisecond)); err != nil {
			return err
		}
		out.VersionID = b.VersionID
		return record.Store(tx, blobKey(acct, container, name), b)
	})
	return id, out, err
}

// nextSnapshotID is the commit time, moved past the newest snapshot when
// two snapshots land in the same 100 ns.
func (s *Service) nextSnapshotID(tx kv.Txn, acct, container, name string) (string, error) {
	t := s.clock()
	p := snapshotsPrefix(acct, container, name)
	last, err := lastKey(tx, p)
	if err != nil {
		return "", err
	}
	if last != "" {
		if lt, err := time.Parse(snapshotLayout, last); err == nil && !t.After(lt) {
			t = lt.Add(100 * time.Nanosecond)
		}
	}
	return t.Format(snapshotLayout), nil
}

// SnapshotInfo is one listed snapshot.
type SnapshotInfo struct {
	ID     string
	Record *Blob
}

// listSnapshots returns the blob's snapshots, oldest first.
func listSnapshots(r kv.Reader, acct, container, name string) ([]SnapshotInfo, error) {
	return listKept(r, snapshotsPrefix(acct, container, name), func(id string) string { return "" })
}

// listKept returns the records kept under p (snapshots or versions),
// oldest first; point gives each record's point from its id ("" leaves
// it unset).
func listKept(r kv.Reader, p []byte, point func(id string) string) ([]SnapshotInfo, error) {
	var out []SnapshotInfo
	err := r.Scan(p, kv.PrefixEnd(p), func(k, v []byte) error {
		id, err := nameAfter(k, len(p))
		if err != nil {
			return err
		}
		info := SnapshotInfo{ID: id, Record: &Blob{}}
		if err := record.Decode(v, info.Record); err != nil {
			return err
		}
		info.Record.point = point(info.ID)
		out = append(out, info)
		return nil
	})
	return out, err
}

// DeleteSnapshot removes one snapshot and the bytes only it referenced.
func (s *Service) DeleteSnapshot(ctx context.Context, ref Ref, cond conditions.Conditions) error {
	acct, container, name, snapshot := ref.Account, ref.Container, ref.Name, ref.Snapshot
	return s.Update(ctx, func(t *Tx) error {
		return t.deletePoint(acct, container, name, snapshot, cond)
	})
}

func deleteSnapshot(tx kv.Txn, acct, container, name, snapshot string) error {
	exts, err := loadExtentsAt(tx, acct, container, name, snapshot)
	if err != nil {
		return err
	}
	prefix := contentPrefix(acct, container, name, snapshot)
	if err := tx.DeleteRange(prefix, kv.PrefixEnd(prefix)); err != nil {
		return err
	}
	if err := tx.Delete(pointRecordKey(acct, container, name, snapshot)); err != nil {
		return err
	}
	candidates := map[uint64]bool{}
	for _, e := range exts {
		candidates[e.Data] = true
	}
	return dropUnreferenced(tx, acct, container, name, candidates, snapshot, true)
}

func deleteAllSnapshots(tx kv.Txn, acct, container, name string) error {
	snaps, err := listSnapshots(tx, acct, container, name)
	if err != nil {
		return err
	}
	for _, sn := range snaps {
		if err := deleteSnapshot(tx, acct, container, name, sn.ID); err != nil {
			return err
		}
	}
	return nil
}

// dropUnreferenced frees the data objects in candidates that nothing
// references any more: no snapshot other than skip (one being deleted)
// and, when checkBlob is set, not the blob's current content or
// uncommitted blocks either (otherwise the caller has accounted for them).
func dropUnreferenced(tx kv.Txn, acct, container, name string, candidates map[uint64]bool, skip string, checkBlob bool) error {
	if len(candidates) == 0 {
		return nil
	}
	if checkBlob {
		exts, err := loadExtents(tx, acct, container, name)
		if err != nil {
			return err
		}
		for _, e := range exts {
			delete(candidates, e.Data)
		}
		blocks, err := loadBlocks(tx, acct, container, name)
		if err != nil {
			return err
		}
		for _, b := range blocks {
			delete(candidates, b.Data)
		}
	}
	p := snapshotExtentsPrefix(acct, container, name)
	if err := keepReferenced(tx, p, skip, candidates); err != nil {
		return err
	}
	if err := keepVersionData(tx, acct, container, name, candidates, skip); err != nil {
		return err
	}
	return objects.Free(tx, blobID{acct, container, name}, candidates)
}

// copyExtents copies the extent keys (pages or single extents) under from
// to the same key suffixes under to, as stored, whatever the blob type's
// key scheme.
func copyExtents(tx kv.Txn, from, to tuple.Key) error {
	type pair struct{ k, v []byte }
	var pairs []pair
	err := tx.Scan(from, kv.PrefixEnd(from), func(k, v []byte) error {
		pairs = append(pairs, pair{append(append([]byte(nil), to...), k[len(from):]...), append([]byte(nil), v...)})
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range pairs {
		if err := tx.Set(p.k, p.v); err != nil {
			return err
		}
	}
	return nil
}
