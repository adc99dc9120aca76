// Package background runs the periodic housekeeping loops of the services
// (sweeps of expired or abandoned data, liveness renewals): one shape for
// all of them, stoppable, with failures logged and retried at the next
// tick.
package background
