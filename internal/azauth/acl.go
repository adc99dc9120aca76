package azauth

import (
	"time"
)

// MaxSignedIdentifiers is Azure's limit of stored access policies per
// container, queue, table or share.
const MaxSignedIdentifiers = 5

// SignedIdentifier is one stored access policy.
type SignedIdentifier struct {
	ID          string
	Start       time.Time // zero when not set
	Expiry      time.Time
	Permissions string
}

// Policy returns the identifier's policy in the form SAS checks use.
func (si SignedIdentifier) Policy() StoredPolicy {
	return StoredPolicy{Start: si.Start, Expiry: si.Expiry, Permissions: si.Permissions}
}
