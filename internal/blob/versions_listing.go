package blob

import (
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// keptCursors walk the names that List Blobs finds only among previous
// versions (include=versions) or soft-deleted blobs (include=deleted).
func keptCursors(r kv.Reader, acct, container string, o ListBlobsOptions) []*nameCursor {
	var out []*nameCursor
	add := func(base tuple.Key) {
		out = append(out, &nameCursor{r: r, base: base, end: kv.PrefixEnd(base.StrPrefix(o.Prefix))})
	}
	if o.Versions || o.DeletedWithVersions {
		add(containerVersionsPrefix(acct, container))
	}
	if o.Deleted {
		add(accountKey(acct).Raw("n").Str(container))
	}
	return out
}

// keptEntries are one name's List Blobs entries when versions or deleted
// blobs are asked for: its snapshots, its previous versions, then the
// blob itself (base, nil when gone) or, with include=deleted, the newest
// soft-deleted state of a blob that is gone.
func keptEntries(r kv.Reader, acct, container, name string, base *Blob, o ListBlobsOptions, now time.Time) ([]ListedBlob, error) {
	var out []ListedBlob
	snaps, err := listSnapshots(r, acct, container, name)
	if err != nil {
		return nil, err
	}
	var deletedBase *SnapshotInfo
	for i, sn := range snaps {
		b := sn.Record
		deleted := !b.Deleted.IsZero()
		switch {
		case deleted && expired(b, now):
			continue
		case deleted && b.DeletedBase && base == nil:
			deletedBase = &snaps[i]
			continue
		case deleted && !o.Deleted, !o.Snapshots:
			continue
		}
		out = append(out, ListedBlob{Name: name, Snapshot: sn.ID, Record: b})
	}
	if o.Versions {
		versions, err := listVersions(r, acct, container, name)
		if err != nil {
			return nil, err
		}
		for _, v := range versions {
			b := v.Record
			if deleted := !b.Deleted.IsZero(); deleted && (!o.Deleted || expired(b, now)) {
				continue
			}
			out = append(out, ListedBlob{Name: name, Record: b})
		}
	}
	if base == nil && o.DeletedWithVersions && !o.Versions {
		versions, err := listVersions(r, acct, container, name)
		if err != nil {
			return nil, err
		}
		for i := len(versions) - 1; i >= 0; i-- {
			if b := versions[i].Record; b.Deleted.IsZero() || o.Deleted && !expired(b, now) {
				out = append(out, ListedBlob{Name: name, Record: b, VersionsOnly: true})
				break
			}
		}
	}
	switch {
	case base != nil:
		out = append(out, ListedBlob{Name: name, Record: base})
	case deletedBase != nil && o.Deleted:
		out = append(out, ListedBlob{Name: name, Record: deletedBase.Record})
	}
	return out, nil
}

// listVersionAndDeletion adds to a List Blobs entry its version and, for
// soft-deleted data, when it goes for good. A current blob lists its
// version with or without include=versions (azure-storage-blob's
// recording test_smart_access_tier, on a versioned account); earlier
// versions are listed only with it.
func listVersionAndDeletion(x *blobXML, e ListedBlob, inc map[string]bool, now time.Time) {
	b := e.Record
	if _, isVersion := versionOf(b.point); (inc["versions"] || !isVersion) && e.Snapshot == "" && b.VersionID != "" {
		// Only the current version says so; the others list no
		// IsCurrentVersion (go-azblob-TestDeleteSpecificBlobVersion).
		x.VersionID = b.VersionID
		if !isVersion {
			current := true
			x.IsCurrent = &current
		}
	}
	if e.VersionsOnly {
		yes := true
		x.HasVersionsOnly, x.VersionID, x.IsCurrent = &yes, "", nil
		return
	}
	if !b.Deleted.IsZero() {
		left := RemainingDays(b, now)
		x.Deleted = true
		x.Properties.DeletedTime, x.Properties.RemainingDays = azhttp.HTTPTime(b.Deleted), &left
	}
}
