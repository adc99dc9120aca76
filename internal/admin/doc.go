// Package admin is the operations endpoint the server serves on its own
// port (loopback by default): /healthz (the process answers), /readyz
// (the store is open and takes a write), /metrics (Prometheus),
// /debug/pprof/ (Go's profiles), the test clock (/clock) and fault
// injection (/faults) when they are turned on, and the web console on
// everything else.
package admin
