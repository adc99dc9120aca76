package metrics

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// usagePage is how many records one read of the usage scan covers, so
// that no snapshot is held for the whole store.
const usagePage = 10000

// Usage reports the bytes (keys and values), records and objects stored
// under each service's key prefix. Counting reads the whole store, so it is done in
// the background, only while /metrics is being scraped, at most once per
// interval; a scrape answers the last count.
type Usage struct {
	store    kv.Store
	services map[string]Stored
	every    time.Duration
	log      *slog.Logger

	bytesDesc, recordsDesc, objectsDesc *prometheus.Desc

	mu       sync.Mutex
	counted  map[string]usage
	started  time.Time // of the last count begun
	running  bool
	closed   bool
	ctx      context.Context
	cancel   context.CancelFunc
	finished sync.WaitGroup
}

// Stored is where a service's data lies: every key under Prefix is its,
// and Object tells the keys that are one object each (a blob, a message,
// an entity, a file or directory, an item, a document) from the rest.
type Stored struct {
	Prefix []byte
	Object func(key []byte) bool
}

// usage is one service's count.
type usage struct{ bytes, records, objects float64 }

// NewUsage counts what store holds for each service, at most once per
// every.
func NewUsage(store kv.Store, services map[string]Stored, every time.Duration, log *slog.Logger) *Usage {
	ctx, cancel := context.WithCancel(context.Background())
	return &Usage{
		store: store, services: services, every: every, log: log, ctx: ctx, cancel: cancel,
		bytesDesc: prometheus.NewDesc(namespace+"_stored_bytes",
			"Bytes of keys and values in the store, by service (counted in the background while scraped).", []string{"service"}, nil),
		recordsDesc: prometheus.NewDesc(namespace+"_stored_records",
			"Records (store keys) by service; an object is one record or more (counted in the background while scraped).", []string{"service"}, nil),
		objectsDesc: prometheus.NewDesc(namespace+"_stored_objects",
			"Objects by service: blobs, queue messages, table entities, files and directories, Cosmos DB items, Search documents (counted in the background while scraped).", []string{"service"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (u *Usage) Describe(ch chan<- *prometheus.Desc) {
	ch <- u.bytesDesc
	ch <- u.recordsDesc
	ch <- u.objectsDesc
}

// Collect implements prometheus.Collector: it answers the last count and
// starts a new one when that is older than the interval.
func (u *Usage) Collect(ch chan<- prometheus.Metric) {
	u.mu.Lock()
	if !u.running && !u.closed && time.Since(u.started) >= u.every {
		u.running, u.started = true, time.Now()
		u.finished.Add(1)
		go u.count()
	}
	counted := u.counted
	u.mu.Unlock()
	for service, c := range counted {
		ch <- prometheus.MustNewConstMetric(u.bytesDesc, prometheus.GaugeValue, c.bytes, service)
		ch <- prometheus.MustNewConstMetric(u.recordsDesc, prometheus.GaugeValue, c.records, service)
		ch <- prometheus.MustNewConstMetric(u.objectsDesc, prometheus.GaugeValue, c.objects, service)
	}
}

// Wait waits for a count in progress (tests).
func (u *Usage) Wait() { u.finished.Wait() }

// Close stops a count in progress and starts no other.
func (u *Usage) Close() {
	u.mu.Lock()
	u.closed = true
	u.mu.Unlock()
	u.cancel()
	u.finished.Wait()
}

func (u *Usage) count() {
	defer u.finished.Done()
	counted := make(map[string]usage, len(u.services))
	var err error
	for service, stored := range u.services {
		var c usage
		if c, err = u.countService(stored); err != nil {
			break
		}
		counted[service] = c
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.running = false
	if err != nil {
		if u.ctx.Err() == nil {
			u.log.Warn("counting stored bytes failed", "err", err)
		}
		return
	}
	u.counted = counted
}

func (u *Usage) countService(stored Stored) (usage, error) {
	var c usage
	start, end := stored.Prefix, kv.PrefixEnd(stored.Prefix)
	for start != nil {
		var next []byte
		n := 0
		err := u.store.View(u.ctx, func(rd kv.Reader) error {
			next = nil
			return rd.Scan(start, end, func(k, v []byte) error {
				if n == usagePage {
					next = bytes.Clone(k)
					return kv.ErrStopScan
				}
				n++
				c.bytes += float64(len(k) + len(v))
				c.records++
				if stored.Object(k) {
					c.objects++
				}
				return nil
			})
		})
		if err != nil {
			return c, err
		}
		start = next
	}
	return c, nil
}
