package azhttp

import "strings"

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
}

// Allows returns nil when a may perform n, else the 403 Azure answers.
// Anonymous access is always refused here: the service decides public
// access itself before it asks.
func (a Access) Allows(n Need) error {
	switch a.Kind {
	case AccessSharedKey:
		return nil
	case AccessAccountSAS:
		if !hasLetter(a.Services, n.Service) {
			return ErrAuthorizationServiceMismatch
		}
		if !hasLetter(a.ResourceTypes, n.ResourceType) {
			return ErrAuthorizationResourceTypeMismatch
		}
		if !hasLetter(a.Permissions, n.Permission) {
			return ErrAuthorizationPermissionMismatch
		}
		return nil
	case AccessServiceSAS:
		if n.Service != 0 && n.Service != a.service {
			return ErrAuthorizationServiceMismatch
		}
		// A service SAS never reaches service-level operations, and one
		// signed for a single object cannot act on its container.
		if n.ResourceType == 's' {
			return ErrAuthorizationFailure
		}
		if n.ResourceType == 'c' && a.objectScoped() {
			return ErrAuthorizationFailure
		}
		if !hasLetter(a.Permissions, n.Permission) {
			return ErrAuthorizationPermissionMismatch
		}
		return nil
	}
	return ErrAuthorizationFailure
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
