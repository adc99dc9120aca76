package file

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// A share snapshot is a read-only copy of a share's directory, file and
// extent records, made in one transaction, under its own namespace: the
// share name, '@' and the snapshot time (SnapshotNamespace). Share names
// never hold '@', so every read path (locate, listings, GetFile,
// ListRanges) serves a snapshot when handed its namespace as the share.
// The file data is not copied: a snapshot's extents name the live
// share's immutable data objects, and a hold record per data object keeps
// it alive until no live extent and no snapshot uses it (dataInUse).

const (
	// MaxShareSnapshots is how many snapshots one share may have, as on
	// Azure.
	MaxShareSnapshots = 200
	// SnapshotRecordBudget is how many bytes of records one Snapshot Share
	// may write: its copies of the share's directory, file and extent
	// records plus one hold per data object, inside one kv transaction
	// (kv.MaxTxnSize), less headroom for the snapshot's own record. A share
	// past it answers 501 rather than half a snapshot.
	SnapshotRecordBudget = kv.MaxTxnSize - 64<<10
	// SnapshotLayout is how Azure writes a share snapshot's time
	// (x-ms-snapshot, sharesnapshot=, <Snapshot>).
	SnapshotLayout = "2006-01-02T15:04:05.0000000Z"
)

var errSnapshotTooLarge = azerr.ErrNotImplemented.WithMessage(
	"Snapshotting a share whose directory, file and range records exceed %d bytes (one transaction) is not supported by this server.", SnapshotRecordBudget)

// SnapshotNamespace names the snapshot taken at snapshot (in
// SnapshotLayout) of share to every read method of Service and Tx.
func SnapshotNamespace(share, snapshot string) string { return share + "@" + snapshot }

// splitSnapshotNS splits a snapshot namespace; ok is false for a live
// share's name.
func splitSnapshotNS(ns string) (share, snapshot string, ok bool) { return strings.Cut(ns, "@") }

// baseShare is the live share a name or snapshot namespace belongs to.
func baseShare(ns string) string {
	share, _, _ := strings.Cut(ns, "@")
	return share
}

// ParseSnapshot reads a share snapshot time as a client sends it and
// returns it in SnapshotLayout; ok is false when it is no time.
func ParseSnapshot(v string) (string, bool) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return "", false
	}
	return t.UTC().Format(SnapshotLayout), true
}

// Keys (see doc.go):
//
//	Fa acct S share snapshot            snapshot record (a Share)
//	Fa acct h share file data snapshot  the snapshot holds a data object

func snapshotsPrefix(acct, share string) tuple.Key { return accountKey(acct).Raw("S").Str(share) }

func snapshotKey(acct, share, snapshot string) tuple.Key {
	return snapshotsPrefix(acct, share).Str(snapshot)
}

func holdsPrefix(acct, share string, file uint64) tuple.Key {
	return accountKey(acct).Raw("k").Str(baseShare(share)).Uint(file)
}

func holdKey(acct, share string, file, data uint64, snapshot string) tuple.Key {
	return holdsPrefix(acct, share, file).Uint(data).Str(snapshot)
}

// namespaceTags are the record families a snapshot copies.
var namespaceTags = []string{"r", nodesTag, inodesTag, "x", clearMarksTag}

// snapshotList returns the snapshot times of a live share, oldest first.
func snapshotList(r kv.Reader, acct, share string) ([]string, error) {
	p := snapshotsPrefix(acct, share)
	var out []string
	err := r.Scan(p, kv.PrefixEnd(p), func(k, _ []byte) error {
		rd, err := tuple.NewReader(k, len(p))
		if err != nil {
			return err
		}
		s, err := rd.Str()
		out = append(out, s)
		return err
	})
	return out, err
}

// SnapshotShare takes a snapshot of a share and returns its time (in
// SnapshotLayout) and record.
func (s *Service) SnapshotShare(ctx context.Context, ref ShareRef, meta azhttp.Metadata) (string, *Share, error) {
	var snap string
	var out *Share
	err := s.Update(ctx, func(t *Tx) error {
		var err error
		snap, out, err = t.SnapshotShare(ref, meta)
		return err
	})
	return snap, out, err
}

