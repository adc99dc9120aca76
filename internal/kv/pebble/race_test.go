//go:build race

package pebble_test

// raceEnabled: the race detector slows pebble's compactions tenfold, so
// the largest volumes are left to the plain run.
const raceEnabled = true
