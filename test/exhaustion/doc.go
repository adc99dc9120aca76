// Package exhaustion holds a real server under thousands of idle
// connections, slow senders (headers trickled byte by byte, bodies
// trickled for ever) and valid SDK traffic at once, and checks that the
// valid traffic is all served while the server's memory stays bounded,
// and that each limit protecting it answers Azure's error for it.
//
// The idle connections are held by a second process (this test binary run
// again), so the server's process spends its file descriptors on the
// server side of each connection only.
//
//	go test ./test/exhaustion -exhaustion.conns 10000 -exhaustion.duration 60s   # the long run
package exhaustion