// SnapshotShare takes a snapshot of a share inside t's transaction. The
// snapshot's time is the transaction's, made later than every earlier
// snapshot's so that it names one snapshot of the share. Metadata, when
// given, replaces the share's in the snapshot (which then gets its own
// ETag and Last-Modified); otherwise the snapshot carries the share's.
func (t *Tx) SnapshotShare(ref ShareRef, meta azhttp.Metadata) (string, *Share, error) {
	acct, share := ref.Account, ref.Share
	if _, _, ok := splitSnapshotNS(share); ok {
		return "", nil, azerr.ErrShareSnapshotOperationNotSupported
	}
	sh, err := loadShare(t.r, acct, share)
	if err != nil {
		return "", nil, err
	}
	existing, err := snapshotList(t.r, acct, share)
	if err != nil {
		return "", nil, err
	}
	if len(existing) >= MaxShareSnapshots {
		return "", nil, azerr.ErrShareSnapshotCountExceeded
	}
	at := t.now
	if n := len(existing); n > 0 {
		if last, err := time.Parse(SnapshotLayout, existing[n-1]); err == nil && !at.After(last) {
			at = last.Add(100 * time.Nanosecond)
		}
	}
	snap := at.UTC().Format(SnapshotLayout)
	ns := SnapshotNamespace(share, snap)

	type kvPair struct{ k, v []byte }
	var copies []kvPair
	holds := map[[2]uint64]bool{}
	size := 0
	for _, tag := range namespaceTags {
		src, dst := accountKey(acct).Raw(tag).Str(share), accountKey(acct).Raw(tag).Str(ns)
		err := t.r.Scan(src, kv.PrefixEnd(src), func(k, v []byte) error {
			rest := k[len(src):]
			val := append([]byte(nil), v...)
			switch tag {
			case nodesTag, inodesTag:
				// A snapshot's files are not leased: leases guard the live
				// file's writes, and a snapshot takes none.
				var n Node
				if err := record.Decode(v, &n); err != nil {
					return err
				}
				n.Lease = lease.Lease{}
				// Nor are they pending deletion: the handles that would
				// delete them are the live file's.
				n.DeletePending = false
				val = record.Encode(&n)
			case "x":
				var e extent
				if err := record.Decode(v, &e); err != nil {
					return err
				}
				if len(rest) < 8 {
					return tuple.ErrMalformed
				}
				file := binary.BigEndian.Uint64(rest)
				if ref := [2]uint64{file, e.Data}; !holds[ref] {
					holds[ref] = true
					size += len(holdKey(acct, share, file, e.Data, snap))
				}
			}
			key := append(append([]byte(nil), dst...), rest...)
			size += len(key) + len(val)
			if size > SnapshotRecordBudget {
				return errSnapshotTooLarge
			}
			copies = append(copies, kvPair{key, val})
			return nil
		})
		if err != nil {
			return "", nil, err
		}
	}
	for _, c := range copies {
		if err := t.tx.Set(c.k, c.v); err != nil {
			return "", nil, err
		}
	}
	for ref := range holds {
		if err := t.tx.Set(holdKey(acct, share, ref[0], ref[1], snap), []byte{}); err != nil {
			return "", nil, err
		}
	}
	// A snapshot takes no lease (Lease Share on a snapshot is not
	// served), whatever lease its share holds.
	rec := *sh
	rec.Lease = lease.Lease{}
	if meta != nil {
		rec.Metadata, rec.Version, rec.Modified = meta, t.tx.Version(), t.now
	}
	return snap, &rec, record.Store(t.tx, snapshotKey(acct, share, snap), &rec)
}

// DeleteShareAndSnapshots deletes a share with all its snapshots, leased
// ones too (x-ms-delete-snapshots: include-leased); the share's own lease
// guards it.
func (s *Service) DeleteShareAndSnapshots(ctx context.Context, ref ShareRef, leaseID string) error {
	return s.DeleteShareWithSnapshots(ctx, ref, DeleteSnapshotsOptions{LeaseID: leaseID, IncludeLeased: true})
}

// DeleteSnapshotsOptions is what a Delete Share with its snapshots says:
// the share's lease ID, and whether snapshots holding leases go too
// (x-ms-delete-snapshots: include-leased rather than include).
type DeleteSnapshotsOptions struct {
	LeaseID       string
	IncludeLeased bool
}

