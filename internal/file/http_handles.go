package file

import (
	"encoding/xml"
	"net/http"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// ownerOnly refuses List Handles and Force Close Handles to a SAS: Azure
// lets only the account owner call them.
func ownerOnly(q *request) error {
	if q.access.Kind != azauth.AccessSharedKey {
		return azerr.ErrAuthorizationFailure.WithMessage("%s\nOnly the account owner may call this operation.", azerr.ErrAuthorizationFailure.Message)
	}
	return nil
}

// parseRecursive reads x-ms-recursive: absent is false.
func parseRecursive(h http.Header) (bool, error) {
	switch v := h.Get("X-Ms-Recursive"); strings.ToLower(v) {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	default:
		return false, azerr.InvalidHeaderValue("x-ms-recursive", v)
	}
}

type handleListXML struct {
	XMLName    xml.Name `xml:"EnumerationResults"`
	Marker     string   `xml:"Marker,omitempty"`
	MaxResults int      `xml:"MaxResults,omitempty"`
	Entries    struct {
		Handles []handleXML `xml:"Handle"`
	} `xml:"Entries"`
	NextMarker string `xml:"NextMarker"`
}

type handleXML struct {
	HandleID     string            `xml:"HandleId"`
	Path         azhttp.ListedName `xml:"Path"`
	FileID       string            `xml:"FileId"`
	ParentID     string            `xml:"ParentId"`
	SessionID    string            `xml:"SessionId"`
	ClientIP     string            `xml:"ClientIp"`
	ClientName   string            `xml:"ClientName"`
	OpenTime     string            `xml:"OpenTime"`
	AccessRights []string          `xml:"AccessRightList>AccessRight"`
}

func (h *handler) listHandles(q *request) error {
	if err := ownerOnly(q); err != nil {
		return err
	}
	max, err := azhttp.MaxResults(q.q)
	if err != nil {
		return err
	}
	recursive, err := parseRecursive(q.r.Header)
	if err != nil {
		return err
	}
	marker := q.q.Get("marker")
	l, err := h.svc.ListHandles(q.ctx(), q.ref(), ListHandlesOptions{Recursive: recursive, Marker: decodeMarker(marker), Max: max})
	if err != nil {
		return err
	}
	doc := handleListXML{Marker: marker, NextMarker: encodeMarker(l.NextMarker)}
	if q.q.Has("maxresults") {
		doc.MaxResults = max
	}
	for _, e := range l.Handles {
		doc.Entries.Handles = append(doc.Entries.Handles, handleXML{
			HandleID:     strconv.FormatUint(e.ID, 10),
			Path:         azhttp.NameForXML(e.Path),
			FileID:       strconv.FormatUint(e.FileID, 10),
			ParentID:     strconv.FormatUint(e.ParentID, 10),
			SessionID:    strconv.FormatUint(e.SessionID, 10),
			ClientIP:     e.ClientIP,
			ClientName:   e.ClientName,
			OpenTime:     azhttp.HTTPTime(e.Opened),
			AccessRights: e.Access.names(),
		})
	}
	return azhttp.WriteXML(q.w, http.StatusOK, doc)
}

func (h *handler) forceCloseHandles(q *request) error {
	if err := ownerOnly(q); err != nil {
		return err
	}
	raw := q.r.Header.Get("X-Ms-Handle-Id")
	if raw == "" {
		return azerr.MissingRequiredHeader("x-ms-handle-id")
	}
	recursive, err := parseRecursive(q.r.Header)
	if err != nil {
		return err
	}
	var id *uint64
	if raw != "*" {
		// A handle ID is a number; anything else is a malformed header
		// (Java's recording DirectoryApiTests.forceCloseHandleInvalidHandleId).
		// A number that names no open handle closes nothing.
		n, err := strconv.ParseUint(raw, 10, 64)
		if err != nil {
			return azerr.InvalidHeaderValue("x-ms-handle-id", raw)
		}
		id = &n
	}
	out, err := h.svc.ForceCloseHandles(q.ctx(), q.ref(), ForceCloseOptions{HandleID: id, Recursive: recursive, Marker: decodeMarker(q.q.Get("marker"))})
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	if out.NextMarker != "" {
		hdr.Set("X-Ms-Marker", encodeMarker(out.NextMarker))
	}
	hdr.Set("X-Ms-Number-Of-Handles-Closed", strconv.Itoa(out.Closed))
	hdr.Set("X-Ms-Number-Of-Handles-Failed", "0")
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}
