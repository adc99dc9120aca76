// Package pebble is the embedded, durable default kv engine, on
// github.com/cockroachdb/pebble/v2 under the shared optimistic transaction
// layer (package occ).
//
// Every commit is written with Sync; the manager waits for the fsync outside
// its commit lock so that concurrent commits share one fsync (group commit).
// User keys live under the prefix 'u'; the engine's own bookkeeping (the
// version reservation) under 'm', invisible to the store's users.
package pebble
