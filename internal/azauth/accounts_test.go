package azauth

import (
	"encoding/hex"
	"errors"
	"slices"
	"testing"
)

func TestParseAccounts(t *testing.T) {
	tests := []struct {
		spec     string
		want     []string // names
		wantKeys []int
		wantErr  bool
	}{
		{"", nil, nil, false},
		{"a:" + Key1, []string{"a"}, []int{1}, false},
		{" a:" + Key1 + ":" + Key2 + " ; b:" + Key2 + ";", []string{"a", "b"}, []int{2, 1}, false},
		{"a", nil, nil, true},
		{"a:", nil, nil, true},
		{":" + Key1, nil, nil, true},
		{"a:not*base64", []string{"a"}, []int{1}, false}, // decoded as Node decodes it
		{"a:*!*", nil, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			accts, err := ParseAccounts(tc.spec)
			if tc.wantErr {
				if !errors.Is(err, ErrAccountSpec) {
					t.Fatalf("err = %v, want ErrAccountSpec", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			var keys []int
			for _, a := range accts {
				names, keys = append(names, a.Name), append(keys, len(a.Keys))
			}
			if !slices.Equal(names, tc.want) || !slices.Equal(keys, tc.wantKeys) {
				t.Fatalf("got %v %v", names, keys)
			}
		})
	}
}

func TestLoadAccounts(t *testing.T) {
	env := map[string]string{
		"AZURITE_ACCOUNTS":  "devstoreaccount1:" + Key1 + ";other:" + Key1,
		"CERULEAN_ACCOUNTS": "other:" + Key2,
	}
	accts, err := LoadAccounts(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(accts.Names(), []string{"devstoreaccount1", "other"}) {
		t.Fatalf("names = %v", accts.Names())
	}
	dev, _ := accts.Lookup(DevAccount)
	other, _ := accts.Lookup("other")
	if string(dev.Keys[0]) != "key-one-key-one-key-one-key-one" || string(other.Keys[0]) != "key-two-key-two-key-two-key-two" {
		t.Fatalf("env entries did not replace keys: %q %q", dev.Keys[0], other.Keys[0])
	}
	if _, ok := accts.Lookup("nosuch"); ok {
		t.Fatal("found unknown account")
	}
	if _, err := LoadAccounts(func(string) string { return "bad" }); !errors.Is(err, ErrAccountSpec) {
		t.Fatalf("err = %v", err)
	}
	plain, err := LoadAccounts(func(string) string { return "" })
	if err != nil || !slices.Equal(plain.Names(), []string{DevAccount}) {
		t.Fatalf("default accounts = %v, %v", plain.Names(), err)
	}
}

// TestAzuriteKeysDecodeAsNode: keys decode as Azurite's Node decodes them
// (the expected bytes are Node's Buffer.from(key, "base64")), so an
// AZURITE_ACCOUNTS with Azurite's own "testing_key" starts and signs.
func TestAzuriteKeysDecodeAsNode(t *testing.T) {
	for key, want := range map[string]string{
		"testing_key": "b5eb2d8a783f91ec",
		"ab$cd":       "69b71d",
		"abcde":       "69b71d",
		"a-b_":        "6be6ff",
		"  YWJj  ":    "616263",
		"YWJjZA":      "61626364",
	} {
		if got := hex.EncodeToString(nodeBase64(key)); got != want {
			t.Errorf("%q decodes to %s, want %s", key, got, want)
		}
	}
	accts, err := LoadAccounts(func(k string) string {
		if k == "AZURITE_ACCOUNTS" {
			return "account1:" + Key1 + ":testing_key"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	a, ok := accts.Lookup("account1")
	if !ok || len(a.Keys) != 2 || hex.EncodeToString(a.Keys[1]) != "b5eb2d8a783f91ec" {
		t.Fatalf("account1 = %+v, %v", a, ok)
	}
	for _, bad := range []string{"a:=", "a:!!!", "a:x"} {
		if _, err := ParseAccounts(bad); !errors.Is(err, ErrAccountSpec) {
			t.Errorf("%q: %v, want ErrAccountSpec", bad, err)
		}
	}
}
