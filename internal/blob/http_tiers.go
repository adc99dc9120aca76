package blob

import (
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// setBlobTier serves Set Blob Tier: 200 when the tier changed, 202 when a
// rehydration out of Archive is pending.
func (h *handler) setBlobTier(q *request) error {
	tier, err := ParseTier("x-ms-access-tier", q.r.Header.Get("X-Ms-Access-Tier"))
	if err != nil {
		return err
	}
	priority := q.r.Header.Get("X-Ms-Rehydrate-Priority")
	switch priority {
	case "", "Standard", "High":
	default:
		return azerr.InvalidHeaderValue("x-ms-rehydrate-priority", priority)
	}
	accepted, err := h.svc.SetBlobTier(q.ctx(), q.snapshotRef(), tier, SetBlobTierOptions{Priority: priority, LeaseID: q.r.Header.Get("X-Ms-Lease-Id")})
	if err != nil {
		return err
	}
	if accepted {
		return azhttp.WriteEmpty(q.w, http.StatusAccepted)
	}
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

// uploadTier reads x-ms-access-tier of an upload into headers; only block
// blobs take one.
func uploadTier(q *request, typ string, headers *ContentHeaders) error {
	v := q.r.Header.Get("X-Ms-Access-Tier")
	if v == "" {
		return nil
	}
	tier, err := ParseTier("x-ms-access-tier", v)
	if err != nil {
		return err
	}
	if typ != blockBlob {
		return azerr.ErrInvalidBlobTier
	}
	headers.Tier = tier
	return nil
}

// writeTierHeaders sets Get Blob Properties' tier headers.
func writeTierHeaders(hdr http.Header, b *Blob) {
	r, ok := b.tierReport()
	if !ok {
		return
	}
	hdr.Set("X-Ms-Access-Tier", r.Tier)
	if r.Inferred {
		hdr.Set("X-Ms-Access-Tier-Inferred", "true")
	} else {
		hdr.Set("X-Ms-Access-Tier-Change-Time", azhttp.HTTPTime(r.Changed))
	}
	if r.SmartTier != "" {
		hdr.Set("X-Ms-Smart-Access-Tier", r.SmartTier)
	}
	if r.ArchiveStatus != "" {
		hdr.Set("X-Ms-Archive-Status", r.ArchiveStatus)
		hdr.Set("X-Ms-Rehydrate-Priority", r.RehydratePriority)
	}
}

// tierXML fills a listing entry's tier properties.
func tierXML(p *blobPropertiesXML, b *Blob) {
	r, ok := b.tierReport()
	if !ok {
		return
	}
	p.AccessTier, p.AccessTierInferred = r.Tier, r.Inferred
	if !r.Inferred {
		p.AccessTierChangeTime = azhttp.HTTPTime(r.Changed)
	}
	p.ArchiveStatus, p.RehydratePriority = r.ArchiveStatus, r.RehydratePriority
	p.SmartAccessTier = r.SmartTier
}
