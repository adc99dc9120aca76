package testkit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// CosmosSign signs req with a Cosmos DB master key the way the SDKs do:
// resourceType ("docs", "sprocs", …) and link ("dbs/d/colls/c") are what
// the signature covers, date becomes x-ms-date.
func CosmosSign(req *http.Request, key, resourceType, link string, date time.Time) error {
	k, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		return fmt.Errorf("cosmos key: %w", err)
	}
	d := date.UTC().Format(http.TimeFormat)
	m := hmac.New(sha256.New, k)
	m.Write([]byte(strings.ToLower(req.Method) + "\n" + strings.ToLower(resourceType) + "\n" + link + "\n" + strings.ToLower(d) + "\n\n"))
	sig := base64.StdEncoding.EncodeToString(m.Sum(nil))
	req.Header.Set("X-Ms-Date", d)
	req.Header.Set("X-Ms-Version", "2020-11-05")
	req.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+sig))
	return nil
}
