package file

import (
	"encoding/xml"
	"net/http"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// parseQuota reads x-ms-share-quota (GiB); 0 when absent.
func parseQuota(h http.Header) (int, error) {
	v := h.Get("X-Ms-Share-Quota")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxQuota {
		return 0, azerr.InvalidHeaderValue("x-ms-share-quota", v).WithMessage("x-ms-share-quota must be 1 to %d (GiB).", MaxQuota)
	}
	return n, nil
}

// parseTier reads x-ms-access-tier: "" when absent, else one of
// AccessTiers in Azure's spelling.
func parseTier(h http.Header) (string, error) {
	v := h.Get("X-Ms-Access-Tier")
	if v == "" {
		return "", nil
	}
	for _, t := range AccessTiers {
		if strings.EqualFold(v, t) {
			return t, nil
		}
	}
	return "", azerr.InvalidHeaderValue("x-ms-access-tier", v).WithMessage("x-ms-access-tier must be TransactionOptimized, Hot or Cool on a standard storage account.")
}

func writeShare(h http.Header, sh *Share) {
	h.Set("Etag", azhttp.ETag(sh.Version))
	h.Set("Last-Modified", azhttp.HTTPTime(sh.Modified))
}

func (h *handler) createShare(q *request) error {
	quota, err := parseQuota(q.r.Header)
	if err != nil {
		return err
	}
	protocol, nfs, err := parseShareProtocol(q.r.Header)
	if err != nil {
		return err
	}
	meta, err := azhttp.ParseMetadata(q.r.Header)
	if err != nil {
		return err
	}
	tier, err := parseTier(q.r.Header)
	if err != nil {
		return err
	}
	sh, err := h.svc.CreateShare(q.ctx(), q.shareRef(), ShareSpec{Quota: quota, AccessTier: tier, Metadata: meta, Protocol: protocol, NFS: nfs})
	if err != nil {
		return err
	}
	writeShare(q.w.Header(), sh)
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}

func (h *handler) getShareProperties(q *request) error {
	sh, err := h.svc.GetShare(q.ctx(), q.readShareRef(), q.r.Header.Get("X-Ms-Lease-Id"))
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	writeShare(hdr, sh)
	hdr.Set("X-Ms-Share-Quota", strconv.Itoa(sh.Quota))
	// Shares take neither immutability policies nor legal holds, and Azure
	// says so (the Go SDK's recordings at 2018-03-28, the JavaScript SDK's
	// at 2020-02-10).
	hdr.Set("X-Ms-Has-Immutability-Policy", "false")
	hdr.Set("X-Ms-Has-Legal-Hold", "false")
	if q.since(shareTierVersion) {
		tier, changed := sh.tier()
		hdr.Set("X-Ms-Access-Tier", tier)
		hdr.Set("X-Ms-Access-Tier-Change-Time", azhttp.HTTPTime(changed))
	}
	if q.since(shareLeaseVersion) {
		writeShareProtocol(hdr, sh)
		azhttp.WriteLeaseState(hdr, sh.Lease, h.svc.clock())
	}
	if q.since(smbDirectoryLeaseVersion) && sh.NFS == nil && !q.q.Has("sharesnapshot") {
		// SMB directory leasing, on unless a share turns it off, which no
		// request here can (@azure/storage-file-share's recordings
		// setQuota, setMetadata: a share's answer carries it, its
		// snapshot's does not).
		hdr.Set("X-Ms-Enable-Smb-Directory-Lease", "true")
	}
	azhttp.WriteMetadata(hdr, sh.Metadata)
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

func (h *handler) setShareMetadata(q *request) error {
	meta, err := azhttp.ParseMetadata(q.r.Header)
	if err != nil {
		return err
	}
	sh, err := h.svc.SetShareMetadata(q.ctx(), q.shareRef(), meta, q.r.Header.Get("X-Ms-Lease-Id"))
	if err != nil {
		return err
	}
	writeShare(q.w.Header(), sh)
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

// setShareProperties changes the quota, the access tier and an NFS
// share's settings; the others (provisioning) answer 501.
func (h *handler) setShareProperties(q *request) error {
	for _, name := range []string{"x-ms-share-paid-bursting-enabled", "x-ms-share-provisioned-iops", "x-ms-share-provisioned-bandwidth-mibps"} {
		if q.r.Header.Get(name) != "" {
			return azerr.ErrNotImplemented.WithMessage("Set Share Properties with %s is not supported by this server yet.", name)
		}
	}
	quota, err := parseQuota(q.r.Header)
	if err != nil {
		return err
	}
	tier, err := parseTier(q.r.Header)
	if err != nil {
		return err
	}
	nfs, err := parseShareNFS(q.r.Header)
	if err != nil {
		return err
	}
	sh, err := h.svc.SetShareProperties(q.ctx(), q.shareRef(), SharePropertiesOptions{Quota: quota, Tier: tier, LeaseID: q.r.Header.Get("X-Ms-Lease-Id"), NFS: nfs})
	if err != nil {
		return err
	}
	writeShare(q.w.Header(), sh)
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

func (h *handler) deleteShare(q *request) error {
	var err error
	// The share's own lease guards it; include refuses to delete a
	// snapshot holding a lease, include-leased deletes it too.
	leaseID := q.r.Header.Get("X-Ms-Lease-Id")
	switch v := q.r.Header.Get("X-Ms-Delete-Snapshots"); {
	case v == "" || q.snapshot != "":
		err = h.svc.DeleteShare(q.ctx(), q.readShareRef(), leaseID)
	case v == "include" || v == "include-leased":
		err = h.svc.DeleteShareWithSnapshots(q.ctx(), q.shareRef(), DeleteSnapshotsOptions{LeaseID: leaseID, IncludeLeased: v == "include-leased"})
	default:
		return azerr.InvalidHeaderValue("x-ms-delete-snapshots", v)
	}
	if err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusAccepted)
}

type shareListXML struct {
	XMLName         xml.Name `xml:"EnumerationResults"`
	ServiceEndpoint string   `xml:"ServiceEndpoint,attr"`
	Prefix          string   `xml:"Prefix,omitempty"`
	Marker          string   `xml:"Marker,omitempty"`
	MaxResults      int      `xml:"MaxResults,omitempty"`
	Shares          struct {
		Items []shareXML `xml:"Share"`
	} `xml:"Shares"`
	NextMarker string `xml:"NextMarker"`
}

// shareXML is one List Shares entry, its elements in Azure's order.
// From 2020-02-10 an entry carries the share's lease and encryption
// scope, and no EnabledProtocols on an account of SMB shares (the .NET
// SDK's ListSharesSegmentAsync_AccessTier at 2020-02-10; the Go, Java
// and Python SDKs' listings up to 2025-05-05 alike). A soft-deleted
// share is marked Deleted, with its Version, and says when it was
// deleted and how many days it stays restorable (the Java SDK's
// FileServiceApiTests.restoreShareMin).
type shareXML struct {
	Name       string `xml:"Name"`
	Snapshot   string `xml:"Snapshot,omitempty"`
	Deleted    bool   `xml:"Deleted,omitempty"`
	Version    string `xml:"Version,omitempty"`
	Properties struct {
		LastModified     string `xml:"Last-Modified"`
		Etag             string `xml:"Etag"`
		LeaseStatus      string `xml:"LeaseStatus,omitempty"`
		LeaseState       string `xml:"LeaseState,omitempty"`
		LeaseDuration    string `xml:"LeaseDuration,omitempty"`
		Quota            int    `xml:"Quota"`
		AccessTier       string `xml:"AccessTier,omitempty"`
		TierChanged      string `xml:"AccessTierChangeTime,omitempty"`
		EncryptionScope  string `xml:"DefaultEncryptionScope,omitempty"`
		DenyScopeOveride string `xml:"DenyEncryptionScopeOverride,omitempty"`
		Protocols        string `xml:"EnabledProtocols,omitempty"`
		RootSquash       string `xml:"RootSquash,omitempty"`
		SnapshotDir      string `xml:"EnableSnapshotVirtualDirectoryAccess,omitempty"`
		DeletedTime      string `xml:"DeletedTime,omitempty"`
		RemainingDays    *int   `xml:"RemainingRetentionDays,omitempty"`
	} `xml:"Properties"`
	Metadata *azhttp.MetadataXML `xml:"Metadata,omitempty"`
}

// accountEncryptionScope is the encryption scope every share has: the
// account's key (Azure lists it for each share).
const accountEncryptionScope = "$account-encryption-key"

func (h *handler) listShares(q *request) error {
	max, err := azhttp.MaxResults(q.q)
	if err != nil {
		return err
	}
	inc := includes(q.q.Get("include"))
	prefix, marker := q.q.Get("prefix"), q.q.Get("marker")
	var list []ShareItem
	var next string
	switch {
	case inc["deleted"]:
		list, next, err = h.svc.ListSharesWithDeleted(q.ctx(), q.acct, ListSharesOptions{Prefix: prefix, Marker: marker, Max: max, Snapshots: inc["snapshots"]})
	case inc["snapshots"]:
		list, next, err = h.svc.ListSharesAndSnapshots(q.ctx(), q.acct, prefix, marker, max)
	default:
		list, next, err = h.svc.ListShares(q.ctx(), q.acct, prefix, marker, max)
	}
	if err != nil {
		return err
	}
	doc := shareListXML{ServiceEndpoint: serviceEndpoint(q), Prefix: prefix, Marker: marker, NextMarker: next}
	if q.q.Has("maxresults") {
		doc.MaxResults = max
	}
	doc.Shares.Items = make([]shareXML, 0, len(list))
	now := h.svc.clock()
	tiers, leases := q.since(shareTierVersion), q.since(shareLeaseVersion)
	for _, s := range list {
		x := shareXML{Name: s.Name, Snapshot: s.Snapshot}
		x.Properties.LastModified = azhttp.HTTPTime(s.Modified)
		x.Properties.Etag = azhttp.ETag(s.Version)
		x.Properties.Quota = s.Quota
		if tiers {
			tier, changed := s.tier()
			x.Properties.AccessTier, x.Properties.TierChanged = tier, azhttp.HTTPTime(changed)
		}
		if leases {
			if s.NFS != nil {
				// Listed for an NFS share only: SMB shares' entries carry no
				// EnabledProtocols from 2020-02-10 on (every SDK's recording).
				x.Properties.Protocols, x.Properties.RootSquash, x.Properties.SnapshotDir = shareProtocolXML(s.Share)
			}
			x.Properties.LeaseStatus, x.Properties.LeaseState = s.Lease.Status(now), s.Lease.At(now).State.String()
			x.Properties.LeaseDuration = s.Lease.DurationType(now)
			x.Properties.EncryptionScope, x.Properties.DenyScopeOveride = accountEncryptionScope, "false"
		}
		if d := s.Deleted; d != nil {
			// A deleted share's lease reads as broken (the Go, Java and
			// Python SDKs' listings of deleted shares).
			left := d.RemainingDays(now)
			x.Deleted, x.Version = true, d.Version
			if leases {
				x.Properties.LeaseStatus, x.Properties.LeaseState, x.Properties.LeaseDuration = "unlocked", "broken", ""
			}
			x.Properties.DeletedTime, x.Properties.RemainingDays = azhttp.HTTPTime(d.Time), &left
		}
		if inc["metadata"] {
			m := azhttp.MetadataXML(s.Metadata)
			x.Metadata = &m
		}
		doc.Shares.Items = append(doc.Shares.Items, x)
	}
	return azhttp.WriteXML(q.w, http.StatusOK, doc)
}

// restoreShare serves Restore Share (comp=undelete): the share the URL
// names comes back from its deleted version x-ms-deleted-share-version.
// Both headers are required (the Go SDK's TestShareRestoreFailures sends
// an empty version: MissingRequiredHeader naming it).
func (h *handler) restoreShare(q *request) error {
	name := q.r.Header.Get("X-Ms-Deleted-Share-Name")
	if name == "" {
		return azerr.MissingRequiredHeader("x-ms-deleted-share-name")
	}
	version := q.r.Header.Get("X-Ms-Deleted-Share-Version")
	if version == "" {
		return azerr.MissingRequiredHeader("x-ms-deleted-share-version")
	}
	if name != q.share {
		return azerr.ErrNotImplemented.WithMessage("Restoring a deleted share under another name is not supported by this server.")
	}
	sh, err := h.svc.RestoreShare(q.ctx(), q.acct, name, version)
	if err != nil {
		return err
	}
	writeShare(q.w.Header(), sh)
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}

func (h *handler) getServiceProperties(q *request) error {
	return h.props.ServeGet(q.w, q.r, q.acct)
}

func (h *handler) setServiceProperties(q *request) error {
	return h.props.ServeSet(q.w, q.r, q.acct)
}
