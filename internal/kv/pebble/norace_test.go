//go:build !race

package pebble_test

const raceEnabled = false
