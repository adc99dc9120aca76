package azhttp

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// MaxXMLBody bounds the XML documents clients send.
const MaxXMLBody = 8 << 20

// HTTPTime renders a time the way HTTP headers and listings carry it.
func HTTPTime(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

// DeletedVersion is the version Azure gives a soft-deleted container or
// share, as List Containers and List Shares show it and Restore names it:
// the deletion time as a Windows FILETIME (100 ns ticks since 1601) in 16
// hex digits ("01D9B4BB28A590E0").
func DeletedVersion(t time.Time) string {
	const epochTicks = 116444736000000000 // 1601-01-01 to 1970-01-01
	return fmt.Sprintf("%016X", t.UnixNano()/100+epochTicks)
}

// ETag renders a commit version the way Azure Storage renders ETags.
func ETag(version uint64) string {
	b := make([]byte, 0, len(`"0x"`)+16)
	b = append(b, `"0x`...)
	start := len(b)
	b = strconv.AppendUint(b, version, 16)
	for i := start; i < len(b); i++ {
		if b[i] >= 'a' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(append(b, '"'))
}

// ReadXML decodes a bounded XML request body into v.
func ReadXML(r *http.Request, v any) error {
	_, err := readXML(r, v)
	return err
}

// ReadXMLBody is ReadXML that also returns the body it decoded, for a
// caller that must point at where in the document a value sits.
func ReadXMLBody(r *http.Request, v any) ([]byte, error) { return readXML(r, v) }

// readXML is ReadXMLBody.
func readXML(r *http.Request, v any) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxXMLBody+1))
	if err != nil {
		return nil, err
	}
	if len(body) > MaxXMLBody {
		return nil, azerr.ErrRequestBodyTooLarge
	}
	if err := CheckXML(body); err != nil {
		return nil, err
	}
	if err := xml.Unmarshal(body, v); err != nil {
		return nil, azerr.ErrInvalidXmlDocument
	}
	return body, nil
}

// WriteXMLBody sends body, an XML document without its declaration, as
// WriteXML sends one it encoded.
func WriteXMLBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(xml.Header)+len(body)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, xml.Header)
	_, _ = w.Write(body)
}

// WriteXML sends v as an XML response body with status.
func WriteXML(w http.ResponseWriter, status int, v any) error {
	x := xmlWriters.Get().(*xmlWriter)
	if err := x.enc.Encode(v); err != nil {
		return err // the encoder may hold half an element: not reused
	}
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(xml.Header)+x.body.Len()))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, xml.Header)
	_, _ = w.Write(x.body.Bytes())
	if x.body.Cap() <= maxPooledXML {
		x.body.Reset()
		xmlWriters.Put(x)
	}
	return nil
}

// xmlWriter is an encoder and the buffer it writes to, kept for reuse:
// xml.Marshal allocates a 4 KiB buffered writer for every response.
type xmlWriter struct {
	body bytes.Buffer
	enc  *xml.Encoder
}

// maxPooledXML bounds the buffers kept: a large listing's is left to the
// collector.
const maxPooledXML = 64 << 10

var xmlWriters = sync.Pool{New: func() any {
	x := &xmlWriter{}
	x.enc = xml.NewEncoder(&x.body)
	return x
}}

// WriteEmpty sends a bodiless status.
func WriteEmpty(w http.ResponseWriter, status int) error {
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(status)
	return nil
}

// AccountMarker is the continuation marker Azure hands out for the page
// of an account's containers or queues that starts at name:
// "/account/name" ("" when there is no next page).
func AccountMarker(acct, name string) string {
	if name == "" {
		return ""
	}
	return "/" + acct + "/" + name
}

// FromAccountMarker reads an AccountMarker back into the name its page
// starts at; ok is false for a marker of any other form.
func FromAccountMarker(acct, marker string) (name string, ok bool) {
	return strings.CutPrefix(marker, "/"+acct+"/")
}

// MaxResults reads a listing's maxresults: 5000 when absent and at most
// 5000; below 1 or not a number is an error.
func MaxResults(q url.Values) (int, error) {
	vs := q["maxresults"]
	if len(vs) == 0 || vs[0] == "" {
		return 5000, nil
	}
	n, err := strconv.Atoi(vs[0])
	if err != nil {
		return 0, azerr.InvalidQueryParameterValue("maxresults", vs[0], "")
	}
	if n < 1 {
		// Above 5000 is not an error: the listing is capped at 5000.
		return 0, azerr.OutOfRangeQueryParameterValue("maxresults", vs[0], 1, 5000)
	}
	return min(n, 5000), nil
}
