package blob

import (
	"context"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/lease"
	"github.com/cerulean-db/cerulean/internal/svcprops"
)

// Blob soft delete keeps what Delete Blob removes for the retention days
// of the DeleteRetentionPolicy in the Blob service properties. A deleted
// snapshot or version keeps its record with Deleted and Purge set; a
// deleted blob becomes a snapshot marked DeletedBase (so that a new blob
// of the same name can be written meanwhile, when the old one becomes a
// soft-deleted snapshot of it, as in Azure). Soft-deleted records are
// invisible to every read but List Blobs with include=deleted; Undelete
// Blob brings them back; PurgeExpired removes them once Purge has passed.

// retention is an enabled blob soft delete policy.
type retention struct {
	days int
}

// softDelete returns the account's blob soft delete policy, nil when off.
func (t *Tx) softDelete(acct string) (*retention, error) {
	p := svcprops.DefaultServiceProperties("blob")
	if _, err := record.Load(t.r, servicePropsKey(acct), &p); err != nil {
		return nil, err
	}
	d := p.DeleteRetentionPolicy
	if d == nil || !d.Enabled || d.Days == nil || *d.Days < 1 {
		return nil, nil
	}
	return &retention{days: *d.Days}, nil
}

// markDeleted soft-deletes the record b.
func (t *Tx) markDeleted(b *Blob, policy *retention) {
	b.Deleted, b.Purge = t.now, t.now.AddDate(0, 0, policy.days)
}

// expired says whether a soft-deleted record's retention has run out.
func expired(b *Blob, now time.Time) bool {
	return !b.Purge.IsZero() && !now.Before(b.Purge)
}

// saveDeletedSnapshot keeps the blob's current state b as a soft-deleted
// snapshot; base marks it as the blob itself having been deleted.
func (t *Tx) saveDeletedSnapshot(acct, container, name string, b *Blob, policy *retention, base bool) (string, error) {
	last, err := lastKey(t.r, snapshotsPrefix(acct, container, name))
	if err != nil {
		return "", err
	}
	next := t.now
	if lt, err := time.Parse(snapshotLayout, last); err == nil && !next.After(lt) {
		next = lt.Add(100 * time.Nanosecond)
	}
	id := next.Format(snapshotLayout)
	snap := *b
	snap.Lease, snap.DeletedBase = lease.Lease{}, base
	t.markDeleted(&snap, policy)
	if err := copyExtents(t.tx, extentsPrefix(acct, container, name), contentPrefix(acct, container, name, id)); err != nil {
		return "", err
	}
	return id, record.Store(t.tx, snapshotKey(acct, container, name, id), snap)
}

// hasLiveSnapshots says whether the blob has snapshots not soft-deleted.
func hasLiveSnapshots(r kv.Reader, acct, container, name string) (bool, error) {
	snaps, err := listSnapshots(r, acct, container, name)
	if err != nil {
		return false, err
	}
	for _, sn := range snaps {
		if sn.Record.Deleted.IsZero() {
			return true, nil
		}
	}
	return false, nil
}

// removeSnapshots deletes the blob's snapshots, softly under a policy.
func (t *Tx) removeSnapshots(acct, container, name string, policy *retention) error {
	if policy == nil {
		return deleteAllSnapshots(t.tx, acct, container, name)
	}
	snaps, err := listSnapshots(t.r, acct, container, name)
	if err != nil {
		return err
	}
	for _, sn := range snaps {
		if !sn.Record.Deleted.IsZero() {
			continue
		}
		t.markDeleted(sn.Record, policy)
		if err := record.Store(t.tx, snapshotKey(acct, container, name, sn.ID), sn.Record); err != nil {
			return err
		}
	}
	return nil
}

// retireBlob deletes the blob b while keeping its state: as a previous
// version with versioning, else as a soft-deleted snapshot. Its
// uncommitted blocks go for good.
func (t *Tx) retireBlob(acct, container, name string, b *Blob, policy *retention) error {
	if t.dp.versioning {
		if _, err := t.saveVersion(acct, container, name, b); err != nil {
			return err
		}
	} else if _, err := t.saveDeletedSnapshot(acct, container, name, b, policy, true); err != nil {
		return err
	}
	blocks, err := loadBlocks(t.r, acct, container, name)
	if err != nil {
		return err
	}
	candidates := map[uint64]bool{}
	for _, blk := range blocks {
		candidates[blk.Data] = true
	}
	if len(blocks) > 0 {
		if err := clearBlocks(t.tx, acct, container, name); err != nil {
			return err
		}
	}
	if err := indexTags(t.tx, acct, container, name, b.Tags, nil); err != nil {
		return err
	}
	p := extentsPrefix(acct, container, name)
	if err := t.tx.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
		return err
	}
	if err := t.tx.Delete(blobKey(acct, container, name)); err != nil {
		return err
	}
	return dropUnreferenced(t.tx, acct, container, name, candidates, "", false)
}

