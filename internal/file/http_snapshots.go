package file

import (
	"encoding/xml"
	"net/http"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// routeSnapshot routes a request that names a share snapshot
// (?sharesnapshot=). A snapshot is read-only: the reads Azure serves on
// one run against its namespace, and Delete Share deletes it; any write
// answers ShareSnapshotOperationNotSupported.
func routeSnapshot(q *request, restype, comp string) (operation, error) {
	v := q.q.Get("sharesnapshot")
	snap, ok := ParseSnapshot(v)
	if !ok {
		return operation{}, azhttp.InvalidQueryParameterValue("sharesnapshot", v, "")
	}
	q.snapshot = snap
	m := q.r.Method
	read := m == http.MethodGet || m == http.MethodHead
	switch {
	case restype == "share" && q.path == "" && (comp == "" || comp == "metadata") && read:
		return operation{shareNeed(need('c', 'r')), (*handler).getShareProperties}, nil
	case restype == "share" && q.path == "" && comp == "" && m == http.MethodDelete:
		return operation{shareNeed(need('c', 'd')), (*handler).deleteShare}, nil
	case restype == "directory" && comp == "" && read:
		return operation{need('o', 'r'), (*handler).getDirectoryProperties}, nil
	case restype == "directory" && comp == "list" && m == http.MethodGet:
		return operation{need('c', 'l'), (*handler).listDirectory}, nil
	case restype == "" && q.path != "" && comp == "" && m == http.MethodGet:
		return operation{need('o', 'r'), (*handler).getFile}, nil
	case restype == "" && q.path != "" && (comp == "" || comp == "metadata") && read:
		return operation{need('o', 'r'), (*handler).getFileProperties}, nil
	case restype == "" && q.path != "" && comp == "rangelist" && m == http.MethodGet:
		return operation{need('o', 'r'), (*handler).listRanges}, nil
	case !read:
		return operation{}, azhttp.ErrShareSnapshotOperationNotSupported
	}
	return operation{}, azhttp.ErrNotImplemented.WithMessage("This operation (restype=%q comp=%q) on a share snapshot is not supported by this server yet.", restype, comp)
}

func (h *handler) snapshotShare(q *request) error {
	meta, err := azhttp.ParseMetadata(q.r.Header)
	if err != nil {
		return err
	}
	snap, sh, err := h.svc.SnapshotShare(q.ctx(), q.shareRef(), meta)
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	writeShare(hdr, sh)
	hdr.Set("x-ms-snapshot", snap)
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}

// rangeDiffXML is List Ranges' answer against a previous snapshot: Range
// and ClearRange elements in offset order.
type rangeDiffXML struct {
	XMLName xml.Name `xml:"Ranges"`
	Items   []any    `xml:",any"`
}

type rangeItemXML struct {
	XMLName xml.Name
	Start   int64 `xml:"Start"`
	End     int64 `xml:"End"`
}

// writeRangeDiff writes a diff's ranges, changed and cleared interleaved
// by offset as Azure lists them.
func writeRangeDiff(w http.ResponseWriter, d *RangeDiff) error {
	doc := rangeDiffXML{Items: []any{}}
	i, j := 0, 0
	for i < len(d.Changed) || j < len(d.Cleared) {
		if j == len(d.Cleared) || i < len(d.Changed) && d.Changed[i].Start < d.Cleared[j].Start {
			doc.Items = append(doc.Items, rangeItemXML{xml.Name{Local: "Range"}, d.Changed[i].Start, d.Changed[i].End})
			i++
			continue
		}
		doc.Items = append(doc.Items, rangeItemXML{xml.Name{Local: "ClearRange"}, d.Cleared[j].Start, d.Cleared[j].End})
		j++
	}
	return azhttp.WriteXML(w, http.StatusOK, doc)
}

// listRangesDiff answers List Ranges with prevsharesnapshot.
func (h *handler) listRangesDiff(q *request, rng *Range) error {
	v := q.q.Get("prevsharesnapshot")
	prev, ok := ParseSnapshot(v)
	if !ok {
		return azhttp.InvalidQueryParameterValue("prevsharesnapshot", v, "")
	}
	renames := false
	if v := q.r.Header.Get("x-ms-file-support-rename"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return azhttp.InvalidHeaderValue("x-ms-file-support-rename", v)
		}
		renames = b
	}
	d, err := h.svc.ListRangesDiff(q.ctx(), q.readRef(), ListRangesDiffOptions{PrevSnapshot: prev, FollowRenames: renames, Range: rng, Conditions: preconditions(q.r.Header)})
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	hdr.Set("ETag", azhttp.ETag(d.File.Version))
	hdr.Set("Last-Modified", azhttp.HTTPTime(d.File.Modified))
	hdr.Set("x-ms-content-length", strconv.FormatInt(d.File.Size, 10))
	return writeRangeDiff(q.w, d)
}
