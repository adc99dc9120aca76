package blob

import (
	"fmt"

	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/softdelete"
)

// keptChecker is what CheckInvariants collects about versions ("v", "w"),
// soft-deleted data and retired containers ("r").
type keptChecker struct {
	versions    map[blobID]map[string]*Blob
	versionExts map[blobID]map[string][]extent
	retired     map[[2]string]bool   // containers whose keys a retired one may hold
	moving      map[[2]string]bool   // names with a generation on the move
	orphans     map[[2]string]string // a key outside any live container
}

func newKeptChecker() *keptChecker {
	return &keptChecker{
		versions:    map[blobID]map[string]*Blob{},
		versionExts: map[blobID]map[string][]extent{},
		retired:     map[[2]string]bool{},
		moving:      map[[2]string]bool{},
		orphans:     map[[2]string]string{},
	}
}

func (k *keptChecker) orphan(acct, container, what string) {
	if _, ok := k.orphans[[2]string{acct, container}]; !ok {
		k.orphans[[2]string{acct, container}] = what
	}
}

// versionEntry files a version record (v) or version extents (w).
func (c *checker) versionEntry(tag byte, b blobID, rd *tuple.Reader, k, v []byte) error {
	id, err := rd.Str()
	if err != nil {
		return err
	}
	if tag == 'v' {
		rec := &Blob{}
		if err := record.Decode(v, rec); err != nil {
			return err
		}
		if c.kept.versions[b] == nil {
			c.kept.versions[b] = map[string]*Blob{}
		}
		c.kept.versions[b][id] = rec
		return nil
	}
	exts, err := decodeExtents(nil, k, v)
	if err != nil {
		return err
	}
	if c.kept.versionExts[b] == nil {
		c.kept.versionExts[b] = map[string][]extent{}
	}
	c.kept.versionExts[b][id] = append(c.kept.versionExts[b][id], exts...)
	c.refExtents(b, exts, "extent of version "+id+" of "+b.String())
	return nil
}

func allSoftDeleted(snaps map[string]*Blob) bool {
	for _, s := range snaps {
		if s.Deleted.IsZero() {
			return false
		}
	}
	return true
}

// verifyKept checks that every version has its record and a record its
// extents' sizes; that a version's ID is its key and never the blob's
// current one; that soft-deleted records know when they go; and that
// every key lives in a live or a retired container, never both.
func (c *checker) verifyKept() {
	k := c.kept
	checkPointExtents(c, "version", k.versionExts, k.versions, nil)
	for b, vers := range k.versions {
		for id, rec := range vers {
			what := fmt.Sprintf("%s version %s", b, id)
			if rec.VersionID != id {
				c.Fail("%s: record says version %q", what, rec.VersionID)
			}
			if cur := c.blobs[b]; cur != nil && cur.VersionID == id {
				c.Fail("%s: is also the blob's current version", what)
			}
			if rec.Type != pageBlob && rec.Size > 0 && len(k.versionExts[b][id]) == 0 {
				c.Fail("%s: record says %d bytes; there are no extents", what, rec.Size)
			}
			checkDeletion(c, what, rec)
		}
	}
	for b, snaps := range c.snapshots {
		for id, rec := range snaps {
			what := fmt.Sprintf("%s snapshot %s", b, id)
			if rec.DeletedBase && rec.Deleted.IsZero() {
				c.Fail("%s: a deleted blob's state that is not soft-deleted", what)
			}
			checkDeletion(c, what, rec)
		}
	}
	for b, rec := range c.blobs {
		if !rec.Deleted.IsZero() || rec.DeletedBase {
			c.Fail("%s: the blob itself is marked soft-deleted", b)
		}
	}
	for ct, what := range k.orphans {
		if !k.retired[ct] {
			c.Fail("%s", what)
		}
	}
	for ct := range k.moving {
		if c.containers[ct] {
			c.Fail("%s/%s: a live container while a deleted one of the name moves", ct[0], ct[1])
		}
	}
}

// retiredEntry files a retired container: its keys may sit under its
// alias, and while it moves under its name too.
func (c *checker) retiredEntry(acct, name string, rd *tuple.Reader, v []byte) error {
	version, err := rd.Str()
	if err != nil {
		return err
	}
	var rc retiredContainer
	if err := record.Decode(v, &rc); err != nil {
		return err
	}
	c.kept.retired[[2]string{acct, retiredAlias(name, version)}] = true
	switch rc.State {
	case softdelete.AtRest:
	case softdelete.Moving, softdelete.Restoring:
		c.kept.retired[[2]string{acct, name}] = true
		c.kept.moving[[2]string{acct, name}] = true
	default:
		c.Fail("%s/%s version %s: unknown state %q", acct, name, version, rc.State)
	}
	if rc.Purge.Before(rc.Deleted) {
		c.Fail("%s/%s version %s: deleted at %v, purged at %v", acct, name, version, rc.Deleted, rc.Purge)
	}
	return nil
}

// setAsideRetiredTags checks that blobs outside live containers have no
// tag index entries (a retired container drops them) and then takes
// their tags as indexed, for verifyTagIndex.
func (c *checker) setAsideRetiredTags() {
	for b, rec := range c.blobs {
		if c.containers[[2]string{b.acct, b.container}] {
			continue
		}
		if len(c.tagIndex[b]) > 0 {
			c.Fail("blob %s of a deleted container has tag index entries", b)
		}
		c.tagIndex[b] = rec.Tags
	}
}

func checkDeletion(c *checker, what string, rec *Blob) {
	if rec.Deleted.IsZero() != rec.Purge.IsZero() || !rec.Purge.IsZero() && rec.Purge.Before(rec.Deleted) {
		c.Fail("%s: deleted at %v, purged at %v", what, rec.Deleted, rec.Purge)
	}
}
