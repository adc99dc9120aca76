// Command cerulean-bench measures an Azure Storage or Cosmos DB endpoint
// (cerulean, Azurite, an emulator, a null server) through the official Go
// SDKs, and an Azure AI Search endpoint through its REST API (it has no
// Go SDK). It is a binary of its own so that the server does not link the
// SDKs it is measured with.
//
//	cerulean-bench [run] [flags] workload...   measure the named workloads (all, storage)
//	cerulean-bench null-server ADDR...         serve the no-work ceiling on each address
//	cerulean-bench compare NAME=FILE...        ratio table of -json results
//	cerulean-bench fsync [-dir DIR]            the disk's small durable write latency
//	cerulean-bench idle-conns -server-pid PID  a server's RSS while holding idle connections
//
// Every result gives the generator's own CPU per operation beside the
// server's (-server-pid), and -cpuprofile writes the generator's profile:
// on a machine the two share, the clients' cost bounds the server's rate.
//
// cerulean-bench -h lists the flags; docs/performance.md says how the
// numbers are read.
package main
