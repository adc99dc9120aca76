// Package usagetest opens a store that keeps stored-bytes counts
// (kv/usage) for a test, and checks them against a recount of the store
// as the test goes.
package usagetest
