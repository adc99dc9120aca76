//go:build race

package scaleout_test

// raceDetector is true in a -race build, where every request costs several
// times its normal CPU.
const raceDetector = true
