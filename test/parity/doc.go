// Package parity replays the traffic Microsoft recorded while its Azure
// SDKs' live tests ran against real Azure accounts, and compares each of
// cerulean's answers with Azure's.
//
// A recording (testdata/<service>/*.json, the test proxy's format) is a
// list of request/response pairs taken in order. The replayer sends each
// request, in order, to a fresh server: re-addressed to the local
// account, re-signed with the development key, its dates refreshed. The
// values a server chooses (ETags, dates, request, version, snapshot,
// copy, lease and message ids, pop receipts, continuation markers) are
// bound rather than compared: the value cerulean returned replaces the
// recorded one in every later request, and a value Azure changed across
// a write must change here too (and one Azure kept must stay). Everything
// else is compared: the status code, the Azure error code, every
// response header Azure sent (present, and its value unless the server
// chooses it), and XML and JSON bodies element by element, lists in
// order.
//
// known_differences.txt lists the recordings cerulean does not yet
// answer as Azure did, with the first differing request and the reason;
// TestParity fails on a difference not listed there and on a listed one
// that has gone away. docs/parity.md describes the corpus.
package parity
