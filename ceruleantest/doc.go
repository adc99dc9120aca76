// Package ceruleantest runs a whole cerulean server inside a Go program,
// as net/http/httptest runs an HTTP server: Blob, Queue, Table, Files
// (REST and SMB), Cosmos DB and Azure AI Search, each on a free loopback
// port, so that tests drive them with the official Azure SDKs without
// Docker, Node or a server binary.
//
// In a test, Start runs a server that stops when the test ends:
//
//	srv := ceruleantest.Start(t)
//	blobs, err := azblob.NewClientFromConnectionString(srv.ConnectionString, nil)
//
// Outside tests, New starts one and Close stops it.
//
// The store is in memory unless Options.DataDir or Options.TempDir ask for
// a durable one. The Cosmos DB gateway is served over HTTPS, as the
// Cosmos SDKs expect, with a self-signed certificate made at start (and
// kept in a DataDir): Server.HTTPClient (or TLSConfig, or CertPool) trusts
// it, and an SDK is given that client as its transport. The Storage services are plain
// HTTP, as the Azure storage emulators serve them, and their connection
// string is ready for each SDK's FromConnectionString constructor.
//
// Every server has its own ports and store, so tests that each start one
// may run in parallel.
package ceruleantest
