package azauth_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azauth"
)

// FuzzAuthenticate feeds arbitrary Authorization headers, SAS query strings
// and paths to every service's Authenticator: it must never panic.
func FuzzAuthenticate(f *testing.F) {
	f.Add("SharedKey devstoreaccount1:AAAA", "", "/devstoreaccount1/c/b")
	f.Add("SharedKeyLite devstoreaccount1:", "comp=list", "/devstoreaccount1/c")
	f.Add("", "sv=2020-12-06&ss=b&srt=sco&sp=rl&se=2030-01-01&sip=1.2.3.4-1.2.3.9&spr=https&sig=AAAA", "/devstoreaccount1/c")
	f.Add("", "sv=2019-02-02&sr=d&sdd=2&sp=r&se=2030-01-01T00:00Z&si=x&sig=a+b/c=", "/devstoreaccount1/c/a/b/c")
	f.Add("", "sv=2015-04-05&tn=t&spk=a&epk=z&sig=%ZZ&st=bad", "/devstoreaccount1/t")
	f.Add("Bearer x", "sig=", "/")
	auths := []*azauth.Authenticator{}
	for _, svc := range []string{"blob", "queue", "table", "file", "bogus"} {
		auths = append(auths, &azauth.Authenticator{Accounts: azauth.NewAccounts(azauth.Account{Name: azauth.DevAccount, Keys: [][]byte{[]byte("k")}}), Service: svc})
	}
	f.Fuzz(func(t *testing.T, authz, query, path string) {
		r := &http.Request{
			Method:     "GET",
			URL:        &url.URL{Path: path, RawQuery: query},
			RequestURI: path + "?" + query,
			Header:     http.Header{},
			RemoteAddr: "192.0.2.1:1234",
		}
		if authz != "" {
			r.Header.Set("Authorization", authz)
		}
		account, c, b := splitPath(path)
		for _, a := range auths {
			acc, err := a.Authenticate(r, account, c, b)
			if err == nil {
				_ = acc.Allows(azauth.Need{Service: 'b', ResourceType: 'o', Permission: 'r'})
			}
		}
	})
}
