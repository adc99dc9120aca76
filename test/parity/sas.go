package parity

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
)

// resignSAS rebuilds the signature of a SAS token from its fields with
// the target's key: the recording's signature was made with Azure's key
// and sanitized away. Account SAS tokens (ss and srt present) are signed
// as Azure documents for every version since 2015-04-05; service SAS
// tokens are refused, so that a recording that needs one is reported
// rather than half replayed.
func (t *Target) resignSAS(req *http.Request, service string) error {
	q := req.URL.Query()
	if q.Get("ss") == "" || q.Get("srt") == "" {
		return fmt.Errorf("service SAS tokens are not rebuilt")
	}
	key, err := base64.StdEncoding.DecodeString(t.Key)
	if err != nil {
		return err
	}
	fields := []string{t.Account, q.Get("sp"), q.Get("ss"), q.Get("srt"), q.Get("st"), q.Get("se"), q.Get("sip"), q.Get("spr"), q.Get("sv")}
	if q.Get("sv") >= "2020-12-06" {
		fields = append(fields, q.Get("ses"))
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(strings.Join(fields, "\n") + "\n"))
	q.Set("sig", base64.StdEncoding.EncodeToString(m.Sum(nil)))
	req.URL.RawQuery = q.Encode()
	return nil
}
