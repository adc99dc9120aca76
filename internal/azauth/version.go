package azauth

import (
	"time"
)

// firstVersion is the oldest x-ms-version accepted: older ones predate the
// Shared Key canonicalization cerulean implements.
const firstVersion = "2009-09-19"

// ValidVersion accepts any real date from 2009-09-19 on, future ones
// included: SDKs move to new versions before cerulean knows about them.
func ValidVersion(v string) bool {
	if _, err := time.Parse(time.DateOnly, v); err != nil {
		return false
	}
	return v >= firstVersion
}
