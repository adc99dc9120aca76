// Package servertest starts a real cerulean server on loopback for tests
// that drive it through the official SDKs.
package servertest
