package azauth

import (
	"errors"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// Second account, with two keys, for key-rotation tests.
const (
	Key1 = "a2V5LW9uZS1rZXktb25lLWtleS1vbmUta2V5LW9uZQ=="
	Key2 = "a2V5LXR3by1rZXktdHdvLWtleS10d28ta2V5LXR3bw=="
)

// CheckErr fails unless err matches want (nil meaning success).
func CheckErr(t *testing.T, err error, want *azerr.Error) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want %s (%d)", err, want.Code, want.Status)
	}
}
