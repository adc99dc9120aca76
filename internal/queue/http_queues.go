package queue

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// serviceEndpoint is the account URL as the client addressed it.
func serviceEndpoint(q *request) string {
	scheme := "http"
	if q.r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + q.r.Host + "/" + q.path.acct + "/"
}

func (s *Service) createQueue(q *request) error {
	meta, err := azhttp.ParseMetadata(q.r.Header)
	if err != nil {
		return err
	}
	created, err := s.CreateQueue(q.ctx(), q.acct, q.path.queue, meta)
	if err != nil {
		return err
	}
	if !created {
		return azhttp.WriteEmpty(q.w, http.StatusNoContent)
	}
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}

func (s *Service) deleteQueue(q *request) error {
	if err := s.DeleteQueue(q.ctx(), q.acct, q.path.queue); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusNoContent)
}

func (s *Service) getQueueMetadata(q *request) error {
	p, err := s.GetQueueProperties(q.ctx(), q.acct, q.path.queue)
	if err != nil {
		return err
	}
	h := q.w.Header()
	azhttp.WriteMetadata(h, p.Metadata)
	h.Set("x-ms-approximate-messages-count", strconv.Itoa(p.ApproximateMessages))
	h.Set("Cache-Control", "no-cache")
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

func (s *Service) setQueueMetadata(q *request) error {
	meta, err := azhttp.ParseMetadata(q.r.Header)
	if err != nil {
		return err
	}
	if err := s.SetQueueMetadata(q.ctx(), q.acct, q.path.queue, meta); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusNoContent)
}

func (s *Service) getQueueACL(q *request) error {
	acl, err := s.GetQueueACL(q.ctx(), q.acct, q.path.queue)
	if err != nil {
		return err
	}
	q.w.Header().Set("Cache-Control", "no-cache")
	return azhttp.WriteSignedIdentifiers(q.w, acl)
}

func (s *Service) setQueueACL(q *request) error {
	acl, err := azhttp.ParseSignedIdentifiers(q.r)
	if err != nil {
		return err
	}
	if err := s.SetQueueACL(q.ctx(), q.acct, q.path.queue, acl); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusNoContent)
}

func (s *Service) listQueues(q *request) error {
	max, err := azhttp.MaxResults(q.q)
	if err != nil {
		return err
	}
	prefix, marker := q.q.Get("prefix"), q.q.Get("marker")
	list, next, err := s.ListQueues(q.ctx(), q.acct, prefix, marker, max)
	if err != nil {
		return err
	}
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

func (s *Service) getServiceProperties(q *request) error {
	return s.props.ServeGet(q.w, q.r, q.acct)
}

func (s *Service) setServiceProperties(q *request) error {
	return s.props.ServeSet(q.w, q.r, q.acct)
}

// getServiceStats answers as the emulators do: one store is its own
// secondary, always live and in sync.
func (s *Service) getServiceStats(q *request) error {
	var doc serviceStatsXML
	doc.GeoReplication.Status = "live"
	doc.GeoReplication.LastSyncTime = azhttp.HTTPTime(s.clock())
	return azhttp.WriteXML(q.w, http.StatusOK, doc)
}
