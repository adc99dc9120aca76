package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cerulean-db/cerulean/internal/kv/usage"
)

// usageTimeout bounds one read of the counts.
const usageTimeout = 10 * time.Second

// Usage reports the bytes (keys and values), records and objects stored
// under each service's key prefix. The store keeps them as counts that
// every write changes in its own transaction (kv/usage), so a scrape
// reads a few keys, whatever the store holds.
type Usage struct {
	store *usage.Store
	log   *slog.Logger

	bytesDesc, recordsDesc, objectsDesc *prometheus.Desc
}

// NewUsage reports the counts store keeps.
func NewUsage(store *usage.Store, log *slog.Logger) *Usage {
	return &Usage{
		store: store, log: log,
		bytesDesc: prometheus.NewDesc(namespace+"_stored_bytes",
			"Bytes of keys and values in the store, by service.", []string{"service"}, nil),
		recordsDesc: prometheus.NewDesc(namespace+"_stored_records",
			"Records (store keys) by service; an object is one record or more.", []string{"service"}, nil),
		objectsDesc: prometheus.NewDesc(namespace+"_stored_objects",
			"Objects by service: blobs, queue messages, table entities, files and directories, Cosmos DB items, Search documents.", []string{"service"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (u *Usage) Describe(ch chan<- *prometheus.Desc) {
	ch <- u.bytesDesc
	ch <- u.recordsDesc
	ch <- u.objectsDesc
}

// Collect implements prometheus.Collector: it reads the counts. While a
// store written by an older release is being counted for the first time
// the series are absent, not partial.
func (u *Usage) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), usageTimeout)
	defer cancel()
	counts, ready, err := u.store.Counts(ctx)
	if err != nil {
		u.log.Warn("reading the stored-bytes counts failed", "err", err)
		return
	}
	if !ready {
		return
	}
	for service, c := range counts {
		ch <- prometheus.MustNewConstMetric(u.bytesDesc, prometheus.GaugeValue, float64(c.Bytes), service)
		ch <- prometheus.MustNewConstMetric(u.recordsDesc, prometheus.GaugeValue, float64(c.Records), service)
		ch <- prometheus.MustNewConstMetric(u.objectsDesc, prometheus.GaugeValue, float64(c.Objects), service)
	}
}
