// Package background runs the services' work that no request waits for:
// the periodic housekeeping loops (sweeps of expired or abandoned data,
// liveness renewals), one shape for all of them, stoppable, with failures
// logged and retried at the next tick; and one-off tasks that follow a
// request's answer (Tasks), stopped with the server.
package background
