// Package occ is the optimistic concurrency control shared by the embedded
// engines (memory and pebble), which have snapshots but no transactions.
//
// A transaction reads from a snapshot taken at its start and buffers its
// writes. At commit, under one short lock, its read keys and read ranges are
// validated against the writes of every transaction that committed after its
// snapshot; if none intersects, the writes are applied and the commit is
// logged for later validations. The wait for durability (fsync) happens
// outside the lock, so concurrent commits share one fsync (group commit).
//
// Engines make writes visible before they are durable, so the manager tracks
// a durable watermark: no View or Update starts reading before every commit
// its snapshot contains is durable. No response can expose a write that a
// crash could take back.
package occ
