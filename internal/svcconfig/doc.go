// Package svcconfig is what a Storage service (Blob, Queue, Table, Files)
// is built from: the store, the account table, the clock and the logger.
// Each service names it Config.
package svcconfig
