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
// a durable watermark: no View starts reading before every commit its
// snapshot contains is durable, and no Update returns before that either.
// An Update's body reads at once: when it commits, its own commit is made
// durable after every earlier one (a log is synced in order), so a write
// waits for one sync, its own; when it ends without a commit (it wrote
// nothing, or its body failed) it waits for its snapshot's commits before
// it returns. No response can expose a write that a crash could take back.
//
// Records that nearly every request reads and few write (kv.GetShared: a
// container, a table, a queue, a share) are kept in memory with the commit
// count from which each holds; every commit that writes one replaces its
// entry under the commit lock, so a snapshot reads from memory exactly what
// the engine would give it (shared.go).
package occ
