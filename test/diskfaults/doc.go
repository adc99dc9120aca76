// Package diskfaults proves what the server does when its disk fails it:
// a data volume that fills up (writes refused with 503 and a log line,
// reads and deletions served, nothing half-written visible, writes back
// by themselves once space is freed) and a failing fsync (nothing more
// acknowledged, the server stops with a clear message, and a restart
// finds every acknowledged write), through the official SDKs. The full
// volume is injected (a free-space source the test sets) and real: a
// 400 MiB tmpfs the test mounts as root (CI), filled with 1 MiB blobs,
// half deleted (writes must come back without a restart), and restarted
// while full (every acknowledged blob must read back).
package diskfaults
