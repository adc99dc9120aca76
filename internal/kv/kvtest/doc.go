// Package kvtest is the conformance suite every kv engine must pass: written
// once, run against each engine from that engine's own tests.
package kvtest
