package file

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/cerulean-db/cerulean/internal/extentstore"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/counter"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// fileRef names a file, or a directory, across accounts and shares.
type fileRef struct {
	acct, share string
	id          uint64
}

// dataRef names one data object of a file.
type dataRef struct {
	file fileRef
	data uint64
}

// holdRef names one snapshot's hold on a data object.
type holdRef struct {
	data     dataRef
	snapshot string
}

// CheckInvariants reads the whole File keyspace in one snapshot and
// verifies the storage layout: every share has its root; every directory
// and file record sits under a directory that exists, keyed by its
// stored name's fold, and none is left in the layout before names were
// folded (names_upgrade.go); every extent lies
// within its file's size, belongs to a file that exists and names a data
// object whose chunks hold its bytes; every data object is referenced by
// an extent. A snapshot belongs to a share that exists; every data object
// a snapshot's extent names is held by that snapshot, and every hold is
// named by one of its extents. Every open handle names, by ID, parent and
// stored name, a node that exists, no two handles on a node deny each other's
// access, and every delete-pending node has a handle open. Every
// byte-range lock is held through an open file handle on its file, keyed
// as it records itself, and no two handles' locks conflict. It describes
// the first violations in its error. Run it on a
// quiescent store: in-flight writes may be half-way.
func CheckInvariants(ctx context.Context, store kv.Store) error {
	c := &fileChecker{
		shares:  map[[2]string]bool{},
		roots:   map[[2]string]bool{},
		dirs:    map[fileRef]bool{},
		files:   map[fileRef]*Node{},
		parents: map[fileRef][]string{},
		extents: map[fileRef][]extent{},
		marks:   map[fileRef]int{},
		holds:   map[holdRef]bool{},
		nodes:   map[fileRef]nodePlace{},
		handles: map[fileRef][]*Handle{},
		usage:   map[[2]string]int64{},
		perms:   map[[2]string]map[string]bool{},
		uses:    map[[2]string][]string{},
		locks:   map[fileRef][]*lockRecord{},
		inodes:  map[fileRef]int{},
		stubs:   map[fileRef]int{},
		Checker: *extentstore.NewChecker(objects),
	}
	return c.Run(ctx, store, tuple.New(accountTag), c.entry, c.verify)
}

type fileChecker struct {
	shares map[[2]string]bool
	roots  map[[2]string]bool
	dirs   map[fileRef]bool
	files  map[fileRef]*Node
	// parents are the directories records claim to sit under, with the
	// names that claim them.
	parents map[fileRef][]string
	extents map[fileRef][]extent
	marks   map[fileRef]int               // clear marks by file
	holds   map[holdRef]bool              // live share's data objects held by snapshots
	nodes   map[fileRef]nodePlace         // every directory and file
	handles map[fileRef][]*Handle         // open handles by node
	usage   map[[2]string]int64           // sum of each share's usage shards
	perms   map[[2]string]map[string]bool // stored permission keys
	uses    map[[2]string][]string        // explicit permissions of nodes
	locks   map[fileRef][]*lockRecord     // byte-range locks by file
	inodes  map[fileRef]int               // hard-linked files' link counts
	stubs   map[fileRef]int               // hard links' entries by file
	// Checker checks the data objects and holds every violation.
	extentstore.Checker[fileRef]
}

// nodePlace is where a node's record is keyed, as handles name it.
type nodePlace struct {
	parent       uint64
	name         string
	dir, pending bool
}