// errSnapshotLeased is Azure's answer to x-ms-delete-snapshots: include
// while a snapshot holds a lease (the Files error codes).
var errSnapshotLeased = &azerr.Error{Status: http.StatusConflict, Code: "DeleteShareWhenSnapshotLeased",
	Message: "Unable to delete share because one or more share snapshots have active leases. Release the share snapshot leases or delete the share with the include-leased parameter for x-ms-delete-snapshots."}

// DeleteShareWithSnapshots deletes a share with its snapshots; without
// IncludeLeased (x-ms-delete-snapshots: include) a snapshot holding a
// lease refuses it.
func (s *Service) DeleteShareWithSnapshots(ctx context.Context, ref ShareRef, o DeleteSnapshotsOptions) error {
	if err := s.Update(ctx, func(t *Tx) error { return t.DeleteShareAndSnapshots(ref, o) }); err != nil {
		return err
	}
	s.moveDeleted(ctx, ref)
	return nil
}

// DeleteShareAndSnapshots deletes a share with all its snapshots inside
// t's transaction. Deleting the share deletes every data object, so no
// hold needs counting.
func (t *Tx) DeleteShareAndSnapshots(ref ShareRef, o DeleteSnapshotsOptions) error {
	acct, name, leaseID := ref.Account, ref.Share, o.LeaseID
	if _, _, ok := splitSnapshotNS(name); ok {
		return azerr.ErrShareSnapshotOperationNotSupported
	}
	sh, err := t.share(acct, name, leaseID, true)
	if err != nil {
		return err
	}
	snaps, err := snapshotList(t.r, acct, name)
	if err != nil {
		return err
	}
	if !o.IncludeLeased {
		for _, snap := range snaps {
			ss, err := loadShare(t.r, acct, SnapshotNamespace(name, snap))
			if err != nil {
				return err
			}
			if ss.Lease.Active(t.now) {
				return errSnapshotLeased
			}
		}
	}
	if t.retention > 0 {
		return t.retireShare(acct, name, sh) // its snapshots go with it
	}
	for _, snap := range snaps {
		if err := deleteNamespace(t.tx, acct, SnapshotNamespace(name, snap)); err != nil {
			return err
		}
	}
	return t.deleteLiveShare(acct, name)
}

// deleteNamespace deletes a snapshot's own records: the copies of the
// share's directories, files and extents.
func deleteNamespace(tx kv.Txn, acct, ns string) error {
	for _, tag := range namespaceTags {
		p := accountKey(acct).Raw(tag).Str(ns)
		if err := tx.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
			return err
		}
	}
	return nil
}

// deleteSnapshot deletes one snapshot: its record, its namespace and its
// holds, and every data object it held that nothing uses any more.
func (t *Tx) deleteSnapshot(acct, share, snap, leaseID string) error {
	ns := SnapshotNamespace(share, snap)
	// A snapshot's own lease guards it, as a share's guards the share.
	if _, err := t.share(acct, ns, leaseID, true); err != nil {
		if errors.Is(err, azerr.ErrShareNotFound) {
			if _, berr := loadShare(t.r, acct, share); berr == nil {
				return azerr.ErrShareSnapshotNotFound
			}
		}
		return err
	}
	type object struct {
		file, data   uint64
		origin, size int64
	}
	held := map[[2]uint64]object{}
	p := accountKey(acct).Raw("x").Str(ns)
	err := t.r.Scan(p, kv.PrefixEnd(p), func(k, v []byte) error {
		var e extent
		if err := record.Decode(v, &e); err != nil {
			return err
		}
		rest := k[len(p):]
		if len(rest) < 8 {
			return tuple.ErrMalformed
		}
		file := binary.BigEndian.Uint64(rest)
		held[[2]uint64{file, e.Data}] = object{file, e.Data, e.Offset - e.DataOff, e.DataSize}
		return nil
	})
	if err != nil {
		return err
	}
	if err := t.tx.Delete(snapshotKey(acct, share, snap)); err != nil {
		return err
	}
	if err := deleteNamespace(t.tx, acct, ns); err != nil {
		return err
	}
	if left, err := snapshotList(t.tx, acct, share); err != nil {
		return err
	} else if len(left) == 0 {
		// No snapshot is left to compare the clears with.
		if err := dropShareClearMarks(t.tx, acct, share); err != nil {
			return err
		}
	}
	for _, o := range held {
		if err := t.tx.Delete(holdKey(acct, share, o.file, o.data, snap)); err != nil {
			return err
		}
		used, err := dataInUse(t.tx, acct, share, o.file, o.data, o.origin, o.size)
		if err != nil {
			return err
		}
		if !used {
			if err := objects.DeleteSized(t.tx, dataOwner(acct, share, o.file), o.data, o.size); err != nil {
				return err
			}
		}
	}
	return nil
}

