package keyspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServicesDocumentTheirTags: the doc.go of each service tag's owner
// names the tag, so that a reader working out what a deletion or a move
// must take along, going by the package's own key list, misses no
// family.
func TestServicesDocumentTheirTags(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	for _, tag := range All {
		if !inSpace(tag.Prefix) {
			continue
		}
		doc, err := os.ReadFile(filepath.Join(root, tag.Owner, "doc.go"))
		if err != nil {
			t.Errorf("tag %q: %v", tag.Prefix, err)
			continue
		}
		if !strings.Contains(string(doc), tag.Prefix) {
			t.Errorf("%s/doc.go does not name its tag %q (%s)", tag.Owner, tag.Prefix, tag.About)
		}
	}
}

// inSpace reports whether prefix is under a storage service's space.
func inSpace(prefix string) bool {
	for _, s := range Spaces {
		if strings.HasPrefix(prefix, s.Prefix) {
			return true
		}
	}
	return false
}
