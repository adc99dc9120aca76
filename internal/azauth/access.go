package azauth

import (
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// AccessKind says how a request proved who sent it.
type AccessKind int

const (
	AccessAnonymous AccessKind = iota
	AccessSharedKey
	AccessAccountSAS
	AccessServiceSAS
)

func (k AccessKind) String() string {
	switch k {
	case AccessAnonymous:
		return "anonymous"
	case AccessSharedKey:
		return "sharedkey"
	case AccessAccountSAS:
		return "accountsas"
	case AccessServiceSAS:
		return "servicesas"
	}
	return "unknown"
}

// Access is who a request was proven to be and what it may do.
type Access struct {
	Kind    AccessKind
	Account string
	// Permissions is the SAS sp (after applying a stored access policy for
	// a service SAS); empty for shared key and anonymous requests.
	Permissions   string
	ResourceTypes string // account SAS srt
	Services      string // account SAS ss
	// Resource is a service SAS's sr: "c","b","bs","bv","d" for blobs,
	// "s","f" for files; "q" and "t" stand in for queue and table SAS,
	// which carry no sr.
	Resource string

	service byte // the service a service SAS was verified for
	// Partition and row key bounds of a table SAS (spk, srk, epk, erk).
	startPK, startRK, endPK, endRK string
}

// Need is what one operation requires.
type Need struct {
	Service      byte // 'b','q','t','f'
	ResourceType byte // 's' service, 'c' container/queue/table/share, 'o' object
	Permission   byte // the SAS permission letter the operation needs; 0 for none
	// Or is a second letter that grants the operation as well (Azure's
	// "Create or Write", "Add or Write", "Write or Delete"); 0 for none.
	Or byte
	// NoServiceSAS: Azure refuses the operation to every service SAS,
	// whatever it is signed for (a container SAS may list a container's
	// blobs but not read or change the container itself).
	NoServiceSAS bool
	// OwnerOnly: only the account owner (Shared Key) may perform the
	// operation; Azure refuses it to every SAS (Get/Set Container ACL).
	OwnerOnly bool
}

// Allows returns nil when a may perform n, else the 403 Azure answers.
// Anonymous access is always refused here: the service decides public
// access itself before it asks.
func (a Access) Allows(n Need) error {
	switch a.Kind {
	case AccessSharedKey:
		return nil
	case AccessAccountSAS:
		if n.OwnerOnly {
			return azerr.ErrAuthorizationFailure
		}
		if !hasLetter(a.Services, n.Service) {
			return azerr.ErrAuthorizationServiceMismatch
		}
		if !hasLetter(a.ResourceTypes, n.ResourceType) {
			return azerr.ErrAuthorizationResourceTypeMismatch
		}
		if !a.grants(n) {
			return azerr.ErrAuthorizationPermissionMismatch
		}
		return nil
	case AccessServiceSAS:
		if n.Service != 0 && n.Service != a.service {
			return azerr.ErrAuthorizationServiceMismatch
		}
		// A service SAS never reaches service-level operations, and one
		// signed for a single object cannot act on its container.
		if n.ResourceType == 's' {
			return azerr.ErrAuthorizationFailure
		}
		if n.ResourceType == 'c' && a.objectScoped() || n.NoServiceSAS || n.OwnerOnly {
			return azerr.ErrAuthorizationFailure
		}
		if !a.grants(n) {
			return azerr.ErrAuthorizationPermissionMismatch
		}
		return nil
	}
	return azerr.ErrAuthorizationFailure
}

// grants reports whether the SAS permissions include the letter n needs,
// or its alternative.
func (a Access) grants(n Need) bool {
	return hasLetter(a.Permissions, n.Permission) || n.Or != 0 && hasLetter(a.Permissions, n.Or)
}

// Grants reports whether a carries permission letter p: always for Shared
// Key, by sp for a SAS, never for an anonymous caller. Operations that one
// of two letters allows ask it to learn which rules apply (a SAS with
// create but not write may only make blobs that do not exist yet).
func (a Access) Grants(p byte) bool {
	switch a.Kind {
	case AccessSharedKey:
		return true
	case AccessAccountSAS, AccessServiceSAS:
		return hasLetter(a.Permissions, p)
	}
	return false
}

func (a Access) objectScoped() bool {
	switch a.Resource {
	case "b", "bs", "bv", "f":
		return true
	}
	return false
}

// hasLetter reports whether set contains c; a zero c asks for nothing.
func hasLetter(set string, c byte) bool {
	return c == 0 || strings.IndexByte(set, c) >= 0
}
