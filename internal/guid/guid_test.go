package guid_test

import (
	"regexp"
	"testing"

	"github.com/cerulean-db/cerulean/internal/guid"
)

// TestNewIsAVersion4GUID: 8-4-4-4-12 lower-case hex, version 4, RFC 4122
// variant, and no two alike.
func TestNewIsAVersion4GUID(t *testing.T) {
	form := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 100 {
		id := guid.New()
		if !form.MatchString(id) {
			t.Fatalf("%q is not a version-4 GUID", id)
		}
		if seen[id] {
			t.Fatalf("%q drawn twice", id)
		}
		seen[id] = true
	}
}
