// Package memory is the in-memory kv engine behind --in-memory: a
// copy-on-write B-tree whose clones are the snapshots, under the shared
// optimistic transaction layer (package occ). Nothing survives the process.
package memory
