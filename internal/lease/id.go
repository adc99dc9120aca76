package lease

import "github.com/cerulean-db/cerulean/internal/guid"

// NewID makes a random (version 4) GUID, the form lease IDs take.
func NewID() string { return guid.New() }

// ValidID accepts a lease ID in every form .NET's Guid.Parse reads, as
// Azure does (guid.Parse): @azure/storage-blob's live lease tests propose
// "ca761232ed4211cebacd00aa0057b223" and Azure accepts it.
func ValidID(s string) bool {
	_, ok := guid.Parse(s)
	return ok
}

// SameID reports whether two lease IDs name the same GUID, whatever
// form each was written in. An ID that is no GUID equals only itself.
func SameID(a, b string) bool {
	if a == b {
		return true
	}
	ca, ok1 := guid.Parse(a)
	cb, ok2 := guid.Parse(b)
	return ok1 && ok2 && ca == cb
}