// dataInUse reports whether a data object of a live share's file is
// still referenced: by a live extent (every piece of a data object lies
// within [origin, origin+size), the range it was first written to, so one
// bounded scan finds one) or by a snapshot's hold.
func dataInUse(r kv.Reader, acct, share string, file, data uint64, origin, size int64) (bool, error) {
	live, err := overlapping(r, acct, share, file, origin, origin+size)
	if err != nil {
		return false, err
	}
	for _, e := range live {
		if e.Data == data {
			return true, nil
		}
	}
	return isHeld(r, acct, share, file, data)
}

// isHeld reports whether any snapshot holds a data object.
func isHeld(r kv.Reader, acct, share string, file, data uint64) (bool, error) {
	p := holdsPrefix(acct, share, file).Uint(data)
	held := false
	err := r.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { held = true; return kv.ErrStopScan })
	return held, err
}

// heldData returns the data objects of a file that some snapshot holds.
func heldData(r kv.Reader, acct, share string, file uint64) (map[uint64]bool, error) {
	p := holdsPrefix(acct, share, file)
	out := map[uint64]bool{}
	err := r.Scan(p, kv.PrefixEnd(p), func(k, _ []byte) error {
		if rest := k[len(p):]; len(rest) >= 8 {
			out[binary.BigEndian.Uint64(rest)] = true
		}
		return nil
	})
	return out, err
}

// ShareItem is one entry of a share listing.
type ShareItem struct {
	Name string
	// Snapshot is the snapshot's time, "" for the live share.
	Snapshot string
	*Share
	// Deleted is set for a soft-deleted share (include=deleted).
	Deleted *DeletedInfo
}

// ListSharesAndSnapshots lists shares like ListShares, each preceded by
// its snapshots, oldest first, counting each snapshot as one entry
// towards max. A marker is "share" (the share's first entry),
// "share@time" (that snapshot) or "share@" (the live share, after its
// snapshots).
func (s *Service) ListSharesAndSnapshots(ctx context.Context, acct, prefix, marker string, max int) ([]ShareItem, string, error) {
	var out []ShareItem
	next := ""
	err := s.viewStore(ctx, func(r kv.Reader) error {
		out, next = nil, ""
		mShare, mSnap, mid := splitSnapshotNS(marker)
		var names []string
		var shares []*Share
		after, err := record.Page(r, sharesPrefix(acct), prefix, mShare, max, func(name string, sh *Share) {
			names, shares = append(names, name), append(shares, sh)
		})
		if err != nil {
			return err
		}
		for i, name := range names {
			snaps, err := snapshotList(r, acct, name)
			if err != nil {
				return err
			}
			for _, snap := range snaps {
				if name == mShare && mid && (mSnap == "" || snap < mSnap) {
					continue
				}
				if len(out) == max {
					next = SnapshotNamespace(name, snap)
					return nil
				}
				rec, err := loadShare(r, acct, SnapshotNamespace(name, snap))
				if err != nil {
					return err
				}
				out = append(out, ShareItem{Name: name, Snapshot: snap, Share: rec})
			}
			if len(out) == max {
				next = name + "@"
				return nil
			}
			out = append(out, ShareItem{Name: name, Share: shares[i]})
		}
		next = after
		return nil
	})
	return out, next, err
}

// RangeDiff is List Ranges against a previous snapshot: the ranges
// written and the ranges cleared since, in offset order.
type RangeDiff struct {
	File    *Node
	Changed []Range
	Cleared []Range
}

