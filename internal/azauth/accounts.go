package azauth

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// DevAccount and DevKey are the well-known development storage credentials
// every Azure SDK and tool uses for the local emulator.
const (
	DevAccount = "devstoreaccount1"
	DevKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// ErrAccountSpec is returned (wrapped) for a malformed account list.
var ErrAccountSpec = errors.New("malformed account spec")

// Account is one storage account and its decoded keys; Keys[0] is key1.
type Account struct {
	Name string
	Keys [][]byte
	// macs holds each key's HMAC state (NewAccounts fills it).
	macs []*keyMACs
}

// Accounts is an immutable set of accounts, safe for concurrent use.
type Accounts struct {
	byName map[string]Account
	names  []string
}

// NewAccounts builds the set; a later account with the same name replaces an
// earlier one.
func NewAccounts(accts ...Account) *Accounts {
	a := &Accounts{byName: make(map[string]Account, len(accts))}
	for _, acct := range accts {
		if _, dup := a.byName[acct.Name]; !dup {
			a.names = append(a.names, acct.Name)
		}
		keys := append([][]byte(nil), acct.Keys...)
		a.byName[acct.Name] = Account{Name: acct.Name, Keys: keys, macs: macsOf(keys)}
	}
	sort.Strings(a.names)
	return a
}

// ParseAccounts parses "acct1:key1[:key2];acct2:key1", the format of
// Azurite's AZURITE_ACCOUNTS. Keys are base64, decoded as Azurite (Node's
// Buffer.from(key, "base64")) decodes them, so that a key Azurite users
// set up (its own tests use "testing_key") works unchanged; a key that
// decodes to nothing is refused. An empty spec is no accounts.
func ParseAccounts(spec string) ([]Account, error) {
	var out []Account
	for _, entry := range strings.Split(spec, ";") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		parts := strings.Split(entry, ":")
		name := strings.TrimSpace(parts[0])
		if name == "" || len(parts) < 2 {
			return nil, fmt.Errorf("parse accounts: %q: %w: want name:key[:key2]", entry, ErrAccountSpec)
		}
		acct := Account{Name: name}
		for _, k := range parts[1:] {
			key := nodeBase64(k)
			if len(key) == 0 {
				return nil, fmt.Errorf("parse accounts: %s: %w: key is not base64", name, ErrAccountSpec)
			}
			acct.Keys = append(acct.Keys, key)
		}
		out = append(out, acct)
	}
	return out, nil
}

// LoadAccounts returns devstoreaccount1 with DevKey plus the accounts named
// in AZURITE_ACCOUNTS and CERULEAN_ACCOUNTS (the latter wins on a clash). An
// entry for devstoreaccount1 replaces its keys. getenv nil means os.Getenv.
func LoadAccounts(getenv func(string) string) (*Accounts, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	devKey, err := base64.StdEncoding.DecodeString(DevKey)
	if err != nil {
		return nil, fmt.Errorf("load accounts: dev key: %w", err)
	}
	all := []Account{{Name: DevAccount, Keys: [][]byte{devKey}}}
	for _, env := range []string{"AZURITE_ACCOUNTS", "CERULEAN_ACCOUNTS"} {
		accts, err := ParseAccounts(getenv(env))
		if err != nil {
			return nil, fmt.Errorf("load accounts: %s: %w", env, err)
		}
		all = append(all, accts...)
	}
	return NewAccounts(all...), nil
}

// Require answers ResourceNotFound naming the account unless it exists,
// as Azure answers a request for an unknown account.
func (a *Accounts) Require(name string) error {
	if _, ok := a.Lookup(name); !ok {
		return azerr.ErrResourceNotFound.WithMessage("The specified account %q does not exist.", name)
	}
	return nil
}

// Lookup finds an account by name.
func (a *Accounts) Lookup(name string) (Account, bool) {
	if a == nil {
		return Account{}, false
	}
	acct, ok := a.byName[name]
	return acct, ok
}

// Names returns the account names, sorted.
func (a *Accounts) Names() []string {
	if a == nil {
		return nil
	}
	return append([]string(nil), a.names...)
}

// nodeBase64 decodes s as Node's Buffer.from(s, "base64") does: the
// standard and URL-safe alphabets both, characters outside them skipped,
// decoding stopped at the first '=', and a trailing group of two or three
// characters giving one or two bytes (a lone character, none).
func nodeBase64(s string) []byte {
	var out []byte
	var acc, n uint32
	for i := 0; i < len(s); i++ {
		c := s[i]
		var v byte
		switch {
		case c >= 'A' && c <= 'Z':
			v = c - 'A'
		case c >= 'a' && c <= 'z':
			v = c - 'a' + 26
		case c >= '0' && c <= '9':
			v = c - '0' + 52
		case c == '+' || c == '-':
			v = 62
		case c == '/' || c == '_':
			v = 63
		case c == '=':
			i = len(s)
			continue
		default:
			continue
		}
		acc, n = acc<<6|uint32(v), n+1
		if n == 4 {
			out = append(out, byte(acc>>16), byte(acc>>8), byte(acc))
			acc, n = 0, 0
		}
	}
	switch n {
	case 2:
		out = append(out, byte(acc>>4))
	case 3:
		out = append(out, byte(acc>>10), byte(acc>>2))
	}
	return out
}
