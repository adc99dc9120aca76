package file

import (
	"encoding/xml"
	"net/http"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

func (h *handler) createDirectory(q *request) error {
	if q.path == "" {
		return azerr.ErrResourceAlreadyExists.WithMessage("The share's root directory always exists.")
	}
	smb, err := parseSMB(q.r.Header, true)
	if err != nil {
		return err
	}
	meta, err := azhttp.ParseMetadata(q.r.Header)
	if err != nil {
		return err
	}
	n, err := h.svc.CreateDirectory(q.ctx(), q.ref(), smb, meta)
	if err != nil {
		return err
	}
	writeNode(q.w.Header(), n)
	nfsDetails(q.w.Header(), n, true, false)
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}

func (h *handler) getDirectoryProperties(q *request) error {
	n, err := h.svc.GetDirectory(q.ctx(), q.readRef(), preconditions(q.r.Header))
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	writeNode(hdr, n)
	nfsDetails(hdr, n, true, false)
	hdr.Set("X-Ms-Server-Encrypted", strconv.FormatBool(!n.MetadataCleared))
	azhttp.WriteMetadata(hdr, n.Metadata)
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

func (h *handler) setDirectoryMetadata(q *request) error {
	meta, err := azhttp.ParseMetadata(q.r.Header)
	if err != nil {
		return err
	}
	n, err := h.svc.SetDirectoryMetadata(q.ctx(), q.ref(), meta, preconditions(q.r.Header))
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	hdr.Set("Etag", azhttp.ETag(n.Version))
	hdr.Set("Last-Modified", azhttp.HTTPTime(n.Modified))
	hdr.Set("X-Ms-Request-Server-Encrypted", "true")
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

func (h *handler) deleteDirectory(q *request) error {
	if err := h.svc.DeleteDirectory(q.ctx(), q.ref(), preconditions(q.r.Header)); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusAccepted)
}

type listingXML struct {
	XMLName         xml.Name           `xml:"EnumerationResults"`
	ServiceEndpoint string             `xml:"ServiceEndpoint,attr"`
	ShareName       string             `xml:"ShareName,attr"`
	ShareSnapshot   string             `xml:"ShareSnapshot,attr,omitempty"`
	DirectoryPath   string             `xml:"DirectoryPath,attr"`
	Prefix          *azhttp.ListedName `xml:"Prefix,omitempty"`
	Marker          string             `xml:"Marker,omitempty"`
	MaxResults      int                `xml:"MaxResults,omitempty"`
	DirectoryID     string             `xml:"DirectoryId,omitempty"`
	Entries         struct {
		Items []any `xml:",any"`
	} `xml:"Entries"`
	NextMarker string `xml:"NextMarker"`
}

type entryXML struct {
	XMLName       xml.Name
	Name          azhttp.ListedName  `xml:"Name"`
	FileID        string             `xml:"FileId,omitempty"`
	Properties    entryPropertiesXML `xml:"Properties"`
	Attributes    string             `xml:"Attributes,omitempty"`
	PermissionKey string             `xml:"PermissionKey,omitempty"`
}

type entryPropertiesXML struct {
	ContentLength *int64 `xml:"Content-Length,omitempty"`
	CreationTime  string `xml:"CreationTime,omitempty"`
	// LastAccessTime is listed from listAccessTimeVersion on.
	LastAccessTime string `xml:"LastAccessTime,omitempty"`
	LastWriteTime  string `xml:"LastWriteTime,omitempty"`
	ChangeTime     string `xml:"ChangeTime,omitempty"`
	LastModified   string `xml:"Last-Modified,omitempty"`
	Etag           string `xml:"Etag,omitempty"`
}

func (h *handler) listDirectory(q *request) error {
	max, err := azhttp.MaxResults(q.q)
	if err != nil {
		return err
	}
	inc := includes(q.q.Get("include"))
	prefix, marker := q.q.Get("prefix"), q.q.Get("marker")
	l, err := h.svc.ListDirectory(q.ctx(), q.readRef(), ListDirectoryOptions{Prefix: prefix, Marker: decodeMarker(marker), Max: max})
	if err != nil {
		return err
	}
	// x-ms-file-extended-info asks for up-to-date sizes, which every
	// listing here has; the properties come only with include=
	// (azure-storage-file-share's recording
	// test_list_subdirectories_and_files_include_extended_info: FileId
	// and empty Properties).
	ids := q.since(listingIDVersion)
	doc := listingXML{ServiceEndpoint: serviceEndpoint(q), ShareName: q.share, ShareSnapshot: q.snapshot, DirectoryPath: q.path, Marker: marker,
		NextMarker: encodeMarker(l.NextMarker)}
	if prefix != "" {
		p := azhttp.NameForXML(prefix)
		doc.Prefix = &p
	}
	if ids {
		doc.DirectoryID = strconv.FormatUint(l.Directory.ID, 10)
	}
	if q.q.Has("maxresults") {
		doc.MaxResults = max
	}
	doc.Entries.Items = []any{}
	for _, e := range l.Entries {
		x := entryXML{XMLName: xml.Name{Local: "File"}, Name: azhttp.NameForXML(e.Name)}
		if ids {
			x.FileID = strconv.FormatUint(e.ID, 10)
		}
		if e.Dir {
			x.XMLName.Local = "Directory"
		} else {
			size := e.Size
			x.Properties.ContentLength = &size
		}
		if inc["timestamps"] {
			x.Properties.CreationTime = e.SMB.CreationTime.UTC().Format(smbTimeLayout)
			if q.since(listAccessTimeVersion) {
				// The time an SMB client set, else the creation time
				// (azure-storage-file-share's recording
				// test_list_subdirectories_and_files_include_other_data).
				at := e.SMB.LastAccessTime
				if at.IsZero() {
					at = e.SMB.CreationTime
				}
				x.Properties.LastAccessTime = at.UTC().Format(smbTimeLayout)
			}
			x.Properties.LastWriteTime = e.SMB.LastWriteTime.UTC().Format(smbTimeLayout)
			x.Properties.ChangeTime = e.SMB.ChangeTime.UTC().Format(smbTimeLayout)
			x.Properties.LastModified = azhttp.HTTPTime(e.Modified)
		}
		if inc["etag"] {
			x.Properties.Etag = azhttp.ETag(e.Version)
		}
		if inc["attributes"] {
			x.Attributes = e.SMB.Attributes
		}
		if inc["permissionkey"] && e.NFS == nil {
			x.PermissionKey = permissionKey(e.PermissionSDDL())
		}
		doc.Entries.Items = append(doc.Entries.Items, x)
	}
	return azhttp.WriteXML(q.w, http.StatusOK, doc)
}
