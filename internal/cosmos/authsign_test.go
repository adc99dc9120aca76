package cosmos

import (
	"encoding/base64"
	"net/http"
	"testing"
	"time"
)

// TestSignMasterKeyIsAccepted signs requests as the console's proxy does
// and lets authenticate check them; another key, or a date outside the
// allowed skew, must fail.
func TestSignMasterKeyIsAccepted(t *testing.T) {
	key, _ := base64.StdEncoding.DecodeString(EmulatorKey)
	other := []byte("another key, not the account's")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	h := &handler{keys: [][]byte{key}, now: clock, clientNow: clock}
	for _, path := range []string{"/", "/dbs", "/dbs/shop", "/dbs/shop/colls/products/docs", "/dbs/shop/colls/products/docs/a%20b", "/dbs/shop/colls/products/sprocs/restock"} {
		for _, tc := range []struct {
			key    []byte
			at     time.Time
			wantOK bool
		}{{key, now, true}, {other, now, false}, {key, now.Add(-time.Hour), false}} {
			r, err := http.NewRequest(http.MethodPost, "http://localhost:8081"+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := SignMasterKey(r, tc.key, tc.at); err != nil {
				t.Fatal(err)
			}
			segs, err := splitPath(r.URL.EscapedPath())
			if err != nil {
				t.Fatal(err)
			}
			if err := h.authenticate(r, segs); (err == nil) != tc.wantOK {
				t.Errorf("%s signed at %v (right key %v): authenticate says %v", path, tc.at, tc.wantOK, err)
			}
		}
	}
}
