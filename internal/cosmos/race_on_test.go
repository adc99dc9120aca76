//go:build race

package cosmos

// raceEnabled tells long tests that the race detector slows them down.
const raceEnabled = true
