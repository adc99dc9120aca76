package server

import (
	"bytes"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azauth"
)

// TestConsoleAccounts: the console signs for every configured Storage
// account, and for the development account with the key it is
// configured with (AZURITE_ACCOUNTS may give it another), not the
// well-known one.
func TestConsoleAccounts(t *testing.T) {
	devKey, more := consoleAccounts(nil)
	if devKey != azauth.DevKey || len(more) != 0 {
		t.Fatalf("default: key %q, more %v", devKey, more)
	}
	accts := azauth.NewAccounts(
		azauth.Account{Name: azauth.DevAccount, Keys: [][]byte{[]byte("own key")}},
		azauth.Account{Name: "second", Keys: [][]byte{[]byte("k2"), []byte("k2b")}},
		azauth.Account{Name: "third", Keys: [][]byte{[]byte("k3")}},
	)
	devKey, more = consoleAccounts(accts)
	if devKey != "b3duIGtleQ==" {
		t.Errorf("development account signed with %q, want its configured key", devKey)
	}
	if len(more) != 2 || more[0].Name != "second" || !bytes.Equal(more[0].Key, []byte("k2")) || more[1].Name != "third" {
		t.Errorf("more accounts: %+v", more)
	}
}
