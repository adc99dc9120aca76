package cosmos

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// SignMasterKey signs an outgoing request r to a Cosmos DB gateway whose
// endpoint is the root of r's URL with the master key (decoded): it sets
// x-ms-date to now and the Authorization token over the resource type and
// link of r's path, as authenticate checks it and with the same code.
func SignMasterKey(r *http.Request, key []byte, now time.Time) error {
	segs, err := splitPath(r.URL.EscapedPath())
	if err != nil {
		return fmt.Errorf("sign master key: %w", err)
	}
	date := now.UTC().Format(http.TimeFormat)
	rt, link := resourceOf(segs)
	sig := base64.StdEncoding.EncodeToString(sign(key, stringToSign(r.Method, rt, link, date)))
	r.Header.Set("X-Ms-Date", date)
	r.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+sig))
	return nil
}