// entry files one key of the Fa keyspace.
func (c *fileChecker) entry(k, v []byte) error {
	acct, tag, rd, err := tuple.ReadTagged(k, accountTag)
	if err != nil || tag == 'p' { // 'p': service properties
		return err
	}
	f := rd.Fields()
	share := f.Str()
	if err := f.Err(); err != nil {
		return err
	}
	sh := [2]string{acct, share}
	switch tag {
	case 's':
		c.shares[sh] = true
	case 'S':
		snap := f.Str()
		if err := f.Err(); err != nil {
			return err
		}
		c.shares[[2]string{acct, SnapshotNamespace(share, snap)}] = true
	case 'D':
		// A soft-deleted share keeps its keys under its alias.
		version := f.Str()
		if err := f.Err(); err != nil {
			return err
		}
		c.shares[[2]string{acct, deletedAlias(share, version)}] = true
	case 'k':
		file, data, snap := f.Uint(), f.Uint(), f.Str()
		if err := f.Err(); err != nil {
			return err
		}
		c.holds[holdRef{dataRef{fileRef{acct, share, file}, data}, snap}] = true
	case 'r':
		var n Node
		if err := record.Decode(v, &n); err != nil {
			return err
		}
		c.roots[sh] = true
		c.dirs[fileRef{acct, share, rootID}] = true
		c.nodes[fileRef{acct, share, rootID}] = nodePlace{dir: true, pending: n.DeletePending}
		if n.SMB.Permission != "" {
			c.uses[sh] = append(c.uses[sh], n.SMB.Permission)
		}
	case legacyNodesTag[0]:
		c.Fail("%s/%s: a directory entry keyed by its name as given, which the upgrade to case-insensitive names moves", acct, share)
	case nodesTag[0]:
		parent, key := f.Uint(), f.Str()
		var n Node
		if err := errors.Join(f.Err(), record.Decode(v, &n)); err != nil {
			return err
		}
		name := n.Name
		if n.ParentID != parent {
			c.Fail("%s/%s: %q records parent %d but is keyed under %d", acct, share, name, n.ParentID, parent)
		}
		if name == "" || nameKey(name) != key {
			c.Fail("%s/%s: %q is keyed as %q, not by its name's fold %q", acct, share, name, key, nameKey(name))
		}
		c.parents[fileRef{acct, share, parent}] = append(c.parents[fileRef{acct, share, parent}], name)
		if n.Linked {
			// A hard link's stub: the file is its inode record.
			c.stubs[fileRef{acct, share, n.ID}]++
			return nil
		}
		if n.SMB.Permission != "" {
			c.uses[sh] = append(c.uses[sh], n.SMB.Permission)
		}
		ref := fileRef{acct, share, n.ID}
		c.nodes[ref] = nodePlace{parent: parent, name: name, dir: n.Dir, pending: n.DeletePending}
		if n.Dir {
			c.dirs[ref] = true
		} else {
			c.files[ref] = &n
		}
	case inodesTag[0]:
		id := f.Uint()
		var n Node
		if err := errors.Join(f.Err(), record.Decode(v, &n)); err != nil {
			return err
		}
		ref := fileRef{acct, share, id}
		if n.ID != id || n.Dir || n.Linked {
			c.Fail("%s/%s: inode record %d holds node %d (dir %v, stub %v)", acct, share, id, n.ID, n.Dir, n.Linked)
		}
		c.inodes[ref] = n.Links
		c.files[ref] = &n
	case 'x':
		file, end := f.Uint(), f.Uint()
		var e extent
		if err := errors.Join(f.Err(), record.Decode(v, &e)); err != nil {
			return err
		}
		if e.Offset+e.Size != int64(end) {
			c.Fail("%s/%s file %d: extent [%d,+%d) keyed by end %d", acct, share, file, e.Offset, e.Size, end)
		}
		ref := fileRef{acct, share, file}
		c.extents[ref] = append(c.extents[ref], e)
	case clearMarksTag[0]:
		file, _ := f.Uint(), f.Uint()
		var m clearMark
		if err := errors.Join(f.Err(), record.Decode(v, &m)); err != nil {
			return err
		}
		if m.Offset < 0 || m.Size < 1 {
			c.Fail("%s/%s file %d: clear mark [%d,+%d)", acct, share, file, m.Offset, m.Size)
		}
		c.marks[fileRef{acct, share, file}]++
	case 'd':
		file, data, idx := f.Uint(), f.Uint(), f.Uint()
		if err := f.Err(); err != nil {
			return err
		}
		c.Chunk(fileRef{acct, share, file}, data, idx, len(v))
	case 'h':
		node, id := f.Uint(), f.Uint()
		h := new(Handle)
		if err := errors.Join(f.Err(), record.Decode(v, h)); err != nil {
			return err
		}
		if h.FileID != node || h.ID != id {
			c.Fail("%s/%s: handle %d of node %d is keyed as handle %d of node %d", acct, share, h.ID, h.FileID, id, node)
		}
		ref := fileRef{acct, share, node}
		c.handles[ref] = append(c.handles[ref], h)
	case 'u':
		if f.Uint(); f.Err() != nil {
			return f.Err()
		}
		if len(v) != 8 {
			return fmt.Errorf("usage shard of %d bytes", len(v))
		}
		c.usage[sh] += counter.Decode(v)
	case 'P':
		key := f.Str()
		var p storedPermission
		if err := errors.Join(f.Err(), record.Decode(v, &p)); err != nil {
			return err
		}
		if !validSDDL(p.SDDL) || permissionKey(p.SDDL) != key {
			c.Fail("%s/%s: permission key %q holds %q, whose key is %q", acct, share, key, p.SDDL, permissionKey(p.SDDL))
		}
		if c.perms[sh] == nil {
			c.perms[sh] = map[string]bool{}
		}
		c.perms[sh][key] = true
	case 'l':
		return c.lock(acct, share, rd, v)
	default:
		return fmt.Errorf("unknown tag %q", tag)
	}
	return nil
}

