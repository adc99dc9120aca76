package file

import (
	"encoding/xml"
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

type shareStatsXML struct {
	XMLName         xml.Name `xml:"ShareStats"`
	ShareUsageBytes int64    `xml:"ShareUsageBytes"`
}

func (h *handler) getShareStats(q *request) error {
	st, err := h.svc.GetShareStats(q.ctx(), q.shareRef(), q.r.Header.Get("X-Ms-Lease-Id"))
	if err != nil {
		return err
	}
	writeShare(q.w.Header(), st.Share)
	return azhttp.WriteXML(q.w, http.StatusOK, shareStatsXML{ShareUsageBytes: st.UsageBytes})
}
