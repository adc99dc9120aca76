// Command cerulean serves the Azure data-plane protocols from one binary.
//
//	cerulean [serve] [flags]   run the server (the default command)
//	cerulean version           print the version
//	cerulean connection-strings [flags]
//	                           print the endpoints and keys serve would answer on
//
// The load generator is its own binary, cerulean-bench, so that the server
// does not link the Azure SDKs.
//
// Every serve flag has an environment variable (CERULEAN_<FLAG>, upper-case
// with underscores), used when the flag is not given. Values are checked
// at start: one that is not understood stops the server with a message
// naming it, rather than leaving the default in place.
//
// In a container with a memory limit, serve sets Go's soft memory limit
// below it (memlimit.go) unless GOMEMLIMIT does.
package main
