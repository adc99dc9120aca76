// Package powerloss tests that cerulean keeps every write it acknowledged
// through a power loss. The services run in process over the embedded
// store on a file system that remembers what was synced; at random moments
// under mixed Blob, Table, Queue and Cosmos DB load the test keeps only
// the synced state, starts the services again on it and checks every
// acknowledged write, every ETag and every batch through the official SDKs.
package powerloss
