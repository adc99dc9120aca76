// Command cerulean serves the Azure data-plane protocols from one binary.
//
//	cerulean [serve] [flags]   run the server (the default command)
//	cerulean version           print the version
//
// Every flag has an environment variable (CERULEAN_<FLAG>, upper-case with
// underscores), used when the flag is not given.
package main
