// Package bench measures a storage endpoint through the official Azure
// SDKs: named workloads run by concurrent clients for a duration or an
// operation count, after a warm-up, reporting throughput, latency
// percentiles and errors by status. The same code measures cerulean,
// Azurite or Azure, given a connection string. Azure AI Search, which has
// no Go SDK, is driven through its REST API with an admin key.
package bench
