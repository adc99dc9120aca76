//go:build !race

package scaleout_test

const raceDetector = false
