package queue

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// serviceEndpoint is the account URL as the client addressed it.
func serviceEndpoint(q *request) string {
	return azhttp.AccountURL(q.r, q.path.acct)
}

func (h *handler) createQueue(q *request) error {
	meta, err := azhttp.ParseMetadata(q.r.Header)
	if err != nil {
		return err
	}
	created, err := h.svc.CreateQueue(q.ctx(), q.acct, q.path.queue, meta)
	if err != nil {
		return err
	}
	if !created {
		return azhttp.WriteEmpty(q.w, http.StatusNoContent)
	}
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}

func (h *handler) deleteQueue(q *request) error {
	if err := h.svc.DeleteQueue(q.ctx(), q.acct, q.path.queue); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusNoContent)
}

func (h *handler) getQueueMetadata(q *request) error {
	p, err := h.svc.GetQueueProperties(q.ctx(), q.acct, q.path.queue)
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	azhttp.WriteMetadata(hdr, p.Metadata)
	hdr.Set("X-Ms-Approximate-Messages-Count", strconv.Itoa(p.ApproximateMessages))
	hdr.Set("Cache-Control", "no-cache")
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

func (h *handler) setQueueMetadata(q *request) error {
	meta, err := azhttp.ParseMetadata(q.r.Header)
	if err != nil {
		return err
	}
	if err := h.svc.SetQueueMetadata(q.ctx(), q.acct, q.path.queue, meta); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusNoContent)
}

func (h *handler) getQueueACL(q *request) error {
	acl, err := h.svc.GetQueueACL(q.ctx(), q.acct, q.path.queue)
	if err != nil {
		return err
	}
	q.w.Header().Set("Cache-Control", "no-cache")
	return azhttp.WriteSignedIdentifiers(q.w, acl)
}

func (h *handler) setQueueACL(q *request) error {
	acl, err := azhttp.ParseSignedIdentifiers(q.r)
	if err != nil {
		return err
	}
	if err := checkQueuePermissions(acl); err != nil {
		return err
	}
	if err := h.svc.SetQueueACL(q.ctx(), q.acct, q.path.queue, acl); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusNoContent)
}

func (h *handler) listQueues(q *request) error {
	max, err := azhttp.MaxResults(q.q)
	if err != nil {
		return err
	}
	prefix, marker := q.q.Get("prefix"), q.q.Get("marker")
	from, err := queueFromMarker(q.acct, marker)
	if err != nil {
		return err
	}
	list, next, err := h.svc.ListQueues(q.ctx(), q.acct, prefix, from, max)
	if err != nil {
		return err
	}
	next = azhttp.AccountMarker(q.acct, next)
	withMeta := false
	for _, part := range strings.Split(q.q.Get("include"), ",") {
		withMeta = withMeta || strings.EqualFold(strings.TrimSpace(part), "metadata")
	}
	doc := queueListXML{ServiceEndpoint: serviceEndpoint(q), Prefix: prefix, Marker: marker, NextMarker: next}
	if q.q.Has("maxresults") {
		doc.MaxResults = max
	}
	doc.Queues.Items = make([]queueXML, 0, len(list))
	for _, nq := range list {
		x := queueXML{Name: nq.Name}
		if withMeta {
			m := azhttp.MetadataXML(nq.Metadata)
			x.Metadata = &m
		}
		doc.Queues.Items = append(doc.Queues.Items, x)
	}
	return azhttp.WriteXML(q.w, http.StatusOK, doc)
}

func (h *handler) getServiceProperties(q *request) error {
	return h.props.ServeGet(q.w, q.r, q.acct)
}

func (h *handler) setServiceProperties(q *request) error {
	return h.props.ServeSet(q.w, q.r, q.acct)
}

// queueFromMarker reads a List Queues marker, an azhttp.AccountMarker as
// Azure hands them out (Java's recording listQueuesMaxResultsByPage),
// back into the name its page starts at. Anything else is 400 OutOfRangeInput, as
// Azure answers marker=garbage (.NET's recording ServiceClientTests
// GetQueuesAsync_Error).
func queueFromMarker(acct, marker string) (string, error) {
	if marker == "" {
		return "", nil
	}
	if name, ok := azhttp.FromAccountMarker(acct, marker); ok {
		return name, nil
	}
	return "", azerr.ErrOutOfRangeInput
}
