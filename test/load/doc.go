// Package load drives a real server with many connections mixing
// valid traffic with malformed, truncated, oversized and slow requests,
// and checks that it answers client mistakes with 4xx (never 5xx), keeps
// serving, keeps memory bounded and leaves stored data untouched.
//
//	go test ./test/load -load.conns 200 -load.duration 60s   # the long run
package load
