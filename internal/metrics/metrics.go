package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/cosmos/script"
	"github.com/cerulean-db/cerulean/internal/faults"
)

const namespace = "cerulean"

// latencyBuckets span a cached point read (100 µs) to a large upload or a
// script at its budget (about 26 s).
var latencyBuckets = prometheus.ExponentialBuckets(0.0001, 2, 19)

// Metrics holds a server's metrics and the registry /metrics serves.
type Metrics struct {
	reg *prometheus.Registry

	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	conns    *connections

	commit    prometheus.Histogram
	conflicts prometheus.Counter
	retries   prometheus.Counter
	syncBatch prometheus.Histogram

	scripts *prometheus.CounterVec
	faults  *prometheus.CounterVec
}

// New returns a server's metrics, with Go's runtime and process metrics.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "requests_total",
		Help: "Requests answered, by service, operation (Azure's name; empty when refused before routing) and HTTP status (\"aborted\" when the connection was dropped)."},
		[]string{"service", "operation", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "request_duration_seconds",
		Help: "Time from a request's arrival to the end of its answer, by service and operation.", Buckets: latencyBuckets},
		[]string{"service", "operation"})
	m.conns = &connections{desc: prometheus.NewDesc(namespace+"_open_connections", "Client connections open, by service.", []string{"service"}, nil),
		counts: map[string]func() int{}}
	m.commit = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: namespace, Subsystem: "kv", Name: "commit_duration_seconds",
		Help: "Time a store transaction took to commit, retries and the wait for durability included.", Buckets: latencyBuckets})
	m.conflicts = prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Subsystem: "kv", Name: "conflicts_total",
		Help: "Transaction attempts that lost to a concurrent commit."})
	m.retries = prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Subsystem: "kv", Name: "retries_total",
		Help: "Transaction attempts beyond the first, in transactions that committed."})
	m.syncBatch = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: namespace, Subsystem: "kv", Name: "sync_batch_commits",
		Help:    "Commits made durable by one wait for the write-ahead log's sync (group commit); the embedded store only.",
		Buckets: prometheus.ExponentialBuckets(1, 2, 10)})
	m.scripts = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Subsystem: "cosmos", Name: "script_executions_total",
		Help: "Server-side JavaScript runs, by kind (sproc, pretrigger, posttrigger, udf) and outcome (ok, error, timeout)."},
		[]string{"kind", "outcome"})
	m.faults = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "injected_faults_total",
		Help: "Faults injected (fault injection), by service, operation and kind."}, []string{"service", "operation", "kind"})
	m.reg.MustRegister(m.requests, m.latency, m.conns, m.commit, m.conflicts, m.retries, m.syncBatch, m.scripts, m.faults,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Register adds collectors of the server's own (stored bytes, the Search
// backlog, SMB connections).
func (m *Metrics) Register(cs ...prometheus.Collector) { m.reg.MustRegister(cs...) }

// Handler serves the metrics in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Instrument counts and times service's requests, by the operation the
// service routed each to and the status azhttp.Wrap recorded. fault, when
// not nil, is the fault injection hook the service consults once it has
// routed a request (azhttp.Routed).
func (m *Metrics) Instrument(service string, fault func(http.ResponseWriter, *http.Request, string) error, h http.Handler) http.Handler {
	series := &serviceSeries{m: m, service: service}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &azhttp.RequestInfo{Fault: fault}
		defer func() {
			p := recover()
			status := info.Status
			if p != nil {
				if err, ok := p.(error); ok && errors.Is(err, http.ErrAbortHandler) {
					status = aborted
				}
			}
			series.observe(info.Operation, status, time.Since(start))
			if p != nil {
				panic(p)
			}
		}()
		h.ServeHTTP(w, azhttp.WithRequestInfo(r, info))
	})
}

// aborted stands for a dropped connection in the status label.
const aborted = -1

// serviceSeries keeps one service's series handles, so that a request
// does not look its labels up in the vectors.
type serviceSeries struct {
	m        *Metrics
	service  string
	counters sync.Map // seriesKey -> prometheus.Counter
	timers   sync.Map // operation -> prometheus.Observer
}

type seriesKey struct {
	operation string
	status    int
}

func (s *serviceSeries) observe(operation string, status int, took time.Duration) {
	k := seriesKey{operation, status}
	c, ok := s.counters.Load(k)
	if !ok {
		label := strconv.Itoa(status)
		if status == aborted {
			label = "aborted"
		}
		c, _ = s.counters.LoadOrStore(k, s.m.requests.WithLabelValues(s.service, operation, label))
	}
	c.(prometheus.Counter).Inc()
	o, ok := s.timers.Load(operation)
	if !ok {
		o, _ = s.timers.LoadOrStore(operation, s.m.latency.WithLabelValues(s.service, operation))
	}
	o.(prometheus.Observer).Observe(took.Seconds())
}

// ConnState is an http.Server.ConnState hook counting service's open
// connections.
func (m *Metrics) ConnState(service string) func(net.Conn, http.ConnState) {
	n := new(atomic.Int64)
	m.conns.add(service, func() int { return int(n.Load()) })
	return func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			n.Add(1)
		case http.StateClosed, http.StateHijacked:
			n.Add(-1)
		}
	}
}

// CountConnections reports a service's open connections from count at
// each scrape (the SMB server counts its own).
func (m *Metrics) CountConnections(service string, count func() int) { m.conns.add(service, count) }

// connections reports every service's open connections in one family.
type connections struct {
	desc   *prometheus.Desc
	mu     sync.Mutex
	counts map[string]func() int
}

func (c *connections) add(service string, count func() int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts[service] = count
}

func (c *connections) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *connections) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for service, count := range c.counts {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(count()), service)
	}
}

// ScriptRan counts one server-side script run (cosmos.Service.ObserveScripts).
func (m *Metrics) ScriptRan(kind string, err error) {
	outcome := "ok"
	switch {
	case errors.Is(err, script.ErrTimeout):
		outcome = "timeout"
	case err != nil:
		outcome = "error"
	}
	m.scripts.WithLabelValues(kind, outcome).Inc()
}

// FaultInjected counts one injected fault (faults.New's hook).
func (m *Metrics) FaultInjected(service, operation string, kind faults.Kind) {
	m.faults.WithLabelValues(service, operation, string(kind)).Inc()
}

// Committed implements kv.Observer.
func (m *Metrics) Committed(took time.Duration, attempts int) {
	m.commit.Observe(took.Seconds())
	if attempts > 1 {
		m.retries.Add(float64(attempts - 1))
	}
}

// Conflicted implements kv.Observer.
func (m *Metrics) Conflicted() { m.conflicts.Inc() }

// Synced implements kv.Observer.
func (m *Metrics) Synced(commits int) { m.syncBatch.Observe(float64(commits)) }

// searchLagTimeout bounds reading the Search backlog at a scrape.
const searchLagTimeout = 2 * time.Second

// SearchLag reports, at each scrape, the document changes each Search
// index's full-text index has not applied yet (lag, e.g.
// search.Service.IndexingLag).
func SearchLag(lag func(context.Context) (map[string]uint64, error)) prometheus.Collector {
	return &searchLag{lag: lag, desc: prometheus.NewDesc(namespace+"_search_indexing_lag_changes",
		"Document changes a Search index's full-text index has not applied yet (queries apply them first).", []string{"index"}, nil)}
}

type searchLag struct {
	lag  func(context.Context) (map[string]uint64, error)
	desc *prometheus.Desc
}

func (c *searchLag) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *searchLag) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), searchLagTimeout)
	defer cancel()
	lag, err := c.lag(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	for index, n := range lag {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n), index)
	}
}