// ListRangesDiff compares a file (share may be a snapshot namespace) with
// the same file in the earlier snapshot o.PrevSnapshot of its share,
// within [o.Range.Start, o.Range.End] (the whole file when o.Range is
// nil). A byte is
// changed when it now reads from a different data object, or the same at
// another place, than in prev; cleared when prev had it written and now
// nothing does. The file must be the same file (not recreated) in both;
// with followRenames (x-ms-file-support-rename) it may have been moved
// since prev, and is found there by its ID.
func (s *Service) ListRangesDiff(ctx context.Context, ref Ref, o ListRangesDiffOptions) (*RangeDiff, error) {
	acct, share, path, prev, followRenames, rng, pre := ref.Account, ref.Share, ref.Path, o.PrevSnapshot, o.FollowRenames, o.Range, o.Conditions
	out := &RangeDiff{}
	err := s.view(ctx, func(t *Tx) error {
		base, cur, isSnap := splitSnapshotNS(share)
		if isSnap && prev >= cur {
			return azerr.InvalidQueryParameterValue("prevsharesnapshot", prev, "").WithMessage("The previous snapshot must be older than the snapshot listed.")
		}
		n, err := t.GetFileProperties(ref, pre)
		if err != nil {
			return err
		}
		out.File = n
		prevNS := SnapshotNamespace(base, prev)
		if _, err := loadShare(t.r, acct, prevNS); errors.Is(err, azerr.ErrShareNotFound) {
			return azerr.ErrPreviousSnapshotNotFound
		} else if err != nil {
			return err
		}
		var then *Node
		old, err := t.locate(acct, prevNS, path)
		switch {
		case errors.Is(err, azerr.ErrParentNotFound):
		case err != nil:
			return err
		case old.node != nil && !old.node.Dir:
			then = old.node
		}
		if (then == nil || then.ID != n.ID) && followRenames {
			if then, err = findFile(t.r, acct, prevNS, n.ID); err != nil {
				return err
			}
		}
		switch {
		case then == nil:
			return azerr.ErrPreviousSnapshotNotFound
		case then.ID != n.ID:
			return azerr.ErrFileGenerationMismatch
		}
		lo, hi := window(rng, max(n.Size, then.Size))
		if lo >= hi {
			return nil
		}
		nowExt, err := overlapping(t.r, acct, share, n.ID, lo, hi)
		if err != nil {
			return err
		}
		thenExt, err := overlapping(t.r, acct, prevNS, n.ID, lo, hi)
		if err != nil {
			return err
		}
		changed, cleared := diffExtents(nowExt, thenExt, lo, hi)
		marked, err := clearedSince(t.r, acct, share, prevNS, n.ID)
		if err != nil {
			return err
		}
		cleared = append(cleared, marked...)
		slices.SortFunc(cleared, func(a, b Range) int { return cmp.Compare(a.Start, b.Start) })
		out.Changed, out.Cleared = pagedDiff(changed, cleared, lo, hi)
		return nil
	})
	return out, err
}

// findFile finds a file by its ID anywhere in a share or snapshot: one
// scan of its directory and file records, which a snapshot bounds to one
// transaction's worth. It returns nil when no file has the ID.
func findFile(r kv.Reader, acct, share string, id uint64) (*Node, error) {
	p := accountKey(acct).Raw(nodesTag).Str(share)
	var out *Node
	err := r.Scan(p, kv.PrefixEnd(p), func(_, v []byte) error {
		var n Node
		if err := record.Decode(v, &n); err != nil {
			return err
		}
		if !n.Dir && n.ID == id {
			out = &n
			return kv.ErrStopScan
		}
		return nil
	})
	return out, err
}

// diffExtents compares two extent lists over [lo, hi).
func diffExtents(now, then []extent, lo, hi int64) (changed, cleared []Range) {
	cuts := []int64{lo, hi}
	for _, list := range [][]extent{now, then} {
		for _, e := range list {
			cuts = append(cuts, max(e.Offset, lo), min(e.Offset+e.Size, hi))
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	add := func(list *[]Range, a, b int64) {
		if k := len(*list); k > 0 && (*list)[k-1].End+1 == a {
			(*list)[k-1].End = b
			return
		}
		*list = append(*list, Range{Start: a, End: b})
	}
	i, j := 0, 0
	for c := 0; c+1 < len(cuts); c++ {
		a, b := cuts[c], cuts[c+1]
		for i < len(now) && now[i].Offset+now[i].Size <= a {
			i++
		}
		for j < len(then) && then[j].Offset+then[j].Size <= a {
			j++
		}
		cur := i < len(now) && now[i].Offset <= a
		old := j < len(then) && then[j].Offset <= a
		switch {
		case cur && (!old || now[i].Data != then[j].Data || now[i].Offset-now[i].DataOff != then[j].Offset-then[j].DataOff):
			add(&changed, a, b-1)
		case !cur && old:
			add(&cleared, a, b-1)
		}
	}
	return changed, cleared
}
