// Package pebble is the embedded, durable default kv engine, on
// github.com/cockroachdb/pebble/v2 under the shared optimistic transaction
// layer (package occ).
//
// Every commit is written with Sync; the manager waits for the fsync outside
// its commit lock so that concurrent commits share one fsync (group commit).
// While other transactions are still running toward their commits, the
// next sync is held back for half a millisecond so that they share it too
// (occ.Manager.Running counts them); a lone writer is synced at once.
// Memtables are 4 MiB and level 0 gathers up to eight of them before it is
// compacted (fewer on small volumes, bounded by the free-space reserve):
// new keys spread over the whole keyspace, so each compaction of level 0
// rewrites most of the level below, and fewer of them is what keeps
// sustained writes cheap.
// User keys live under the prefix 'u'; the engine's own bookkeeping (the
// version reservation) under 'm', invisible to the store's users.
package pebble
