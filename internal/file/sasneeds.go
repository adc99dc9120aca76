package file

import "github.com/cerulean-db/cerulean/internal/azauth"

// What an operation needs from a SAS where one letter is not the whole
// story, per Azure's "Create an account SAS" and "Create a service SAS".

// either is an operation that either of two letters grants: Azure's
// "Create (c)" and "Write (w)" both create a file or a directory.
func either(resourceType, permission, or byte) azauth.Need {
	n := need(resourceType, permission)
	n.Or = or
	return n
}

// shareNeed is an operation on the share itself: an account SAS with
// srt=c may perform it, a service SAS never. A share SAS reaches the
// share's files, directories and listing; its letters ("Delete: delete
// any file in the share") say nothing of the share.
func shareNeed(n azauth.Need) azauth.Need {
	n.NoServiceSAS = true
	return n
}

// ownerNeed is an operation only the account owner may call (Get and Set
// Share ACL): a SAS that could rewrite the stored access policies could
// widen itself.
func ownerNeed() azauth.Need {
	n := need('c', 0)
	n.OwnerOnly = true
	return n
}
