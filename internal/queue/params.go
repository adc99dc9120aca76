package queue

import (
	"bytes"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// maxMessageBody bounds the XML body of Put and Update Message: the
// longest escaping of a 64 KiB text (every byte as "&quot;") fits.
const maxMessageBody = 6*MaxMessageSize + 1024

// infiniteTTLVersion is the first x-ms-version that allows messagettl=-1
// and time-to-live values beyond 7 days.
const infiniteTTLVersion = "2017-07-29"

// intParam reads an optional integer query parameter: def when absent,
// 400 InvalidQueryParameterValue when not an integer, 400
// OutOfRangeQueryParameterValue outside [lo, hi].
func intParam(q url.Values, name string, def, lo, hi int64) (int64, error) {
	vs, ok := q[name]
	if !ok || len(vs) == 0 {
		return def, nil
	}
	n, err := strconv.ParseInt(vs[0], 10, 64)
	if err != nil {
		return 0, azerr.InvalidQueryParameterValue(name, vs[0], "")
	}
	if n < lo || n > hi {
		return 0, azerr.OutOfRangeQueryParameterValue(name, vs[0], lo, hi)
	}
	return n, nil
}

// seconds converts a validated number of seconds.
func seconds(n int64) time.Duration { return time.Duration(n) * time.Second }

// numMessages reads numofmessages: 1 by default, 1 to 32.
func numMessages(q url.Values) (int, error) {
	n, err := intParam(q, "numofmessages", 1, 1, MaxMessagesPerGet)
	return int(n), err
}

// putOptions reads Put Message's visibilitytimeout (0 to 7 days) and
// messagettl (1 second or more, or -1 for never; before version
// 2017-07-29 at most 7 days and no -1).
func putOptions(q url.Values, version string) (PutOptions, error) {
	var o PutOptions
	vt, err := intParam(q, "visibilitytimeout", 0, 0, int64(MaxVisibilityTimeout/time.Second))
	if err != nil {
		return o, err
	}
	o.Visibility = seconds(vt)
	maxTTL := int64(1<<63-1) / int64(time.Second)
	if version != "" && version < infiniteTTLVersion {
		maxTTL = int64(DefaultTTL / time.Second)
	}
	if v := q.Get("messagettl"); v == "-1" && (version == "" || version >= infiniteTTLVersion) {
		o.NoExpiry = true
		return o, nil
	}
	ttl, err := intParam(q, "messagettl", int64(DefaultTTL/time.Second), 1, maxTTL)
	if err != nil {
		return o, err
	}
	o.TTL = seconds(ttl)
	return o, nil
}

// queueMessageXML is the body of Put Message and Update Message.
type queueMessageXML struct {
	XMLName xml.Name `xml:"QueueMessage"`
	Text    *string  `xml:"MessageText"`
}

// readMessageText reads a <QueueMessage><MessageText>…</MessageText>
// </QueueMessage> body. With optional, an empty body yields nil (Update
// Message without new content). Text over 64 KiB is 413
// RequestBodyTooLarge, as Azure answers; anything else malformed is 400
// InvalidXmlDocument.
func readMessageText(r *http.Request, optional bool) (*string, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxMessageBody+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxMessageBody {
		return nil, errMessageTooLarge
	}
	return parseMessageText(body, optional)
}

func parseMessageText(body []byte, optional bool) (*string, error) {
	if text, ok := simpleMessageText(body); ok {
		return &text, nil
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if optional {
			return nil, nil
		}
		return nil, azerr.ErrInvalidXmlDocument
	}
	var doc queueMessageXML
	if err := azhttp.CheckXML(body); err != nil {
		return nil, err
	}
	if err := checkXMLChars(body); err != nil {
		return nil, err
	}
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil, azerr.ErrInvalidXmlDocument
	}
	if doc.Text == nil {
		return nil, azerr.ErrInvalidXmlDocument.WithMessage("XML specified is not syntactically valid. (QueueMessage has no MessageText)")
	}
	if !utf8.ValidString(*doc.Text) {
		return nil, azerr.ErrInvalidXmlDocument
	}
	if len(*doc.Text) > MaxMessageSize {
		return nil, errMessageTooLarge
	}
	return doc.Text, nil
}

// xmlContentReason is the Reason Azure gives when its reader meets a
// character no XML document may hold.
const xmlContentReason = "Error parsing Xml content"

// checkXMLChars refuses a body holding a character XML 1.0 does not
// allow (the REST reference's Put Message: a message "must be in a format
// that can be included in an XML request with UTF-8 encoding"). A literal
// one is 400 InvalidXmlDocument at its line and position with Azure's
// reason, as the Python SDK's recording
// test_queue_encodings.test_message_text_xml_invalid_chars shows for
// U+0001 (LineNumber 2, LinePosition 28). A character reference to one
// (&#x1;, &#xD800;) is not well-formed XML either (XML 1.0, WFC: Legal
// Character); encoding/xml refuses most but turns a surrogate into
// U+FFFD, so those are refused here (outside CDATA sections and
// comments, where "&#" is just text). Malformed UTF-8 is left to the
// decoder.
func checkXMLChars(body []byte) error {
	var literalUntil []byte // the end of the CDATA section or comment the scan is in
	for i := 0; i < len(body); {
		r, size := utf8.DecodeRune(body[i:])
		rest := body[i:]
		switch {
		case r == utf8.RuneError && size == 1:
		case !azhttp.XMLChar(r):
			line, pos := azhttp.LinePosition(body, i)
			return azhttp.InvalidXMLAt(line, pos, xmlContentReason)
		case literalUntil != nil:
			if bytes.HasPrefix(rest, literalUntil) {
				size, literalUntil = len(literalUntil), nil
			}
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			literalUntil = []byte("]]>")
		case bytes.HasPrefix(rest, []byte("<!--")):
			literalUntil = []byte("-->")
		case bytes.HasPrefix(rest, []byte("&#")):
			if n, ok := charRef(rest[len("&#"):]); ok && !azhttp.XMLChar(n) {
				return azerr.ErrInvalidXmlDocument
			}
		}
		i += size
	}
	return nil
}

// charRef reads the number of a character reference after its "&#"
// (decimal, or hexadecimal after an x); ok is false when ref holds none.
func charRef(ref []byte) (rune, bool) {
	end := bytes.IndexByte(ref, ';')
	if end < 1 {
		return 0, false
	}
	digits, base := string(ref[:end]), 10
	if digits[0] == 'x' {
		digits, base = digits[1:], 16
	}
	n, err := strconv.ParseUint(digits, base, 32)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}
