package blob

import (
	"net/http"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// serviceEndpoint is the account URL as the client addressed it (the
// secondary's for a request sent there).
func serviceEndpoint(q *request) string {
	addressed, _, _ := splitPath(q.r.URL.Path)
	return azhttp.AccountURL(q.r, addressed)
}

func publicAccess(h http.Header) (string, error) {
	switch v := h.Get("X-Ms-Blob-Public-Access"); v {
	case "", "container", "blob":
		return v, nil
	default:
		return "", azerr.InvalidHeaderValue("x-ms-blob-public-access", v)
	}
}

func writeContainerHeaders(h http.Header, c *Container) {
	h.Set("Etag", azhttp.ETag(c.Version))
	h.Set("Last-Modified", azhttp.HTTPTime(c.Modified))
}

func (h *handler) createContainer(q *request) error {
	meta, err := azhttp.ParseRequestMetadata(q.r)
	if err != nil {
		return err
	}
	access, err := publicAccess(q.r.Header)
	if err != nil {
		return err
	}
	var enc ContainerEncryption
	if enc.DefaultScope, enc.DenyOverride, err = containerEncryption(q.r.Header); err != nil {
		return err
	}
	c, err := h.svc.CreateContainerWithEncryption(q.ctx(), q.containerRef(), CreateContainerOptions{Metadata: meta, Access: access}, enc)
	if err != nil {
		return err
	}
	writeContainerHeaders(q.w.Header(), c)
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}

// immutableStorageVersion is the first x-ms-version whose Get Container
// Properties says whether version-level immutability is enabled (never,
// here): the Go SDK's recordings at 2020-10-02 carry the header
// (go-azblob-TestContainerCreateEmptyMetadata), those at 2018-03-28 not.
const immutableStorageVersion = "2020-06-12"

func (h *handler) getContainerProperties(q *request) error {
	c, err := h.readContainer(q)
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	writeContainerHeaders(hdr, c)
	azhttp.WriteMetadata(hdr, c.Metadata)
	if q.q.Get("comp") == "" {
		azhttp.WriteLeaseState(hdr, c.Lease, h.now())
		hdr.Set("X-Ms-Has-Immutability-Policy", "false")
		hdr.Set("X-Ms-Has-Legal-Hold", "false")
		if q.version() >= immutableStorageVersion {
			hdr.Set("X-Ms-Immutable-Storage-With-Versioning-Enabled", "false")
		}
		writeContainerEncryption(hdr, c)
		if c.PublicAccess != "" {
			hdr.Set("X-Ms-Blob-Public-Access", c.PublicAccess)
		}
	}
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

func (h *handler) deleteContainer(q *request) error {
	if err := h.svc.DeleteContainer(q.ctx(), q.containerRef(), preconditions(q.r.Header)); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusAccepted)
}

func (h *handler) setContainerMetadata(q *request) error {
	meta, err := azhttp.ParseRequestMetadata(q.r)
	if err != nil {
		return err
	}
	c, err := h.svc.SetContainerMetadata(q.ctx(), q.containerRef(), meta, preconditions(q.r.Header))
	if err != nil {
		return err
	}
	writeContainerHeaders(q.w.Header(), c)
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

// readContainer loads the container a read addresses: Get Container
// Properties, Metadata and ACL take x-ms-lease-id, which must name the
// container's active lease when sent (Java's recording
// ContainerApiTests.getAccessPolicyLeaseFail: 412
// LeaseNotPresentWithContainerOperation on an unleased container).
func (h *handler) readContainer(q *request) (*Container, error) {
	c, err := h.svc.GetContainer(q.ctx(), q.containerRef())
	if err != nil {
		return nil, err
	}
	if err := c.Lease.CheckUse(h.now(), q.r.Header.Get("X-Ms-Lease-Id"), false); err != nil {
		return nil, azerr.LeaseError(err, azerr.ContainerLeaseCodes)
	}
	return c, nil
}

func (h *handler) getContainerACL(q *request) error {
	c, err := h.readContainer(q)
	if err != nil {
		return err
	}
	writeContainerHeaders(q.w.Header(), c)
	if c.PublicAccess != "" {
		q.w.Header().Set("X-Ms-Blob-Public-Access", c.PublicAccess)
	}
	return azhttp.WriteSignedIdentifiers(q.w, c.ACL)
}

func (h *handler) setContainerACL(q *request) error {
	access, err := publicAccess(q.r.Header)
	if err != nil {
		return err
	}
	acl, err := azhttp.ParseSignedIdentifiers(q.r)
	if err != nil {
		return err
	}
	c, err := h.svc.SetContainerACL(q.ctx(), q.containerRef(), access, acl, preconditions(q.r.Header))
	if err != nil {
		return err
	}
	writeContainerHeaders(q.w.Header(), c)
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

func (h *handler) listContainers(q *request) error {
	max, err := azhttp.MaxResults(q.q)
	if err != nil {
		return err
	}
	prefix, marker := q.q.Get("prefix"), q.q.Get("marker")
	inc := includes(q.q.Get("include"))
	from, err := containerFromMarker(q.acct, marker)
	if err != nil {
		return err
	}
	list, next, err := h.svc.ListContainers(q.ctx(), q.acct, prefix, from, max)
	if inc["deleted"] {
		list, next, err = h.svc.ListContainersWithDeleted(q.ctx(), q.acct, prefix, from, max)
	}
	if err != nil {
		return err
	}
	withMeta := inc["metadata"]
	doc := containerListXML{ServiceEndpoint: serviceEndpoint(q), Prefix: prefix, Marker: marker, NextMarker: azhttp.AccountMarker(q.acct, next)}
	if q.q.Has("maxresults") {
		doc.MaxResults = max
	}
	doc.Containers.Items = make([]containerXML, 0, len(list))
	for _, c := range list {
		x := containerXML{Name: c.Name}
		x.Properties.LastModified = azhttp.HTTPTime(c.Modified)
		x.Properties.Etag = azhttp.ETag(c.Version)
		now := h.now()
		x.Properties.LeaseStatus, x.Properties.LeaseState = c.Lease.Status(now), c.Lease.At(now).State.String()
		x.Properties.LeaseDuration = c.Lease.DurationType(now)
		x.Properties.PublicAccess = c.PublicAccess
		x.Properties.DefaultEncryptionScope = c.defaultScope()
		x.Properties.DenyEncryptionScopeOverride = c.DenyEncryptionScopeOverride
		if q.version() >= immutableStorageVersion {
			// As Java's recording ServiceApiTests.listContainersMaxResults
			// (2023-08-03) lists it.
			x.Properties.ImmutableStorageWithVersioning = new(bool)
		}
		if withMeta {
			m := azhttp.MetadataXML(c.Metadata)
			x.Metadata = &m
		}
		if d := c.Deleted; d != nil {
			left := RemainingDays(&Blob{Purge: d.Purge}, now)
			x.Deleted, x.Version = true, d.Version
			// A deleted container is listed locked under a fixed lease
			// (@azure/storage-blob's recording restoreContainer).
			x.Properties.LeaseStatus, x.Properties.LeaseState, x.Properties.LeaseDuration = "locked", "leased", "fixed"
			x.Properties.DeletedTime, x.Properties.RemainingDays = azhttp.HTTPTime(d.Time), &left
		}
		doc.Containers.Items = append(doc.Containers.Items, x)
	}
	w := listingWriter{b: make([]byte, 0, 512+512*len(list))}
	w.containerList(&doc)
	return writeListing(q.w, w.b)
}

// permanentDeleteVersion is the first x-ms-version taken to list
// AllowPermanentDelete in the DeleteRetentionPolicy: the Go SDK's
// recordings at 2020-10-02 have it (false unless set,
// go-azblob-TestAccountDeleteRetentionPolicy), those at 2018-03-28 not
// (go-storage-StorageSuite-TestSetServiceProperties).
const permanentDeleteVersion = "2020-06-12"

func (h *handler) getServiceProperties(q *request) error {
	p, err := h.door.Props.Get(q.ctx(), q.acct)
	if err != nil {
		return err
	}
	if d := p.DeleteRetentionPolicy; d != nil && d.AllowPermanentDelete == nil && q.version() >= permanentDeleteVersion {
		withFlag := *d
		withFlag.AllowPermanentDelete = new(bool)
		p.DeleteRetentionPolicy = &withFlag
	}
	return azhttp.WriteXML(q.w, http.StatusOK, p)
}

func (h *handler) setServiceProperties(q *request) error {
	return h.door.Props.ServeSet(q.w, q.r, q.acct)
}

// getAccountInfo serves Get Account Information. The development account
// is read-access geo-redundant (it has a -secondary endpoint), a general
// purpose v2 account with a flat namespace, as Azurite reports it too.
func (h *handler) getAccountInfo(q *request) error {
	hdr := q.w.Header()
	hdr.Set("X-Ms-Sku-Name", "Standard_RAGRS")
	hdr.Set("X-Ms-Account-Kind", "StorageV2")
	hdr.Set("X-Ms-Is-Hns-Enabled", strconv.FormatBool(false))
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

// containerFromMarker reads a List Containers marker back into the name
// its page starts at: the azhttp.AccountMarker this server hands out, or
// a bare container name. Anything else is 400 OutOfRangeInput, as
// Azure answers a made-up marker (Java's recording
// ServiceApiTests.listContainersError).
func containerFromMarker(acct, marker string) (string, error) {
	if name, ok := azhttp.FromAccountMarker(acct, marker); ok {
		return name, nil
	}
	if marker == "" || validContainerName(marker) {
		return marker, nil
	}
	return "", azerr.ErrOutOfRangeInput
}
