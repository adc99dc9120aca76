// Package epk computes effective partition keys (EPKs): the hashes by which
// Cosmos DB places a logical partition in the partition-key-range space
// ["", "FF"), and by which the SDKs scope feed ranges, change feeds and
// queries (x-ms-start-epk / x-ms-end-epk, a range's minInclusive and
// maxExclusive).
//
// Three schemes exist, named by a container's partitionKey definition:
// version 1 hashes each component with MurmurHash3-32; version 2 "Hash"
// hashes the whole key with MurmurHash3-128; "MultiHash" (hierarchical
// keys) concatenates one 128-bit hash per component, so a key prefix is a
// contiguous EPK range. The byte encoding and the routing mask (the top two
// bits cleared, so every EPK sorts below "FF") follow the SDKs; the test
// vectors in testdata are the SDKs' own baselines.
package epk
