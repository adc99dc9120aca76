package blob

import (
	"context"
	"slices"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/extentstore"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

const (
	pageSize        = 512
	maxPageBlobSize = 8 << 40
	// maxPutPage is the largest range one Put Page may write.
	maxPutPage = 4 << 20
)

// SequenceConditions are x-ms-if-sequence-number-le/-lt/-eq.
type SequenceConditions struct {
	LE, LT, EQ *int64
}

func (c SequenceConditions) check(seq int64) error {
	if (c.LE != nil && seq > *c.LE) || (c.LT != nil && seq >= *c.LT) || (c.EQ != nil && seq != *c.EQ) {
		return azerr.ErrSequenceNumberConditionNotMet
	}
	return nil
}

// PutPages writes c's content over the pages from start on of a page
// blob, verifying c.MD5 when given. start and c.Length are page-aligned.
func (s *Service) PutPages(ctx context.Context, ref Ref, start int64, c Content, o PageWriteOptions) (*Written, error) {
	acct, container, name, sc, pre := ref.Account, ref.Container, ref.Name, o.Sequence, o.Conditions
	var out *Blob
	w, err := s.upload(ctx, acct, container, name, c, func(t *Tx, p *payload) error {
		var err error
		out, err = t.writePages(acct, container, name, start, start+p.Size-1, p, sc, pre)
		return err
	})
	if err != nil {
		return nil, err
	}
	w.Blob = out
	return w, nil
}

// ClearPages clears the page range [start, end] of a page blob; both ends
// are page-aligned.
func (s *Service) ClearPages(ctx context.Context, ref Ref, start, end int64, o PageWriteOptions) (*Blob, error) {
	acct, container, name, sc, pre := ref.Account, ref.Container, ref.Name, o.Sequence, o.Conditions
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Blob, error) { return t.writePages(acct, container, name, start, end, nil, sc, pre) })
}

// writePages writes p over the page range [start, end], or clears the
// range when p is nil.
func (t *Tx) writePages(acct, container, name string, start, end int64, p *payload, sc SequenceConditions, pre Preconditions) (*Blob, error) {
	return t.updateBlob(acct, container, name, pre, func(b *Blob) error {
		if b.Type != pageBlob {
			return azerr.ErrInvalidBlobType
		}
		if err := sc.check(b.SequenceNumber); err != nil {
			return err
		}
		if end >= b.Size {
			return azerr.ErrInvalidPageRange
		}
		if err := cutPages(t.tx, acct, container, name, start, end+1); err != nil {
			return err
		}
		if p == nil {
			return nil
		}
		if err := p.Place(t.tx, t.tx.Version()); err != nil {
			return err
		}
		e := extent{Data: p.ID(), Offset: start, Size: p.Size}
		return record.Store(t.tx, extentSlot(acct, container, name, e), e)
	})
}

// cutPages removes [from, to) from a page blob's extents, keeping the parts
// of overlapping extents outside it and deleting data objects nothing
// references any more.
func cutPages(tx kv.Txn, acct, container, name string, from, to int64) error {
	dropped, err := extentstore.Cut[extent](tx, extentsPrefix(acct, container, name), from, to)
	if err != nil {
		return err
	}
	candidates := make(map[uint64]bool, len(dropped))
	for data := range dropped {
		candidates[data] = true
	}
	return dropUnreferenced(tx, acct, container, name, candidates, "", true)
}

// PageRange is an inclusive byte range of a page blob.
type PageRange struct{ Start, End int64 }

// PageList is Get Page Ranges' answer.
type PageList struct {
	Record *Blob
	Pages  []PageRange
	Clears []PageRange // only in a diff against a snapshot
}

