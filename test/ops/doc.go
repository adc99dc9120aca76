// Package ops tests the admin endpoint through the official SDKs and
// plain HTTP: health and readiness, Prometheus metrics that move with
// traffic, the test clock (a lease expiring without a wait) and fault
// injection (the SDKs' default retry policies riding through injected
// throttling).
package ops
