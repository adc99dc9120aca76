package azauth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"iter"
	"net/http"
	"time"
)

// SignSharedKey signs an outgoing request r to the service ("blob",
// "queue", "file" or "table") of account with key (the decoded account
// key): it sets x-ms-date when r has neither it nor Date, then the
// Authorization header. The string-to-sign is the first, documented form
// the verifier tries (stringsToSign, tableStringsToSign), so a request
// signed here and the check it meets are built by the same code. r must
// carry every header it will be sent with, Content-Length as
// r.ContentLength.
func SignSharedKey(r *http.Request, service, account string, key []byte, now time.Time) {
	if r.Header.Get("X-Ms-Date") == "" && r.Header.Get("Date") == "" {
		r.Header.Set("X-Ms-Date", now.UTC().Format(http.TimeFormat))
	}
	// The builders read what a received request carries: its
	// RequestURI and the host style the middleware found. An outgoing
	// request (perhaps cloned from a received one, as a proxy's is) is
	// signed by its URL alone.
	out := r.WithContext(context.Background())
	out.RequestURI = ""
	var forms iter.Seq[string]
	if service == "table" {
		forms = tableStringsToSign(out, account, false)
	} else {
		forms = stringsToSign(out, account, false)
	}
	var toSign string
	for s := range forms {
		toSign = s
		break
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(toSign))
	r.Header.Set("Authorization", "SharedKey "+account+":"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
}
