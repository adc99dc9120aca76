package blob

import (
	"errors"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// Versions are snapshot-like: a previous version is a record under
// "Ba acct v" with its extents under "Ba acct w", sharing the blob's
// immutable data objects. The current version is the blob itself, whose
// record carries its VersionID; it is never stored twice.
//
// Inside the package a version is addressed like a snapshot, by a point
// string: versionPoint(id). Snapshot IDs start with a digit, so the two
// never mix, and every function that takes a snapshot takes a version.

// versionMark starts every version point.
const versionMark = "v"

// versionPoint is the point of version id.
func versionPoint(id string) string { return versionMark + id }

// versionOf returns the version ID a point names, if it names one.
func versionOf(point string) (string, bool) {
	if strings.HasPrefix(point, versionMark) {
		return point[len(versionMark):], true
	}
	return "", false
}

func versionKey(acct, container, name, id string) tuple.Key {
	return versionsPrefix(acct, container, name).Str(id)
}

func versionsPrefix(acct, container, name string) tuple.Key {
	return accountKey(acct).Raw("v").Str(container).Str(name)
}

func versionExtentsPrefix(acct, container, name string) tuple.Key {
	return accountKey(acct).Raw("w").Str(container).Str(name)
}

func containerVersionsPrefix(acct, container string) tuple.Key {
	return accountKey(acct).Raw("v").Str(container)
}

// pointRecordKey is where the record of the blob, a snapshot or a
// version lives.
func pointRecordKey(acct, container, name, point string) tuple.Key {
	if point == "" {
		return blobKey(acct, container, name)
	}
	if id, ok := versionOf(point); ok {
		return versionKey(acct, container, name, id)
	}
	return snapshotKey(acct, container, name, point)
}

// loadVersion returns version id of the blob: a previous version, or the
// blob itself when id is its current version; nil when neither.
func loadVersion(r kv.Reader, acct, container, name, id string) (*Blob, error) {
	var b Blob
	found, err := record.Load(r, versionKey(acct, container, name, id), &b)
	if err != nil {
		return nil, err
	}
	if found {
		b.point = versionPoint(id)
		return &b, nil
	}
	cur, err := loadBlob(r, acct, container, name)
	if err != nil || cur == nil || cur.VersionID != id {
		return nil, err
	}
	return cur, nil
}

// versionContent is the key prefix of the extents of the blob, a
// snapshot or a version; a version that is the current one reads the
// blob's own extents.
func versionContent(r kv.Reader, acct, container, name, point string) (tuple.Key, error) {
	id, ok := versionOf(point)
	if !ok {
		return contentPrefix(acct, container, name, point), nil
	}
	_, err := r.Get(versionKey(acct, container, name, id))
	switch {
	case err == nil:
		return contentPrefix(acct, container, name, point), nil
	case errors.Is(err, kv.ErrNotFound):
		return extentsPrefix(acct, container, name), nil
	default:
		return nil, err
	}
}

// nextVersionID is the commit time, moved one tick past after (the
// newest version the blob has had) when the clock has not passed it.
// With after empty, the blob's stored versions say what the newest is.
func (t *Tx) nextVersionID(acct, container, name, after string) (string, error) {
	return t.versionIDFrom(acct, container, name, after, t.now)
}

// versionIDFrom is nextVersionID from the time next on.
func (t *Tx) versionIDFrom(acct, container, name, after string, next time.Time) (string, error) {
	if after == "" {
		var err error
		if after, err = lastKey(t.r, versionsPrefix(acct, container, name)); err != nil {
			return "", err
		}
	}
	if after != "" {
		if last, err := time.Parse(snapshotLayout, after); err == nil && !next.After(last) {
			next = last.Add(100 * time.Nanosecond)
		}
	}
	return next.Format(snapshotLayout), nil
}

// lastKey returns the last string element under p ("" when none).
func lastKey(r kv.Reader, p tuple.Key) (string, error) {
	var last string
	err := r.Scan(p, kv.PrefixEnd(p), func(k, _ []byte) error {
		var err error
		last, err = nameAfter(k, len(p))
		return err
	})
	return last, err
}

// keepPrevious runs before a write replaces the blob old (nil when the
// write creates it) with rec. With versioning, the old state becomes a
// previous version and rec gets a new version ID; with blob soft delete
// alone, the old state becomes a soft-deleted snapshot, as Azure keeps
// overwritten data.
func (t *Tx) keepPrevious(acct, container, name string, old, rec *Blob) error {
	if t.dp.versioning {
		after := ""
		if old != nil {
			var err error
			if after, err = t.saveVersion(acct, container, name, old); err != nil {
				return err
			}
		}
		id, err := t.nextVersionID(acct, container, name, after)
		rec.VersionID = id
		return err
	}
	rec.VersionID = ""
	if old == nil {
		return nil
	}
	policy, err := t.softDelete(acct)
	if err != nil || policy == nil {
		return err
	}
	_, err = t.saveDeletedSnapshot(acct, container, name, old, policy, false)
	return err
}

// saveVersion stores the blob's current state b as a previous version,
// sharing its extents' data, and returns the version's ID. A blob written
// before versioning was on gets its ID now.
func (t *Tx) saveVersion(acct, container, name string, b *Blob) (string, error) {
	id := b.VersionID
	if id == "" {
		var err error
		if id, err = t.nextVersionID(acct, container, name, ""); err != nil {
			return "", err
		}
	}
	v := *b
	v.VersionID, v.Lease = id, lease.Lease{}
	if err := copyExtents(t.tx, extentsPrefix(acct, container, name), versionExtentsPrefix(acct, container, name).Str(id)); err != nil {
		return "", err
	}
	return id, record.Store(t.tx, versionKey(acct, container, name, id), v)
}

// newVersion gives the blob b a new current version, keeping its state
// until now as a previous one, when versioning is on (Set Blob Metadata).
func (t *Tx) newVersion(acct, container, name string, b *Blob) error {
	return t.newVersionAt(acct, container, name, b, t.now)
}

// newVersionAt is newVersion with the new version's ID taken from the
// time at on (Snapshot Blob's is a millisecond after the snapshot).
func (t *Tx) newVersionAt(acct, container, name string, b *Blob, at time.Time) error {
	if !t.dp.versioning {
		return nil
	}
	after, err := t.saveVersion(acct, container, name, b)
	if err != nil {
		return err
	}
	b.VersionID, err = t.versionIDFrom(acct, container, name, after, at)
	return err
}

// listVersions returns the blob's previous versions, oldest first.
func listVersions(r kv.Reader, acct, container, name string) ([]SnapshotInfo, error) {
	return listKept(r, versionsPrefix(acct, container, name), versionPoint)
}

// keepVersionData removes from candidates the data objects that a
// version other than skip (a point) still references.
func keepVersionData(tx kv.Reader, acct, container, name string, candidates map[uint64]bool, skip string) error {
	if len(candidates) == 0 {
		return nil
	}
	skipID, _ := versionOf(skip)
	return keepReferenced(tx, versionExtentsPrefix(acct, container, name), skipID, candidates)
}

// keepReferenced removes from candidates the data objects that the
// extents under p (keyed by their owner's name, a snapshot or a version)
// reference, except those of owner skip ("" skips none).
func keepReferenced(r kv.Reader, p tuple.Key, skip string, candidates map[uint64]bool) error {
	var exts []extent
	return r.Scan(p, kv.PrefixEnd(p), func(k, v []byte) error {
		owner, err := nameAfter(k, len(p))
		if err != nil {
			return err
		}
		if skip != "" && owner == skip {
			return nil
		}
		if exts, err = decodeExtents(exts[:0], k, v); err != nil {
			return err
		}
		for _, e := range exts {
			delete(candidates, e.Data)
		}
		return nil
	})
}
