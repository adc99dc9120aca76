// Package scaleout drives three cerulean front ends that share one
// PostgreSQL schema — one deployment scaled out — through the official
// Azure SDKs for Go, with clients spread round-robin over the front ends,
// and checks that no front end keeps correctness-relevant state to
// itself: concurrent If-Match counters (Blob, Table, Cosmos items and a
// Cosmos stored procedure) lose no update, a blob lease taken through one
// front end binds the others, queue consumers on different front ends
// never share a delivery within its visibility window and lose no
// message, and racing Table batches apply all-or-nothing. Every test
// ends with the storage-layout invariant checks on the shared store.
//
// The tests need the test PostgreSQL cluster (testkit.PostgresDSN): they
// are skipped without CERULEAN_TEST_POSTGRES, except in CI, which starts
// one.
package scaleout
