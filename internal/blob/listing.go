package blob

import (
	"context"
	"strings"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// ListBlobsOptions are List Blobs' query parameters.
type ListBlobsOptions struct {
	Prefix, Delimiter, Marker string
	Max                       int
	// StartFrom lists from this name on (inclusive), "" from the start.
	// (endBefore belongs to the Apache Arrow listing format only.)
	StartFrom   string
	Uncommitted bool // include blobs that have only uncommitted blocks
	Snapshots   bool // include each blob's snapshots, oldest first, before it
	Versions    bool // include each blob's previous versions, oldest first, before it
	Deleted     bool // include soft-deleted blobs (and snapshots, with Snapshots)
	// DeletedWithVersions lists a deleted blob that has versions once,
	// marked HasVersionsOnly.
	DeletedWithVersions bool
}

// ListedBlob is one List Blobs entry; Record is nil for a blob that has
// only uncommitted blocks.
type ListedBlob struct {
	Name     string
	Snapshot string // set for a snapshot entry
	Record   *Blob
	// VersionsOnly marks a deleted blob listed for its versions
	// (include=deletedwithversions).
	VersionsOnly bool
}

// BlobListing is one page of List Blobs.
type BlobListing struct {
	Blobs      []ListedBlob
	Prefixes   []string
	NextMarker string
}

// ListBlobs lists one page of a container's blobs from one snapshot.
func (s *Service) ListBlobs(ctx context.Context, ref ContainerRef, o ListBlobsOptions) (*BlobListing, error) {
	acct, container := ref.Account, ref.Container
	out := &BlobListing{}
	err := s.store.View(ctx, func(r kv.Reader) error {
		if err := requireContainer(r, acct, container); err != nil {
			return err
		}
		records := blobsPrefix(acct, container)
		blocks := uncommittedPrefix(acct, container)
		end := kv.PrefixEnd(records.StrPrefix(o.Prefix))
		blockEnd := kv.PrefixEnd(blocks.StrPrefix(o.Prefix))
		cursor := o.Prefix
		cursor = max(cursor, o.Marker, o.StartFrom)
		recs := &nameCursor{r: r, base: records, end: end}
		blks := &nameCursor{r: r, base: blocks, end: blockEnd}
		recs.seek(cursor)
		blks.seek(cursor)
		// Names that only previous versions or soft-deleted blobs have.
		kept := keptCursors(r, acct, container, o)
		for _, c := range kept {
			c.seek(cursor)
		}
		entries := 0
		for {
			name, raw, ok, err := recs.peek()
			if err != nil {
				return err
			}
			if o.Uncommitted {
				bname, _, bok, err := blks.peek()
				if err != nil {
					return err
				}
				if bok && (!ok || bname < name) {
					name, raw, ok = bname, nil, true
				}
			}
			keptOnly := false
			for _, c := range kept {
				kname, _, kok, err := c.peek()
				if err != nil {
					return err
				}
				if kok && (!ok || kname < name) {
					name, raw, ok, keptOnly = kname, nil, true, true
				}
			}
			if !ok {
				return nil
			}
			if entries == o.Max {
				out.NextMarker = name
				return nil
			}
			entries++
			if o.Delimiter != "" {
				if i := strings.Index(name[len(o.Prefix):], o.Delimiter); i >= 0 {
					group := name[:len(o.Prefix)+i+len(o.Delimiter)]
					out.Prefixes = append(out.Prefixes, group)
					next, ok := nameSuccessorOfPrefix(group)
					if !ok {
						return nil
					}
					recs.seek(next)
					blks.seek(next)
					for _, c := range kept {
						c.seek(next)
					}
					continue
				}
			}
			entry := ListedBlob{Name: name}
			switch {
			case keptOnly || raw != nil && (o.Versions || o.Deleted || o.DeletedWithVersions):
				var base *Blob
				if raw != nil {
					base = &Blob{}
					if err := record.Decode(raw, base); err != nil {
						return err
					}
				}
				kept, err := keptEntries(r, acct, container, name, base, o, s.clock())
				if err != nil {
					return err
				}
				out.Blobs = append(out.Blobs, kept...)
			case raw != nil:
				entry.Record = &Blob{}
				if err := record.Decode(raw, entry.Record); err != nil {
					return err
				}
				if o.Snapshots {
					// A blob's snapshots stay on the page of the blob.
					snaps, err := listSnapshots(r, acct, container, name)
					if err != nil {
						return err
					}
					for _, sn := range snaps {
						if sn.Record.Deleted.IsZero() {
							out.Blobs = append(out.Blobs, ListedBlob{Name: name, Snapshot: sn.ID, Record: sn.Record})
						}
					}
				}
				out.Blobs = append(out.Blobs, entry)
			default:
				out.Blobs = append(out.Blobs, entry)
			}
			recs.skip(name)
			blks.skip(name)
			for _, c := range kept {
				c.skip(name)
			}
		}
	})
	return out, err
}

// nameCursor walks the distinct blob names of a key range (keys are
// base + name + more elements), reading them in batches: one scan serves
// many listing entries instead of one scan per entry.
type nameCursor struct {
	r    kv.Reader
	base tuple.Key
	end  []byte
	from []byte // where the next batch starts
	buf  []namedValue
	done bool
}

type namedValue struct {
	name  string
	value []byte
}

// cursorBatch is how many keys one scan reads.
const cursorBatch = 512

// seek restarts the walk at the first name >= name.
func (c *nameCursor) seek(name string) {
	c.from, c.buf, c.done = c.base.Str(name), nil, false
}

// skip drops the head if it is name.
func (c *nameCursor) skip(name string) {
	if len(c.buf) > 0 && c.buf[0].name == name {
		c.buf = c.buf[1:]
	}
}

// peek returns the next distinct name and the value of its first key.
func (c *nameCursor) peek() (string, []byte, bool, error) {
	for len(c.buf) == 0 && !c.done {
		if err := c.fill(); err != nil {
			return "", nil, false, err
		}
	}
	if len(c.buf) == 0 {
		return "", nil, false, nil
	}
	return c.buf[0].name, c.buf[0].value, true, nil
}

func (c *nameCursor) fill() error {
	n := 0
	var last []byte
	err := c.r.Scan(c.from, c.end, func(k, v []byte) error {
		n++
		last = append(last[:0], k...)
		name, err := nameAfter(k, len(c.base))
		if err != nil {
			return err
		}
		if len(c.buf) == 0 || c.buf[len(c.buf)-1].name != name {
			c.buf = append(c.buf, namedValue{name, append([]byte(nil), v...)})
		}
		if n >= cursorBatch {
			return kv.ErrStopScan
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n < cursorBatch {
		c.done = true
	} else {
		c.from = append(last, 0)
		// The batch may end inside a name's keys (uncommitted blocks):
		// continue after that name so it is not listed twice.
		if len(c.buf) > 0 {
			if next, ok := nameSuccessor(c.base, c.buf[len(c.buf)-1].name); ok && string(next) > string(c.from) {
				c.from = next
			}
		}
	}
	return nil
}

// nameSuccessor is the first key after every key of name.
func nameSuccessor(base tuple.Key, name string) ([]byte, bool) {
	k := kv.PrefixEnd(base.Str(name))
	return k, k != nil
}

// nameSuccessorOfPrefix returns the smallest name that does not start with
// p, i.e. p with its last byte incremented.
func nameSuccessorOfPrefix(p string) (string, bool) {
	b := kv.PrefixEnd([]byte(p))
	return string(b), b != nil
}
