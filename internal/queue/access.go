package queue

import (
	"net/http"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// permit is what one operation needs of a caller. Beyond the letters
// Access.Allows checks, Azure confines a queue (service) SAS to the
// message operations and Get Queue Metadata, refusing the rest with
// AuthorizationFailure (Create Queue among them), reserves the ACL
// operations for the account owner, and lets an account SAS create a
// queue with either w or c.
type permit struct {
	need azauth.Need
	// alt is a second permission that also grants the operation to an
	// account SAS (Create Queue: w or c); 0 for none.
	alt byte
	// queueSAS marks the operations a queue (service) SAS may run; any
	// other answers such a SAS 403 AuthorizationFailure, as Azure does.
	queueSAS bool
	// ownerOnly marks the operations only Shared Key may call (Get and
	// Set Queue ACL: "only the account owner").
	ownerOnly bool
}

// authorize decides whether the caller's access a allows the operation.
func (op permit) authorize(_ *http.Request, a azauth.Access) error {
	if op.ownerOnly && a.Kind != azauth.AccessSharedKey {
		return azerr.ErrAuthorizationFailure.WithMessage("%s\nOnly the account owner may call this operation.", azerr.ErrAuthorizationFailure.Message)
	}
	if a.Kind == azauth.AccessServiceSAS && !op.queueSAS {
		return azerr.ErrAuthorizationFailure
	}
	err := a.Allows(op.need)
	if err != nil && op.alt != 0 {
		alt := op.need
		alt.Permission = op.alt
		if a.Allows(alt) == nil {
			return nil
		}
	}
	return err
}

// queuePermissions are the letters a queue's stored access policy may
// grant: read, add, update, process.
const queuePermissions = "raup"

// checkQueuePermissions refuses a Set Queue ACL body whose policies grant
// letters a queue does not have: 400 InvalidXmlDocument at line 0,
// position 0, with an empty reason (@azure/storage-queue's recording
// "setAccessPolicy negative", Permission "rwdl").
func checkQueuePermissions(acl []azauth.SignedIdentifier) error {
	for _, si := range acl {
		for _, c := range si.Permissions {
			if !strings.ContainsRune(queuePermissions, c) {
				return azhttp.InvalidXMLAt(0, 0, "")
			}
		}
	}
	return nil
}