func (c *fileChecker) verify() {
	for sh := range c.shares {
		if !c.roots[sh] {
			c.Fail("%s/%s: share has no root directory", sh[0], sh[1])
		}
		if base, _, ok := splitSnapshotNS(sh[1]); ok && !c.shares[[2]string{sh[0], base}] {
			c.Fail("%s/%s: snapshot outlives its share", sh[0], sh[1])
		}
	}
	for sh := range c.roots {
		if !c.shares[sh] {
			c.Fail("%s/%s: root directory outlives its share", sh[0], sh[1])
		}
	}
	c.verifyShareAccounting()
	c.verifyLinks()
	for parent, names := range c.parents {
		if !c.dirs[parent] {
			c.Fail("%s/%s: %v sit under directory %d, which does not exist", parent.acct, parent.share, names, parent.id)
		}
	}
	snapped := map[[2]string]bool{} // live shares (or deleted ones' aliases) with snapshots
	for sh := range c.shares {
		if base, _, ok := splitSnapshotNS(sh[1]); ok {
			snapped[[2]string{sh[0], base}] = true
		}
	}
	for ref, n := range c.marks {
		if c.files[ref] == nil {
			c.Fail("%s/%s: %d clear marks of file %d, which does not exist", ref.acct, ref.share, n, ref.id)
		}
		if _, _, inSnapshot := splitSnapshotNS(ref.share); !inSnapshot && !snapped[[2]string{ref.acct, ref.share}] {
			c.Fail("%s/%s: %d clear marks of file %d, but the share has no snapshot to compare with", ref.acct, ref.share, n, ref.id)
		}
	}
	named := map[holdRef]bool{} // holds that snapshot extents need
	for ref, exts := range c.extents {
		n := c.files[ref]
		if n == nil {
			c.Fail("%s/%s: extents of file %d, which does not exist", ref.acct, ref.share, ref.id)
			continue
		}
		sort.Slice(exts, func(i, j int) bool { return exts[i].Offset < exts[j].Offset })
		prevEnd := int64(0)
		for _, e := range exts {
			if e.Offset < prevEnd || e.Size < 1 || e.Offset+e.Size > n.Size {
				c.Fail("%s/%s file %d: extent [%d,+%d) overlaps another or lies outside size %d", ref.acct, ref.share, ref.id, e.Offset, e.Size, n.Size)
			}
			prevEnd = e.Offset + e.Size
			// Data objects live under the live share, snapshots' too.
			base, snap, inSnapshot := splitSnapshotNS(ref.share)
			owner := fileRef{ref.acct, base, ref.id}
			d := dataRef{owner, e.Data}
			c.RefSized(owner, e.Data, fmt.Sprintf("%s/%s file %d: extent at %d", ref.acct, ref.share, ref.id, e.Offset), e.DataSize)
			if inSnapshot {
				h := holdRef{d, snap}
				named[h] = true
				if !c.holds[h] {
					c.Fail("%s/%s file %d: snapshot extent at %d names data %d, which the snapshot does not hold", ref.acct, ref.share, ref.id, e.Offset, e.Data)
				}
			}
			if e.DataOff < 0 || e.DataOff+e.Size > e.DataSize {
				c.Fail("%s/%s file %d: extent at %d reads [%d,+%d) of data %d, sized %d", ref.acct, ref.share, ref.id, e.Offset, e.DataOff, e.Size, e.Data, e.DataSize)
			}
		}
	}
	c.verifyHandles()
	c.verifyLocks()
	for h := range c.holds {
		if !named[h] {
			c.Fail("%s/%s file %d: snapshot %s holds data %d, which none of its extents names", h.data.file.acct, h.data.file.share, h.data.file.id, h.snapshot, h.data.data)
		}
	}
}

