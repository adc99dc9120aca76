package blob

import (
	"net/http"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azauth"
)

// What each operation needs from a SAS, per Azure's "Create a service SAS"
// and "Create an account SAS" tables, where one letter is not the whole
// story.

// either is an operation that either of two letters grants.
func either(resourceType, permission, or byte) azauth.Need {
	n := need(resourceType, permission)
	n.Or = or
	return n
}

// containerNeed is an operation on the container itself: an account SAS
// with srt=c may perform it, a service SAS never (a container SAS reaches
// the container's blobs and its listing only).
func containerNeed(n azauth.Need) azauth.Need {
	n.NoServiceSAS = true
	return n
}

// ownerNeed is an operation only the account owner may call.
func ownerNeed(resourceType byte) azauth.Need {
	n := need(resourceType, 0)
	n.OwnerOnly = true
	return n
}

// leaseAccess authorizes Lease Container ('c') and Lease Blob ('o'):
// breaking a lease is allowed by delete as well as write. An account SAS
// may lease a container, a service SAS never.
func leaseAccess(resourceType byte) func(*http.Request, azauth.Access) error {
	return func(r *http.Request, a azauth.Access) error {
		n := need(resourceType, 'w')
		if strings.EqualFold(r.Header.Get("X-Ms-Lease-Action"), "break") {
			n = either(resourceType, 'w', 'd')
		}
		if resourceType == 'c' {
			n = containerNeed(n)
		}
		return a.Allows(n)
	}
}

// deleteBlobAccess authorizes Delete Blob: Azure's "Delete version (x)"
// deletes a version; Delete (d) deletes a blob or a snapshot, not a
// version.
func deleteBlobAccess(r *http.Request, a azauth.Access) error {
	if r.URL.Query().Has("versionid") {
		return a.Allows(need('o', 'x'))
	}
	return a.Allows(need('o', 'd'))
}

// writePreconditions are a write's conditions from its headers, plus the
// rule of a SAS that grants create but not write: it may only make a blob
// that does not exist yet.
func writePreconditions(q *request) Preconditions {
	pre := preconditions(q.r.Header)
	pre.CreateOnly = !q.access.Grants('w')
	return pre
}

// creation reads what a request that creates a blob outright (Put Blob,
// or an empty page or append blob) says beyond its headers and metadata:
// the tags to give it and the conditions on the blob it may replace.
func creation(q *request) (Tags, Preconditions, error) {
	tags, err := requestTags(q.r.Header)
	if err != nil {
		return nil, Preconditions{}, err
	}
	pre, err := writeWithEncryption(q)
	return tags, pre, err
}

// writeWithEncryption is withEncryption for operations that create or
// replace a blob: as with writePreconditions, a SAS that grants create but
// not write may only create.
func writeWithEncryption(q *request) (Preconditions, error) {
	pre, err := withEncryption(q, true)
	pre.CreateOnly = !q.access.Grants('w')
	return pre, err
}
