// Package server assembles cerulean: it opens the store, builds each
// service over it and serves each on its own listener, with the timeouts
// that keep slow or huge clients from exhausting the process.
package server