func (c *fileChecker) verifyHandles() {
	for ref, hs := range c.handles {
		at, ok := c.nodes[ref]
		if !ok {
			c.Fail("%s/%s: %d handles open on node %d, which does not exist", ref.acct, ref.share, len(hs), ref.id)
			continue
		}
		for i, h := range hs {
			if h.ParentID != at.parent || h.Name != at.name || h.Dir != at.dir {
				c.Fail("%s/%s: handle %d names node %d as %q under %d (dir %v), but it is %q under %d (dir %v)",
					ref.acct, ref.share, h.ID, ref.id, h.Name, h.ParentID, h.Dir, at.name, at.parent, at.dir)
			}
			for _, o := range hs[:i] {
				if conflicts(h.Access, h.ShareAccess, o.Access, o.ShareAccess) {
					c.Fail("%s/%s: handles %d and %d on node %d deny each other's access", ref.acct, ref.share, o.ID, h.ID, ref.id)
				}
			}
		}
	}
	for ref, at := range c.nodes {
		if at.pending && len(c.handles[ref]) == 0 {
			c.Fail("%s/%s: node %d is delete-pending with no handle open", ref.acct, ref.share, ref.id)
		}
	}
}

// verifyShareAccounting checks each share's usage against the sizes of its
// files, and that every explicit permission of a directory or file is
// stored under its key, so Get Permission resolves what they report.
func (c *fileChecker) verifyShareAccounting() {
	sizes := map[[2]string]int64{}
	for ref, n := range c.files {
		sizes[[2]string{ref.acct, ref.share}] += n.Size
	}
	for sh := range c.usage {
		if !c.shares[sh] {
			c.Fail("%s/%s: usage outlives its share", sh[0], sh[1])
		}
	}
	for sh := range c.perms {
		if !c.shares[sh] {
			c.Fail("%s/%s: stored permissions outlive their share", sh[0], sh[1])
		}
	}
	for sh := range c.shares {
		// A snapshot counts no usage, and its nodes' permissions are
		// stored with its share's.
		stored := sh
		if base, _, ok := splitSnapshotNS(sh[1]); ok {
			stored = [2]string{sh[0], base}
		} else if c.usage[sh] != sizes[sh] {
			c.Fail("%s/%s: usage is %d bytes but its files hold %d", sh[0], sh[1], c.usage[sh], sizes[sh])
		}
		for _, p := range c.uses[sh] {
			if !c.perms[stored][permissionKey(p)] {
				c.Fail("%s/%s: permission %q is set but not stored under key %q", sh[0], sh[1], p, permissionKey(p))
			}
		}
	}
}

// lock files one byte-range lock record.
func (c *fileChecker) lock(acct, share string, rd *tuple.Reader, v []byte) error {
	var parts [5]uint64 // file, handle, offset, length, mode
	for i := range parts {
		var err error
		if parts[i], err = rd.Uint(); err != nil {
			return err
		}
	}
	l := new(lockRecord)
	if err := record.Decode(v, l); err != nil {
		return err
	}
	if string(lockKey(acct, share, parts[0], l.Handle, l.Offset, l.Length, l.Exclusive)) != string(lockKey(acct, share, parts[0], parts[1], parts[2], parts[3], parts[4] == 1)) || parts[4] > 1 {
		c.Fail("%s/%s file %d: lock %+v is keyed as %v", acct, share, parts[0], *l, parts)
	}
	if l.Count < 1 || !validLockRange(l.Offset, l.Length) {
		c.Fail("%s/%s file %d: lock %+v has no count or runs past the largest offset", acct, share, parts[0], *l)
	}
	ref := fileRef{acct, share, parts[0]}
	c.locks[ref] = append(c.locks[ref], l)
	return nil
}

func (c *fileChecker) verifyLocks() {
	for ref, ls := range c.locks {
		for i, l := range ls {
			var h *Handle
			for _, o := range c.handles[ref] {
				if o.ID == l.Handle {
					h = o
				}
			}
			switch {
			case h == nil:
				c.Fail("%s/%s file %d: lock [%d,+%d) held through handle %d, which is not open on it", ref.acct, ref.share, ref.id, l.Offset, l.Length, l.Handle)
			case h.Dir:
				c.Fail("%s/%s directory %d: lock [%d,+%d) on a directory", ref.acct, ref.share, ref.id, l.Offset, l.Length)
			}
			for _, o := range ls[:i] {
				if o.Handle != l.Handle && (o.blocks(l.Offset, l.Length, l.Exclusive, true, l.Handle) || l.blocks(o.Offset, o.Length, o.Exclusive, true, o.Handle)) {
					c.Fail("%s/%s file %d: locks of handles %d and %d conflict", ref.acct, ref.share, ref.id, o.Handle, l.Handle)
				}
			}
		}
	}
}
