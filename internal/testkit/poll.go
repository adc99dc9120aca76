package testkit

import "time"

// PollUntil calls cond every interval until it holds or, when within is
// not zero, until within has passed; it reports whether cond held.
func PollUntil(cond func() bool, interval, within time.Duration) bool {
	start := time.Now()
	for within == 0 || time.Since(start) < within {
		if cond() {
			return true
		}
		time.Sleep(interval)
	}
	return false
}
