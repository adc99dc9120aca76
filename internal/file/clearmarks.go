package file

import (
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Azure Files tracks, page by page, what changed since a share snapshot,
// not only what differs from it: a List Ranges against a previous
// snapshot names as a ClearRange every page cleared since, even one that
// held nothing at the snapshot and was written and cleared afterwards
// (azure-storage-file-share's recording
// test_file.py::test_list_ranges_diff: a snapshot of an empty file, bytes
// 0-1535 written, another snapshot, 512-1023 cleared; against the first
// snapshot Azure answers Range 0-511, ClearRange 512-1023, Range
// 1024-1535). Comparing the extents of the two namespaces cannot show a
// write the clear undid, so each Clear Range made while the share has
// snapshots leaves a clear mark: the range, under the file, in the share's
// namespace. A snapshot copies the marks with the namespace's other
// records, so the marks a namespace has and an earlier snapshot lacks are
// exactly the clears made since it.
const clearMarksTag = "c"

// clearMark is the record of one Clear Range made while the share had
// snapshots.
type clearMark struct {
	Offset, Size int64
}

// clearMarksPrefix covers the clear marks of a file in a share or
// snapshot namespace.
func clearMarksPrefix(acct, share string, file uint64) tuple.Key {
	return accountKey(acct).Raw(clearMarksTag).Str(share).Uint(file)
}

// markClear records that [from, to) of a file of a live share was
// cleared, when the share has snapshots to compare with later; id names
// the mark (unique to the write).
func (t *Tx) markClear(acct, share string, file, id uint64, from, to int64) error {
	snaps, err := snapshotList(t.r, acct, share)
	if err != nil || len(snaps) == 0 {
		return err
	}
	return kv.Insert(t.tx, clearMarksPrefix(acct, share, file).Uint(id), record.Encode(&clearMark{Offset: from, Size: to - from}))
}

// clearedSince are the ranges of a file cleared in namespace now since
// namespace then was its snapshot: the marks now has that then lacks, in
// no particular order.
func clearedSince(r kv.Reader, acct, now, then string, file uint64) ([]Range, error) {
	old := map[uint64]bool{}
	err := eachClearMark(r, acct, then, file, func(id uint64, _ clearMark) {
		old[id] = true
	})
	if err != nil {
		return nil, err
	}
	var out []Range
	err = eachClearMark(r, acct, now, file, func(id uint64, m clearMark) {
		if !old[id] {
			out = append(out, Range{Start: m.Offset, End: m.Offset + m.Size - 1})
		}
	})
	return out, err
}

func eachClearMark(r kv.Reader, acct, share string, file uint64, fn func(id uint64, m clearMark)) error {
	return record.Each(r, clearMarksPrefix(acct, share, file), func(rd *tuple.Reader, m *clearMark) error {
		id, err := rd.Uint()
		if err != nil {
			return err
		}
		fn(id, *m)
		return nil
	})
}

// dropClearMarks deletes a file's clear marks in a live share: its
// content is gone or replaced whole.
func dropClearMarks(tx kv.Txn, acct, share string, file uint64) error {
	p := clearMarksPrefix(acct, share, file)
	return tx.DeleteRange(p, kv.PrefixEnd(p))
}

// dropShareClearMarks deletes the clear marks of every file of a live
// share, once it has no snapshot left to compare with.
func dropShareClearMarks(tx kv.Txn, acct, share string) error {
	p := accountKey(acct).Raw(clearMarksTag).Str(share)
	return tx.DeleteRange(p, kv.PrefixEnd(p))
}
