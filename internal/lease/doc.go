// Package lease is the one lease state machine behind blob, container and
// file leases (Azure's pessimistic concurrency).
//
// A Lease is a value stored with the resource it locks. Time-dependent
// states are derived, never stored: a fixed lease past its expiry reads as
// Expired and a breaking lease past its break time reads as Broken, at
// whatever time the caller passes in. No background job is needed for the
// state to be exact, and tests drive time with their own clock.
package lease
