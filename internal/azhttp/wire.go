package azhttp

import (
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// MaxXMLBody bounds the XML documents clients send.
const MaxXMLBody = 8 << 20

// HTTPTime renders a time the way HTTP headers and listings carry it.
func HTTPTime(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

// ETag renders a commit version the way Azure Storage renders ETags.
func ETag(version uint64) string { return fmt.Sprintf("\"0x%X\"", version) }

// ReadXML decodes a bounded XML request body into v.
func ReadXML(r *http.Request, v any) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxXMLBody+1))
	if err != nil {
		return err
	}
	if len(body) > MaxXMLBody {
		return ErrRequestBodyTooLarge
	}
	if err := xml.Unmarshal(body, v); err != nil {
		return ErrInvalidXmlDocument
	}
	return nil
}

// WriteXML sends v as an XML response body with status.
func WriteXML(w http.ResponseWriter, status int, v any) error {
	body, err := xml.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(xml.Header)+len(body)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, xml.Header)
	_, _ = w.Write(body)
	return nil
}

// WriteEmpty sends a bodiless status.
func WriteEmpty(w http.ResponseWriter, status int) error {
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(status)
	return nil
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
		return 0, InvalidQueryParameterValue("maxresults", vs[0], "")
	}
	if n < 1 {
		// Above 5000 is not an error: the listing is capped at 5000.
		return 0, OutOfRangeQueryParameterValue("maxresults", vs[0], 1, 5000)
	}
	return min(n, 5000), nil
}
