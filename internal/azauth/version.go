package azauth

import (
	"time"
)

// firstVersion is the oldest x-ms-version accepted: older ones predate the
// Shared Key canonicalization cerulean implements.
const firstVersion = "2009-09-19"

// versionHorizon is how far past today a version may be dated. Azure
// refuses a version it does not know (2099-11-05 is 400
// InvalidHeaderValue in the Python SDK's recording
// test_invalid_service_version_message); SDKs send versions dated months
// ahead of their release, and move to new ones before cerulean knows
// about them, so only a version far in the future is refused.
const versionHorizon = 5 // years

// ValidVersion accepts any real date from 2009-09-19 on, up to
// versionHorizon years after today.
func ValidVersion(v string) bool {
	if _, err := time.Parse(time.DateOnly, v); err != nil {
		return false
	}
	return v >= firstVersion && v <= time.Now().UTC().AddDate(versionHorizon, 0, 0).Format(time.DateOnly)
}
