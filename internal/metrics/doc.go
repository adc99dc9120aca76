// Package metrics is the server's Prometheus instrumentation, served on
// the admin port's /metrics: requests by service, operation and status
// and their latency; the store's commit latency, conflicts, retries and
// sync batch sizes; bytes, records and objects stored per service (read
// from the counts the store keeps as it is written, kv/usage, so a scrape
// costs the same whatever the store holds); open
// connections; Cosmos script runs and time-outs; the Search indexing
// backlog; and injected faults. One Metrics per server, on its own
// registry, so that servers in one process (tests) do not share counts.
package metrics
