// Package console is the web console: a data explorer for every service
// (Blob, Queue, Table, Files, Cosmos DB, Search) that the server hands to
// its admin port.
//
// The page (HTML, CSS and plain JavaScript, embedded in the binary so it
// works offline) speaks each service's own REST protocol, XML for the
// Storage services and JSON for the others. Its requests go to a signing
// proxy under /console/api/{service}/, which forwards them to the service
// with the credential added: Shared Key for Storage, the master-key token
// for Cosmos DB and the api-key for Search, each signed by the code the
// service verifies with. Every ETag, 412 and error the console shows is
// therefore the service's real answer.
//
// The admin port is loopback, yet a page on any website can make the
// browser send requests to it. The proxy therefore answers only requests
// that carry the X-Cerulean-Console header (a cross-origin page cannot
// send it without a CORS preflight, which is never approved) and whose
// Host names the address the request arrived on (a rebound DNS name does
// not).
package console
