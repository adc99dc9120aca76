package file

import (
	"context"
	"io"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/extentstore"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// MaxPutRange is the most one Put Range writes: 4 MiB.
const MaxPutRange = 4 << 20

// Content is a Put Range body as it arrives: Length bytes to be read from
// Body, and the MD5 and CRC64 the client says they have (nil when it sent
// none).
type Content struct {
	Body   io.Reader
	Length int64
	MD5    []byte
	// CRC64 is x-ms-content-crc64: 8 bytes, little endian, Azure's
	// polynomial.
	CRC64 []byte
	// KeepLastWriteTime is x-ms-file-last-write-time: preserve; the write
	// otherwise sets the file's last write time to its own time.
	KeepLastWriteTime bool
}

// Written is what a Put Range reports.
type Written struct {
	File *Node
	// ContentMD5 is the MD5 of the bytes received; Azure echoes it back.
	ContentMD5 []byte
	// ContentCRC64 is the CRC64 of the bytes received, computed only when
	// the client sent one to verify (Azure then echoes it back).
	ContentCRC64 []byte
}

// PutRange writes c's content at offset of a file, after verifying c.MD5
// and c.CRC64.
// The range must lie within the file's size.
func (s *Service) PutRange(ctx context.Context, ref Ref, offset int64, c Content, pre Preconditions) (*Written, error) {
	acct, share, path := ref.Account, ref.Share, ref.Path
	if c.Length < 1 || c.Length > MaxPutRange {
		return nil, azerr.ErrOutOfRangeInput.WithMessage("A Put Range writes 1 byte to 4 MiB.")
	}
	s.breakCaching(ctx, ref, true)
	// The content store reads and verifies the bytes; they are written
	// by the transaction that finds the file.
	data, sums, err := extentstore.Upload{Body: c.Body, Length: c.Length, MD5: c.MD5, CRC64: c.CRC64}.Read()
	if err != nil {
		return nil, err
	}
	var out *Node
	err = s.Update(ctx, func(t *Tx) error {
		var err error
		out, err = t.writeRange(acct, share, path, offset, offset+int64(len(data)), rangeData{b: data, owned: true}, c.KeepLastWriteTime, pre)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &Written{File: out, ContentMD5: sums.MD5, ContentCRC64: sums.CRC64}, nil
}

// PutRange writes data at offset of a file inside t's transaction.
func (t *Tx) PutRange(ref Ref, offset int64, data []byte, pre Preconditions) (*Node, error) {
	acct, share, path := ref.Account, ref.Share, ref.Path
	return t.writeRange(acct, share, path, offset, offset+int64(len(data)), rangeData{b: data}, false, pre)
}

// ClearRange clears bytes [start, end] of a file: they read as zeros and
// no longer count as written.
func (s *Service) ClearRange(ctx context.Context, ref Ref, start, end int64, pre Preconditions) (*Node, error) {
	s.breakCaching(ctx, ref, true)
	acct, share, path := ref.Account, ref.Share, ref.Path
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Node, error) {
		return t.writeRange(acct, share, path, start, end+1, rangeData{}, false, pre)
	})
}

// rangeData is the bytes a range write stores. owned says that nothing
// changes them once written (an upload's own buffer), so the transaction
// keeps them instead of a copy (kv.InsertOwned).
type rangeData struct {
	b     []byte
	owned bool
}

// writeRange replaces [from, to) of a file with data, or clears it when
// data holds nil; it sets the file's last write time unless keepLastWrite.
func (t *Tx) writeRange(acct, share, path string, from, to int64, data rangeData, keepLastWrite bool, pre Preconditions) (*Node, error) {
	return t.updateLocated(acct, share, path, false, pre, useWrite, func(l *located) error {
		n := l.node
		if from < 0 || to <= from || to > n.Size {
			return azerr.ErrInvalidRange
		}
		// FileREST's rule: a Put Range needs write access to the entire
		// file. A write through an SMB handle meets only the locks on its
		// range (CheckRange) and must not come through here. Every lock
		// is held through a handle open on the file, so with none open
		// there is none to read; a handle opened meanwhile conflicts with
		// the read of the handles.
		if !l.unopened {
			if err := t.restWriteWhole(acct, share, n.ID); err != nil {
				return err
			}
		}
		if err := cutRange(t.tx, acct, share, n.ID, from, to); err != nil {
			return err
		}
		if !keepLastWrite {
			n.SMB.LastWriteTime = t.now
		}
		n.Copy = nil // the file no longer is what the copy made it
		id, err := t.newID()
		if err != nil {
			return err
		}
		if data.b == nil {
			return t.markClear(acct, share, n.ID, id, from, to)
		}
		write := objects.Write
		if data.owned {
			write = objects.WriteOwned
		}
		if err := write(t.tx, dataOwner(acct, share, n.ID), id, data.b); err != nil {
			return err
		}
		return putCutExtent(t.tx, acct, share, n.ID, extent{Data: id, Offset: from, Size: to - from, DataSize: to - from})
	})
}

// putCutExtent stores e where cutRange has just cut [e.Offset,
// e.Offset+e.Size): its key, the range's end, holds nothing now (an
// extent ending there overlapped the range and was cut), which it says
// (kv.Insert) so that a store counting stored bytes does not look.
func putCutExtent(tx kv.Txn, acct, share string, file uint64, e extent) error {
	return kv.Insert(tx, extentKey(acct, share, file, e.Offset+e.Size), record.Encode(e))
}

// overlapping returns the extents of a file that overlap [from, to), in
// offset order.
func overlapping(r kv.Reader, acct, share string, file uint64, from, to int64) ([]extent, error) {
	return extentstore.Overlapping[extent](r, extentsPrefix(acct, share, file), from, to)
}

// cutRange removes [from, to) from a file's extents, keeping the parts of
// overlapping extents outside it, and deletes data objects that nothing,
// no snapshot either, references any more.
func cutRange(tx kv.Txn, acct, share string, file uint64, from, to int64) error {
	dropped, err := extentstore.Cut[extent](tx, extentsPrefix(acct, share, file), from, to)
	if err != nil {
		return err
	}
	unreferenced := make(map[uint64]int64, len(dropped))
	for data, e := range dropped {
		// A piece may survive in the file, or a snapshot may hold it.
		// Every piece lies within the range the object was written to:
		// when the cut covered all of it, none survives in the file.
		var referenced bool
		if origin := e.Offset - e.DataOff; origin >= from && origin+e.DataSize <= to {
			referenced, err = isHeld(tx, acct, share, file, data)
		} else {
			referenced, err = dataInUse(tx, acct, share, file, data, origin, e.DataSize)
		}
		if err != nil {
			return err
		}
		if !referenced {
			unreferenced[data] = e.DataSize
		}
	}
	return objects.FreeSized(tx, dataOwner(acct, share, file), unreferenced)
}

// Range is an inclusive byte range of a file.
type Range = azhttp.ByteRange

// window is the half-open [lo, hi) of a file of the given size that an
// optional range asks about: all of it when r is nil, and never past
// size.
func window(r *Range, size int64) (lo, hi int64) {
	if r == nil {
		return 0, size
	}
	if r.End >= 0 {
		size = min(size, r.End+1)
	}
	return r.Start, size
}

// RangeList is List Ranges' answer.
type RangeList struct {
	File   *Node
	Ranges []Range
}

// ListRanges lists the written ranges of a file within [rng.Start,
// rng.End] (the whole file when rng is nil), adjacent ones merged.
func (s *Service) ListRanges(ctx context.Context, ref Ref, rng *Range, pre Preconditions) (*RangeList, error) {
	acct, share := ref.Account, ref.Share
	out := &RangeList{}
	err := s.view(ctx, func(t *Tx) error {
		n, err := t.GetFileProperties(ref, pre)
		if err != nil {
			return err
		}
		if err := t.checkUse(acct, share, n, useRead); err != nil {
			return err
		}
		out.File = n
		lo, hi := window(rng, n.Size)
		if lo >= hi {
			return nil
		}
		ext, err := overlapping(t.r, acct, share, n.ID, lo, hi)
		if err != nil {
			return err
		}
		for _, e := range ext {
			out.Ranges = addPages(out.Ranges, e.Offset, e.Offset+e.Size, lo, hi)
		}
		return nil
	})
	return out, err
}

// rangePage is the unit in which Azure Files tracks written and cleared
// bytes: List Ranges names whole 512-byte pages, cut at the file's end
// (@azure/storage-file-share's recordings getRangeList: bytes 0-9 written,
// 1-8 cleared, one range 0-9; getRangeListDiff: 0-4 written before the
// snapshot, 0-1023 cleared and 1023-1027 written after it, ClearRange
// 0-511 and Range 512-1535).
const rangePage = 512

// addPages adds to rs, sorted and merged, the pages that hold bytes
// [from, to), cut to [lo, hi).
func addPages(rs []Range, from, to, lo, hi int64) []Range {
	a := max(from/rangePage*rangePage, lo)
	b := min((to+rangePage-1)/rangePage*rangePage, hi) - 1
	if a > b {
		return rs
	}
	if k := len(rs); k > 0 && rs[k-1].End+1 >= a {
		rs[k-1].End = max(rs[k-1].End, b)
		return rs
	}
	return append(rs, Range{Start: a, End: b})
}

// pagedDiff is a diff's changed and cleared byte ranges as the pages
// they touch, cut to [lo, hi): a page with new bytes is changed, one
// only cleared is cleared.
func pagedDiff(changed, cleared []Range, lo, hi int64) (ch, cl []Range) {
	for _, r := range changed {
		ch = addPages(ch, r.Start, r.End+1, lo, hi)
	}
	var pages []Range
	for _, r := range cleared {
		pages = addPages(pages, r.Start, r.End+1, lo, hi)
	}
	for _, r := range pages {
		cl = append(cl, subtract(r, ch)...)
	}
	return ch, cl
}

// subtract is r without the sorted ranges of by.
func subtract(r Range, by []Range) []Range {
	var out []Range
	for _, c := range by {
		if c.End < r.Start || c.Start > r.End {
			continue
		}
		if c.Start > r.Start {
			out = append(out, Range{Start: r.Start, End: c.Start - 1})
		}
		r.Start = c.End + 1
		if r.Start > r.End {
			return out
		}
	}
	return append(out, r)
}

// Download is a file, or a range of it, ready to be streamed from one
// snapshot.
type Download struct {
	File           *Node
	Offset, Length int64
	Ranged         bool // a range was asked for

	r         kv.Reader
	acct, shr string
	extents   []extent
}

// GetFile reads a file (bytes [o.Range.Start, o.Range.End] of it when o.Range is
// not nil; End < 0 means to the end) and hands it to send, which runs on the
// snapshot the properties were read from.
func (s *Service) GetFile(ctx context.Context, ref Ref, o GetFileOptions, send func(*Download) error) error {
	s.breakCaching(ctx, ref, false)
	acct, share, rng, pre := ref.Account, ref.Share, o.Range, o.Conditions
	return s.view(ctx, func(t *Tx) error {
		n, err := t.GetFileProperties(ref, pre)
		if err != nil {
			return err
		}
		if err := t.checkUse(acct, share, n, useRead); err != nil {
			return err
		}
		d := &Download{File: n, Length: n.Size, r: t.r, acct: acct, shr: share}
		if rng != nil {
			if rng.Start >= n.Size {
				return azerr.ErrInvalidRange
			}
			end := n.Size - 1
			if rng.End >= 0 && rng.End < end {
				end = rng.End
			}
			d.Offset, d.Length, d.Ranged = rng.Start, end-rng.Start+1, true
		}
		if err := t.restRead(acct, share, n.ID, d.Offset, d.Offset+d.Length); err != nil {
			return err
		}
		if d.Length > 0 {
			if d.extents, err = overlapping(t.r, acct, share, n.ID, d.Offset, d.Offset+d.Length); err != nil {
				return err
			}
		}
		return send(d)
	})
}

// Stream writes the download's bytes to w; unwritten bytes read as zeros.
func (d *Download) Stream(w io.Writer) error {
	return extentstore.Stream(objects, d.r, dataOwner(d.acct, d.shr, d.File.ID), d.extents, d.Offset, d.Length, w)
}