// GetPageRanges lists the written ranges of a page blob (or snapshot),
// within o.Range when given; with o.PrevSnapshot, the ranges changed since that snapshot
// and the ranges cleared since.
func (s *Service) GetPageRanges(ctx context.Context, ref Ref, o GetPageRangesOptions) (*PageList, error) {
	acct, container, name, snapshot, prev, rng, pre := ref.Account, ref.Container, ref.Name, ref.Snapshot, o.PrevSnapshot, o.Range, o.Conditions
	out := &PageList{}
	err := s.view(ctx, func(t *Tx) error {
		r := t.r
		b, err := t.existingBlob(acct, container, name, snapshot, conditions.Read, pre)
		if err != nil {
			return err
		}
		if b.Type != pageBlob {
			return azerr.ErrInvalidBlobType
		}
		out.Record = b
		cur, err := loadExtentsAt(r, acct, container, name, snapshot)
		if err != nil {
			return err
		}
		var old []extent
		if prev != "" {
			pb, err := loadBlobAt(r, acct, container, name, prev)
			if err != nil {
				return err
			}
			if pb == nil {
				return azerr.ErrPreviousSnapshotNotFound
			}
			if old, err = loadExtentsAt(r, acct, container, name, prev); err != nil {
				return err
			}
		}
		// A range is widened to the pages it touches: Azure lists pages
		// 0-1023 for bytes 0-1022 (go-azblob-TestPutGetPages).
		lo, hi := int64(0), b.Size
		if rng != nil {
			lo = rng.Start / pageSize * pageSize
			if end := (rng.End/pageSize + 1) * pageSize; rng.End >= 0 && end < hi {
				hi = end
			}
		}
		out.Pages, out.Clears = diffPages(cur, old, prev != "", lo, hi)
		return nil
	})
	return out, err
}

// diffPages sweeps the two extent lists (sorted by offset) over [lo, hi).
// Without a previous snapshot it lists the written ranges; with one, the
// ranges whose content source differs and the ranges written before but
// not now.
func diffPages(cur, old []extent, diff bool, lo, hi int64) (pages, clears []PageRange) {
	add := func(list []PageRange, a, b int64) []PageRange {
		if n := len(list); n > 0 && list[n-1].End+1 == a {
			list[n-1].End = b - 1
			return list
		}
		return append(list, PageRange{a, b - 1})
	}
	// Elementary intervals between every extent boundary.
	points := []int64{lo, hi}
	for _, l := range [][]extent{cur, old} {
		for _, e := range l {
			points = append(points, e.Offset, e.Offset+e.Size)
		}
	}
	points = sortUnique(points, lo, hi)
	ci, oi := 0, 0
	for i := 0; i+1 < len(points); i++ {
		a, b := points[i], points[i+1]
		c := covering(cur, &ci, a)
		o := covering(old, &oi, a)
		switch {
		case c != nil && (!diff || o == nil || c.Data != o.Data || c.DataOff-c.Offset != o.DataOff-o.Offset):
			pages = add(pages, a, b)
		case c == nil && o != nil && diff:
			clears = add(clears, a, b)
		}
	}
	return pages, clears
}

// covering returns the extent of l that covers position a, advancing *i.
func covering(l []extent, i *int, a int64) *extent {
	for *i < len(l) && l[*i].Offset+l[*i].Size <= a {
		*i++
	}
	if *i < len(l) && l[*i].Offset <= a {
		return &l[*i]
	}
	return nil
}

func sortUnique(points []int64, lo, hi int64) []int64 {
	var in []int64
	for _, p := range points {
		if p >= lo && p <= hi {
			in = append(in, p)
		}
	}
	slices.Sort(in)
	out := in[:0]
	for i, p := range in {
		if i == 0 || p != in[i-1] {
			out = append(out, p)
		}
	}
	return out
}

// ResizePageBlob changes a page blob's size; pages beyond a smaller size
// are dropped.
func resizePages(tx kv.Txn, acct, container, name string, b *Blob, size int64) error {
	if size < b.Size {
		if err := cutPages(tx, acct, container, name, size, b.Size); err != nil {
			return err
		}
	}
	b.Size = size
	return nil
}
