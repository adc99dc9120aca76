// Package servertest starts a real cerulean server for tests that drive
// it through the official SDKs.
//
// Start runs the server in process through the public ceruleantest
// package, so every suite exercises the embedding API users have; what
// only cerulean's own tests may set (a PostgreSQL store, the clock,
// Storage TLS, accounts, free-space and connection limits) reaches the
// server through ceruleantest's internal hooks (package embedhook). When
// the server stops, once its listeners and background work are quiet and
// before its store closes, every service's stored invariants are checked
// and a violation fails the test, as bbolt's btesting checks a database
// after every test.
//
// BuildBinary and StartProcess run the built binary instead, for tests
// that kill it.
package servertest
