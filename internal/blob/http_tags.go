package blob

import (
	"encoding/xml"
	"errors"
	"net/http"
	"net/url"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
)

// tagsXML is the body of Set and Get Blob Tags and a listing's Tags.
type tagsXML struct {
	XMLName xml.Name `xml:"Tags"`
	TagSet  struct {
		Tags []tagXML `xml:"Tag"`
	} `xml:"TagSet"`
}

type tagXML struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

func tagsToXML(tags Tags) *tagsXML {
	x := &tagsXML{}
	x.TagSet.Tags = make([]tagXML, 0, len(tags))
	for _, t := range tags {
		x.TagSet.Tags = append(x.TagSet.Tags, tagXML(t))
	}
	return x
}

// tagsPreconditions reads the conditions of Set and Get Blob Tags, which
// take the blob's ETag and dates as x-ms-blob-if-match and friends: the
// plain If-* headers would be about the tags sub-resource.
func tagsPreconditions(h http.Header) Preconditions {
	pre := preconditions(h)
	pre.Conditions = conditions.FromHeader(h, "x-ms-blob-")
	return pre
}

func (h *handler) setBlobTags(q *request) error {
	var x tagsXML
	if err := azhttp.ReadXML(q.r, &x); err != nil {
		return err
	}
	in := make([]Tag, 0, len(x.TagSet.Tags))
	for _, t := range x.TagSet.Tags {
		in = append(in, Tag(t))
	}
	tags, err := newTags(in)
	if err != nil {
		return err
	}
	if err := h.svc.SetBlobTags(q.ctx(), q.snapshotRef(), tags, tagsPreconditions(q.r.Header)); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusNoContent)
}

func (h *handler) getBlobTags(q *request) error {
	tags, err := h.svc.GetBlobTags(q.ctx(), q.snapshotRef(), tagsPreconditions(q.r.Header))
	if err != nil {
		return err
	}
	return azhttp.WriteXML(q.w, http.StatusOK, tagsToXML(tags))
}

// requestTags reads the x-ms-tags header of an upload or copy: tags in
// query-string form, nil when absent.
func requestTags(h http.Header) (Tags, error) {
	v := h.Get("X-Ms-Tags")
	if v == "" {
		return nil, nil
	}
	vals, err := url.ParseQuery(v)
	if err != nil {
		return nil, azerr.InvalidHeaderValue("x-ms-tags", v)
	}
	in := make([]Tag, 0, len(vals))
	for k, vs := range vals {
		if len(vs) != 1 {
			return nil, errInvalidTag.WithMessage("The tags specified are invalid. Tag keys must be unique.")
		}
		in = append(in, Tag{Key: k, Value: vs[0]})
	}
	return newTags(in)
}

type filterBlobsXML struct {
	XMLName         xml.Name        `xml:"EnumerationResults"`
	ServiceEndpoint string          `xml:"ServiceEndpoint,attr"`
	Marker          string          `xml:"Marker,omitempty"`
	Where           string          `xml:"Where"`
	MaxResults      int             `xml:"MaxResults,omitempty"`
	Blobs           []filterBlobXML `xml:"Blobs>Blob"`
	NextMarker      string          `xml:"NextMarker"`
}

type filterBlobXML struct {
	Name          string   `xml:"Name"`
	ContainerName string   `xml:"ContainerName"`
	Tags          *tagsXML `xml:"Tags"`
}

// findBlobsByTags serves Find Blobs by Tags on the account and, with
// restype=container, on one container.
func (h *handler) findBlobsByTags(q *request) error {
	where := q.q.Get("where")
	if where == "" {
		return azerr.MissingRequiredQueryParameter("where")
	}
	f, err := ParseTagFilter(where)
	if se := (*tagSyntaxError)(nil); errors.As(err, &se) {
		return azerr.InvalidQueryParameterValue("where", where, "").WithMessage("%s", se.Error())
	}
	if err != nil {
		return azerr.InvalidQueryParameterValue("where", where, "")
	}
	if q.container != "" && f.Container != "" {
		// Azure's answer to @container on a container's search
		// (azure-sdk-for-net#27610).
		return azerr.InvalidQueryParameterValue("where", where, "").WithMessage("Error parsing query: Cannot have container in both uri and query")
	}
	max, err := azhttp.MaxResults(q.q)
	if err != nil {
		return err
	}
	found, next, err := h.svc.FindBlobsByTags(q.ctx(), q.acct, f, FindBlobsOptions{Container: q.container, Marker: q.q.Get("marker"), Max: max})
	if err != nil {
		return err
	}
	// The marker and maxresults asked for are echoed, as List Blobs
	// echoes them (@azure/storage-blob's recording "find blob by tags
	// should work").
	doc := filterBlobsXML{ServiceEndpoint: serviceEndpoint(q), Marker: q.q.Get("marker"), Where: where, NextMarker: next, Blobs: []filterBlobXML{}}
	if q.q.Has("maxresults") {
		doc.MaxResults = max
	}
	for _, b := range found {
		doc.Blobs = append(doc.Blobs, filterBlobXML{Name: b.Name, ContainerName: b.Container, Tags: tagsToXML(b.Tags)})
	}
	return azhttp.WriteXML(q.w, http.StatusOK, doc)
}
