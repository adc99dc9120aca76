package blob

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// maxReported is how many violations CheckInvariants spells out.
const maxReported = 10

// blobID names a blob across accounts and containers.
type blobID struct{ acct, container, name string }

func (b blobID) String() string { return b.acct + "/" + b.container + "/" + b.name }

// dataID names a data object.
type dataID struct {
	blob blobID
	data uint64
}

// dataObject is what the chunks of one data object add up to.
type dataObject struct {
	chunks   int64
	maxChunk int64
	bytes    int64
}

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
		data:       map[dataID]*dataObject{},
		refs:       map[dataID][]string{},
		staged:     map[dataID]bool{},
		garbage:    map[dataID]bool{},
		tagIndex:   map[blobID]Tags{},
		kept:       newKeptChecker(),
	}
	err := store.View(ctx, func(r kv.Reader) error {
		for _, scan := range []struct {
			prefix []byte
			fn     func(k, v []byte) error
		}{
			{tuple.New(keyspace.BlobAccounts), c.account},
			{stagedPrefix(), c.stagedEntry},
			{garbagePrefix(), c.garbageEntry},
		} {
			err := r.Scan(scan.prefix, kv.PrefixEnd(scan.prefix), func(k, v []byte) error {
				if err := scan.fn(k, v); err != nil {
					c.fail("key %q: %v", k, err)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("check invariants: %w", err)
	}
	c.verify()
	if len(c.violations) == 0 {
		return nil
	}
	shown := c.violations[:min(len(c.violations), maxReported)]
	return fmt.Errorf("blob invariants: %d violations:\n\t%s", len(c.violations), strings.Join(shown, "\n\t"))
}

type checker struct {
	containers map[[2]string]bool
	blobs      map[blobID]*Blob
	extents    map[blobID][]extent
	snapshots  map[blobID]map[string]*Blob
	snapExts   map[blobID]map[string][]extent
	blocks     map[blobID]int64
	counts     map[blobID]int64
	data       map[dataID]*dataObject
	refs       map[dataID][]string
	staged     map[dataID]bool
	garbage    map[dataID]bool
	tagIndex   map[blobID]Tags // the tag index entries of each blob
	kept       *keptChecker    // versions and soft-deleted data (check_kept.go)
	violations []string
}

func (c *checker) fail(format string, args ...any) {
	c.violations = append(c.violations, fmt.Sprintf(format, args...))
}

// account files one key of the Ba keyspace.
func (c *checker) account(k, v []byte) error {
	rd, err := tuple.NewReader(k, 2)
	if err != nil {
		return err
	}
	acct, err := rd.Str()
	if err != nil {
		return err
	}
	at := len(accountKey(acct))
	if at >= len(k) {
		return tuple.ErrMalformed
	}
	tag := k[at]
	if tag == 'p' {
		return nil
	}
	if rd, err = tuple.NewReader(k, at+1); err != nil {
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
	name, err := rd.Str()
	if err != nil {
		return err
	}
	b := blobID{acct, container, name}
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
		for _, e := range exts {
			c.ref(b, e.Data, "extent of "+b.String())
		}
	case 'u':
		id, err := rd.Bytes()
		if err != nil {
			return err
		}
		var blk block
		if err := record.Decode(v, &blk); err != nil {
			return err
		}
		c.blocks[b]++
		c.ref(b, blk.Data, fmt.Sprintf("uncommitted block %q of %s", id, b))
	case 'k':
		c.counts[b] += decodeCount(v)
	case 'd':
		data, err := rd.Uint()
		if err != nil {
			return err
		}
		chunk, err := rd.Uint()
		if err != nil {
			return err
		}
		d := dataID{b, data}
		o := c.data[d]
		if o == nil {
			o = &dataObject{}
			c.data[d] = o
		}
		o.chunks++
		o.maxChunk = max(o.maxChunk, int64(chunk))
		o.bytes += int64(len(v))
	case 'n':
		snap, err := rd.Str()
		if err != nil {
			return err
		}
		rec := &Blob{}
		if err := record.Decode(v, rec); err != nil {
			return err
		}
		if c.snapshots[b] == nil {
			c.snapshots[b] = map[string]*Blob{}
		}
		c.snapshots[b][snap] = rec
	case 'z':
		snap, err := rd.Str()
		if err != nil {
			return err
		}
		exts, err := decodeExtents(nil, k, v)
		if err != nil {
			return err
		}
		if c.snapExts[b] == nil {
			c.snapExts[b] = map[string][]extent{}
		}
		c.snapExts[b][snap] = append(c.snapExts[b][snap], exts...)
		for _, e := range exts {
			c.ref(b, e.Data, "extent of snapshot "+snap+" of "+b.String())
		}
	case 'v', 'w':
		if err := c.versionEntry(tag, b, rd, k, v); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown tag %q", tag)
	}
	if !c.containers[[2]string{acct, container}] {
		// Container records sort before every other tag of the account,
		// retired ones ("r") after most: judged in verify.
		c.kept.orphan(acct, container, fmt.Sprintf("%s: key %q of a blob whose container does not exist", b, k))
	}
	return nil
}

// ref records that what references a data object of blob b, with the
// byte range it needs checked in verify.
func (c *checker) ref(b blobID, data uint64, what string) {
	d := dataID{b, data}
	c.refs[d] = append(c.refs[d], what)
}

func (c *checker) stagedEntry(k, v []byte) error {
	var reg staged
	if err := record.Decode(v, &reg); err != nil {
		return err
	}
	c.staged[dataID{blobID{reg.Account, reg.Container, reg.Blob}, lastUint(k)}] = true
	return nil
}

func (c *checker) garbageEntry(_, v []byte) error {
	var page garbage
	if err := record.Decode(v, &page); err != nil {
		return err
	}
	for _, data := range page.Data {
		c.garbage[dataID{blobID{page.Account, page.Container, page.Blob}, data}] = true
	}
	return nil
}

func (c *checker) verify() {
	c.setAsideRetiredTags()
	c.verifyTagIndex()
	need := map[dataID]int64{} // bytes each referenced object must hold
	note := func(b blobID, exts []extent) {
		for _, e := range exts {
			d := dataID{b, e.Data}
			need[d] = max(need[d], e.DataOff+e.Size)
		}
	}
	for b, exts := range c.extents {
		note(b, exts)
	}
	for b, snaps := range c.snapExts {
		for _, exts := range snaps {
			note(b, exts)
		}
	}
	for b, vers := range c.kept.versionExts {
		for _, exts := range vers {
			note(b, exts)
		}
	}
	for d, whats := range c.refs {
		o := c.data[d]
		switch {
		case o == nil && need[d] > 0:
			c.fail("%s: data object %d is missing", whats[0], d.data)
		case o != nil && o.chunks != o.maxChunk+1:
			c.fail("%s: data object %d has %d chunks numbered up to %d", whats[0], d.data, o.chunks, o.maxChunk)
		case o != nil && o.bytes < need[d]:
			c.fail("%s: data object %d holds %d bytes, %d needed", whats[0], d.data, o.bytes, need[d])
		}
		if c.garbage[d] {
			c.fail("%s: data object %d is registered as garbage", whats[0], d.data)
		}
		if c.staged[d] {
			c.fail("%s: data object %d is still registered as staged", whats[0], d.data)
		}
	}
	for d := range c.data {
		if len(c.refs[d]) == 0 && !c.staged[d] && !c.garbage[d] {
			c.fail("%s: data object %d is referenced by nothing", d.blob, d.data)
		}
	}
	for b, exts := range c.extents {
		rec := c.blobs[b]
		if rec == nil {
			c.fail("%s: %d extents without a blob record", b, len(exts))
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
			c.fail("%s: record says %d bytes in %d extents; there are none", b, rec.Size, rec.Extents)
		}
	}
	for b, snaps := range c.snapExts {
		for snap, exts := range snaps {
			rec := c.snapshots[b][snap]
			if rec != nil {
				checkTier(c, b.String()+" snapshot "+snap, rec)
				checkEncryption(c, b.String()+" snapshot "+snap, rec)
			}
			switch {
			case rec == nil:
				c.fail("%s: extents of snapshot %s without its record", b, snap)
			case rec.Type != pageBlob:
				checkSequence(c, b.String()+" snapshot "+snap, rec, exts)
			}
		}
	}
	for b, snaps := range c.snapshots {
		if c.blobs[b] == nil && !allSoftDeleted(snaps) {
			c.fail("%s: snapshots of a blob that does not exist", b)
		}
	}
	c.verifyKept()
	for b, n := range c.blocks {
		if c.counts[b] != n {
			c.fail("%s: %d uncommitted blocks counted as %d", b, n, c.counts[b])
		}
	}
	for b, n := range c.counts {
		if c.blocks[b] == 0 && n != 0 {
			c.fail("%s: no uncommitted blocks counted as %d", b, n)
		}
	}
	sort.Strings(c.violations)
}

// checkSequence verifies that a block or append blob's extents lie end to
// end and add up to its record.
func checkSequence(c *checker, what string, rec *Blob, exts []extent) {
	var offset int64
	for i, e := range exts {
		if e.Offset != offset {
			c.fail("%s: extent %d at offset %d, want %d", what, i, e.Offset, offset)
			return
		}
		offset += e.Size
	}
	if offset != rec.Size {
		c.fail("%s: extents hold %d bytes, record says %d", what, offset, rec.Size)
	}
	if len(exts) != rec.Extents {
		c.fail("%s: %d extents, record says %d", what, len(exts), rec.Extents)
	}
}
