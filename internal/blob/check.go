package blob

import (
	"context"
	"errors"
	"fmt"

	"github.com/cerulean-db/cerulean/internal/extentstore"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/counter"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// blobID names a blob across accounts and containers.
type blobID struct{ acct, container, name string }

func (b blobID) String() string { return b.acct + "/" + b.container + "/" + b.name }

// CheckInvariants reads the whole blob keyspace in one snapshot and
// verifies the storage layout: every extent, snapshot extent and
// uncommitted block names a data object whose chunks hold its bytes; every
// data object is referenced, staged or registered as garbage (and garbage
// is never referenced); block and append blob records agree with their
// extents; pages decode; block counts match the blocks; nothing of a blob
// outlives its container. It describes the first violations in its error.
// Run it on a quiescent store: in-flight writes may be half-way.
func CheckInvariants(ctx context.Context, store kv.Store) error {
	c := &checker{
		containers: map[[2]string]bool{},
		blobs:      map[blobID]*Blob{},
		extents:    map[blobID][]extent{},
		snapshots:  map[blobID]map[string]*Blob{},
		snapExts:   map[blobID]map[string][]extent{},
		blocks:     map[blobID]int64{},
		counts:     map[blobID]int64{},
		leased:     map[blobID]bool{},
		Checker:    *extentstore.NewChecker(objects),
		tagIndex:   map[blobID]Tags{},
		kept:       newKeptChecker(),
	}
	return c.Run(ctx, store, tuple.New(accountTag), c.account, c.verify)
}

type checker struct {
	containers map[[2]string]bool
	blobs      map[blobID]*Blob
	extents    map[blobID][]extent
	snapshots  map[blobID]map[string]*Blob
	snapExts   map[blobID]map[string][]extent
	blocks     map[blobID]int64
	counts     map[blobID]int64
	leased     map[blobID]bool // blobs with a placeholder lease
	tagIndex   map[blobID]Tags // the tag index entries of each blob
	kept       *keptChecker    // versions and soft-deleted data (check_kept.go)
	// Checker checks the data objects and holds every violation.
	extentstore.Checker[blobID]
}

// account files one key of the Ba keyspace.
func (c *checker) account(k, v []byte) error {
	acct, tag, rd, err := tuple.ReadTagged(k, accountTag)
	if err != nil || tag == 'p' {
		return err
	}
	container, err := rd.Str()
	if err != nil {
		return err
	}
	if tag == 'c' {
		c.containers[[2]string{acct, container}] = true
		return nil
	}
	if tag == 't' {
		return c.tagEntry(acct, container, rd)
	}
	if tag == 'r' {
		return c.retiredEntry(acct, container, rd, v)
	}
	f := rd.Fields()
	b := blobID{acct, container, f.Str()}
	if err := f.Err(); err != nil {
		return err
	}
	switch tag {
	case 'o':
		rec := &Blob{}
		if err := record.Decode(v, rec); err != nil {
			return err
		}
		c.blobs[b] = rec
	case 'x':
		exts, err := decodeExtents(nil, k, v)
		if err != nil {
			return err
		}
		c.extents[b] = append(c.extents[b], exts...)
		c.refExtents(b, exts, "extent of "+b.String())
	case 'u':
		id := f.Bytes()
		var blk block
		if err := errors.Join(f.Err(), record.Decode(v, &blk)); err != nil {
			return err
		}
		c.blocks[b]++
		c.Ref(b, blk.Data, fmt.Sprintf("uncommitted block %q of %s", id, b), blk.Size)
	case 'k':
		c.counts[b] += counter.Decode(v)
	case 'l':
		var l lease.Lease
		if err := record.Decode(v, &l); err != nil {
			return err
		}
		c.leased[b] = true
	case 'd':
		data, idx := f.Uint(), f.Uint()
		if err := f.Err(); err != nil {
			return err
		}
		c.Chunk(b, data, idx, len(v))
	case 'n':
		snap := f.Str()
		rec := &Blob{}
		if err := errors.Join(f.Err(), record.Decode(v, rec)); err != nil {
			return err
		}
		if c.snapshots[b] == nil {
			c.snapshots[b] = map[string]*Blob{}
		}
		c.snapshots[b][snap] = rec
	case 'z':
		snap := f.Str()
		exts, err := decodeExtents(nil, k, v)
		if err := errors.Join(f.Err(), err); err != nil {
			return err
		}
		if c.snapExts[b] == nil {
			c.snapExts[b] = map[string][]extent{}
		}
		c.snapExts[b][snap] = append(c.snapExts[b][snap], exts...)
		c.refExtents(b, exts, "extent of snapshot "+snap+" of "+b.String())
	case 'v', 'w':
		if err := c.versionEntry(tag, b, rd, k, v); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown tag %q", tag)
	}
	// A data chunk ('d') outside any container is the content store's to
	// judge: a deleted container's data stays registered as dropped until
	// it is collected, after the delete was answered, and an unregistered
	// one is referenced by nothing.
	if tag != 'd' && !c.containers[[2]string{acct, container}] {
		// Container records sort before every other tag of the account,
		// retired ones ("r") after most: judged in verify.
		c.kept.orphan(acct, container, fmt.Sprintf("%s: key %q of a blob whose container does not exist", b, k))
	}
	return nil
}

// refExtents records that extents of blob b (what) reference their data
// objects, each up to its end.
func (c *checker) refExtents(b blobID, exts []extent, what string) {
	for _, e := range exts {
		c.Ref(b, e.Data, what, e.DataOff+e.Size)
	}
}

func (c *checker) verify() {
	c.setAsideRetiredTags()
	c.verifyTagIndex()
	for b, exts := range c.extents {
		rec := c.blobs[b]
		if rec == nil {
			c.Fail("%s: %d extents without a blob record", b, len(exts))
			continue
		}
		if rec.Type == pageBlob {
			continue
		}
		checkSequence(c, b.String(), rec, exts)
	}
	for b, rec := range c.blobs {
		checkTier(c, b.String(), rec)
		checkEncryption(c, b.String(), rec)
		if rec.Type != pageBlob && len(c.extents[b]) == 0 && (rec.Size != 0 || rec.Extents != 0) {
			c.Fail("%s: record says %d bytes in %d extents; there are none", b, rec.Size, rec.Extents)
		}
	}
	checkPointExtents(c, "snapshot", c.snapExts, c.snapshots, func(what string, rec *Blob) {
		checkTier(c, what, rec)
		checkEncryption(c, what, rec)
	})
	for b, snaps := range c.snapshots {
		if c.blobs[b] == nil && !allSoftDeleted(snaps) {
			c.Fail("%s: snapshots of a blob that does not exist", b)
		}
	}
	c.verifyKept()
	for b, n := range c.blocks {
		if c.counts[b] != n {
			c.Fail("%s: %d uncommitted blocks counted as %d", b, n, c.counts[b])
		}
	}
	for b := range c.leased {
		switch {
		case c.blobs[b] != nil:
			c.Fail("%s: a placeholder lease beside the blob's record", b)
		case c.blocks[b] == 0:
			c.Fail("%s: a placeholder lease without uncommitted blocks", b)
		}
	}
	for b, n := range c.counts {
		if c.blocks[b] == 0 && n != 0 {
			c.Fail("%s: no uncommitted blocks counted as %d", b, n)
		}
	}
}

// checkSequence verifies that a block or append blob's extents lie end to
// end and add up to its record.
// checkPointExtents checks the extents of blobs' snapshots or versions
// (kind) against their records: each has one, and a block or append
// blob's extents run in sequence. also, when given, checks each record
// found first.
func checkPointExtents(c *checker, kind string, exts map[blobID]map[string][]extent, recs map[blobID]map[string]*Blob, also func(what string, rec *Blob)) {
	for b, points := range exts {
		for point, pexts := range points {
			rec := recs[b][point]
			what := b.String() + " " + kind + " " + point
			if rec != nil && also != nil {
				also(what, rec)
			}
			switch {
			case rec == nil:
				c.Fail("%s: extents of %s %s without its record", b, kind, point)
			case rec.Type != pageBlob:
				checkSequence(c, what, rec, pexts)
			}
		}
	}
}

func checkSequence(c *checker, what string, rec *Blob, exts []extent) {
	var offset int64
	for i, e := range exts {
		if e.Offset != offset {
			c.Fail("%s: extent %d at offset %d, want %d", what, i, e.Offset, offset)
			return
		}
		offset += e.Size
	}
	if offset != rec.Size {
		c.Fail("%s: extents hold %d bytes, record says %d", what, offset, rec.Size)
	}
	if len(exts) != rec.Extents {
		c.Fail("%s: %d extents, record says %d", what, len(exts), rec.Extents)
	}
}
