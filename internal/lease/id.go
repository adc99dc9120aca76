package lease

import "github.com/cerulean-db/cerulean/internal/guid"

// NewID makes a random (version 4) GUID, the form lease IDs take.
func NewID() string { return guid.New() }

// ValidID accepts the 8-4-4-4-12 hexadecimal form Azure demands of a
// proposed lease ID.
func ValidID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if hex := c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'; !hex {
				return false
			}
		}
	}
	return true
}
