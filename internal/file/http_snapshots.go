package file

import (
	"encoding/xml"
	"net/http"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

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
	hdr.Set("X-Ms-Snapshot", snap)
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
		return azerr.InvalidQueryParameterValue("prevsharesnapshot", v, "")
	}
	renames := false
	if v := q.r.Header.Get("X-Ms-File-Support-Rename"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return azerr.InvalidHeaderValue("x-ms-file-support-rename", v)
		}
		renames = b
	}
	d, err := h.svc.ListRangesDiff(q.ctx(), q.readRef(), ListRangesDiffOptions{PrevSnapshot: prev, FollowRenames: renames, Range: rng, Conditions: preconditions(q.r.Header)})
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	hdr.Set("Etag", azhttp.ETag(d.File.Version))
	hdr.Set("Last-Modified", azhttp.HTTPTime(d.File.Modified))
	hdr.Set("X-Ms-Content-Length", strconv.FormatInt(d.File.Size, 10))
	return writeRangeDiff(q.w, d)
}
