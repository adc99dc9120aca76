// Package conditions is the one evaluator of HTTP conditional headers
// (If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since) for every
// service, with the outcomes Azure documents in "Specifying conditional
// headers for Blob service operations".
package conditions