// deletePoint deletes one snapshot or previous version: softly under the
// account's policy, else for good.
func (t *Tx) deletePoint(acct, container, name, point string, cond conditions.Conditions) error {
	b, err := t.existingBlob(acct, container, name, point, conditions.Write, Preconditions{Conditions: cond})
	if err != nil {
		return err
	}
	if b.point == "" {
		// A version ID naming the current version deletes the blob.
		return t.DeleteBlob(Ref{Account: acct, Container: container, Name: name}, KeepSnapshots, Preconditions{Conditions: cond})
	}
	policy, err := t.softDelete(acct)
	if err != nil {
		return err
	}
	if policy == nil {
		return deleteSnapshot(t.tx, acct, container, name, point)
	}
	t.markDeleted(b, policy)
	return record.Store(t.tx, pointRecordKey(acct, container, name, point), b)
}

// UndeleteBlob restores the blob's soft-deleted snapshots and versions
// and, when the blob itself is gone, its newest soft-deleted state (never
// with versioning, where a deleted blob is a previous version to promote
// by copying it). It fails with BlobNotFound when there is nothing.
func (s *Service) UndeleteBlob(ctx context.Context, ref Ref) error {
	return s.Update(ctx, func(t *Tx) error { return t.UndeleteBlob(ref) })
}

// UndeleteBlob restores what the blob's soft delete keeps.
func (t *Tx) UndeleteBlob(ref Ref) error {
	acct, container, name := ref.Account, ref.Container, ref.Name
	if err := requireContainer(t.r, acct, container); err != nil {
		return err
	}
	base, err := loadBlob(t.r, acct, container, name)
	if err != nil {
		return err
	}
	found := base != nil
	snaps, err := listSnapshots(t.r, acct, container, name)
	if err != nil {
		return err
	}
	var restore *SnapshotInfo
	for i, sn := range snaps {
		switch b := sn.Record; {
		case b.Deleted.IsZero():
			found = true
			continue
		case expired(b, t.now):
			continue
		case b.DeletedBase && base == nil:
			restore = &snaps[i] // snapshots are oldest first: the newest wins
		}
		found = true
	}
	for _, sn := range snaps {
		b := sn.Record
		if b.Deleted.IsZero() || expired(b, t.now) || restore != nil && sn.ID == restore.ID {
			continue
		}
		b.Deleted, b.Purge, b.DeletedBase = time.Time{}, time.Time{}, false
		if err := record.Store(t.tx, snapshotKey(acct, container, name, sn.ID), b); err != nil {
			return err
		}
	}
	versions, err := listVersions(t.r, acct, container, name)
	if err != nil {
		return err
	}
	for _, v := range versions {
		b := v.Record
		if !found && b.Deleted.IsZero() {
			found = true
		}
		if b.Deleted.IsZero() || expired(b, t.now) {
			continue
		}
		found = true
		b.Deleted, b.Purge = time.Time{}, time.Time{}
		if err := record.Store(t.tx, versionKey(acct, container, name, v.ID), b); err != nil {
			return err
		}
	}
	if !found {
		return azerr.ErrBlobNotFound
	}
	if restore == nil {
		return nil
	}
	return t.restoreBase(acct, container, name, restore)
}

// restoreBase makes the soft-deleted snapshot sn the blob again.
func (t *Tx) restoreBase(acct, container, name string, sn *SnapshotInfo) error {
	b := sn.Record
	b.Deleted, b.Purge, b.DeletedBase, b.point = time.Time{}, time.Time{}, false, ""
	from := contentPrefix(acct, container, name, sn.ID)
	if err := copyExtents(t.tx, from, extentsPrefix(acct, container, name)); err != nil {
		return err
	}
	if err := t.tx.DeleteRange(from, kv.PrefixEnd(from)); err != nil {
		return err
	}
	if err := t.tx.Delete(snapshotKey(acct, container, name, sn.ID)); err != nil {
		return err
	}
	if err := indexTags(t.tx, acct, container, name, nil, b.Tags); err != nil {
		return err
	}
	return record.Store(t.tx, blobKey(acct, container, name), b)
}

// RemainingDays is what List Blobs reports as RemainingRetentionDays.
func RemainingDays(b *Blob, now time.Time) int {
	left := b.Purge.Sub(now)
	if left <= 0 {
		return 0
	}
	return int((left + 24*time.Hour - 1) / (24 * time.Hour))
}
