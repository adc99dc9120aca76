// Package testkit is what the SDK conformance suites under test/ share:
// unique resource names, a clock tests move by hand, SDK error assertions,
// deterministic data, hand-built HTTP requests (unsigned, or signed by an
// SDK's own credential policy), checks of a store's invariants when a test
// ends, and golden-file comparison.
//
// The package does not import servertest or the services, so the unit
// tests of internal packages can use it without an import cycle; a suite
// passes it what it needs (a URL, a key, a kv.Store).
package testkit
