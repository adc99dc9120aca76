// Package counter keeps a count in the kv store that many transactions
// change at once without conflicting on one key: the count is spread over
// Shards keys under one prefix, each change adds to the shard its caller's
// key hashes to in the caller's own transaction, and a read sums every
// shard. Two concurrent changes conflict only when they land on one
// shard.
//
// Blob counts a blob's uncommitted blocks this way and Files a share's
// usage; both read the sum on a snapshot first (no conflict) and inside
// their transaction only when exactness matters.
package counter
