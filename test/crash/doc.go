// Package crash kills a real cerulean process with SIGKILL while and
// right after it acknowledges writes, restarts it on the same data directory,
// and checks that every acknowledged blob survived intact and that no blob is
// half-written.
package crash
