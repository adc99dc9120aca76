package cosmos

import (
	"testing"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// The exported API names a resource with one value and takes the rest of
// a call in an options struct.
func TestExportedSignatures(t *testing.T) { testkit.CheckSignatures(t, ".") }
