package azauth

import (
	"net/http"
	"net/url"
)

// sasOverrides are the service SAS parameters that replace a response
// header of a blob or file read (Get Blob / Get File and their
// properties).
var sasOverrides = [...]struct{ param, header string }{
	{"rscc", "Cache-Control"},
	{"rscd", "Content-Disposition"},
	{"rsce", "Content-Encoding"},
	{"rscl", "Content-Language"},
	{"rsct", "Content-Type"},
}

// WriteSASOverrides applies a service SAS's response header overrides.
// They are part of the signed string, so only a verified service SAS
// carries them; on any other request they are ignored.
func WriteSASOverrides(h http.Header, access Access, q url.Values) {
	if access.Kind != AccessServiceSAS {
		return
	}
	for _, o := range sasOverrides {
		if v := q.Get(o.param); v != "" {
			h.Set(o.header, v)
		}
	}
}
