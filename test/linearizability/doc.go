// Package linearizability records histories of concurrent operations
// that real SDK clients run against one server, and checks them against
// sequential models with porcupine. A failure prints the seed that replays
// the schedule's choices and writes porcupine's visualization.
//
//	go test ./test/linearizability -lin.clients 16 -lin.ops 400   # a long run
package linearizability
