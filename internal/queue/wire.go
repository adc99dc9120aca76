package queue

import (
	"encoding/xml"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// neverExpires is how Azure renders the expiry of a message that never
// expires (messagettl=-1).
var neverExpires = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)

func expiryTime(t time.Time) string {
	if t.IsZero() {
		return azhttp.HTTPTime(neverExpires)
	}
	return azhttp.HTTPTime(t)
}

type queueListXML struct {
	XMLName         xml.Name `xml:"EnumerationResults"`
	ServiceEndpoint string   `xml:"ServiceEndpoint,attr"`
	Prefix          string   `xml:"Prefix,omitempty"`
	Marker          string   `xml:"Marker,omitempty"`
	MaxResults      int      `xml:"MaxResults,omitempty"`
	Queues          struct {
		Items []queueXML `xml:"Queue"`
	} `xml:"Queues"`
	NextMarker string `xml:"NextMarker"`
}

type queueXML struct {
	Name     string              `xml:"Name"`
	Metadata *azhttp.MetadataXML `xml:"Metadata,omitempty"`
}

// messagesXML is the body of Put, Get and Peek Messages.
type messagesXML struct {
	XMLName  xml.Name     `xml:"QueueMessagesList"`
	Messages []messageXML `xml:"QueueMessage"`
}

// messageXML is one QueueMessage; Put Message leaves out DequeueCount and
// MessageText, Peek Messages PopReceipt and TimeNextVisible.
type messageXML struct {
	MessageID       string       `xml:"MessageId"`
	InsertionTime   string       `xml:"InsertionTime"`
	ExpirationTime  string       `xml:"ExpirationTime"`
	PopReceipt      string       `xml:"PopReceipt,omitempty"`
	TimeNextVisible string       `xml:"TimeNextVisible,omitempty"`
	DequeueCount    *int64       `xml:"DequeueCount,omitempty"`
	MessageText     *messageText `xml:"MessageText,omitempty"`
}

// messageText is a message's text as Azure writes it: only &, <, > and
// CR escaped (CR because every XML reader turns a literal one into LF),
// quotes, tabs and line feeds as they are. encoding/xml would write
// numeric references (&#34;, &#39;, &#x9;, &#xA;) that the JavaScript
// SDK's XML reader, which decodes only the named entities, hands to the
// caller undecoded.
type messageText struct {
	Escaped string `xml:",innerxml"`
}

func newMessageText(text string) *messageText {
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range text {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '\r':
			b.WriteString("&#xD;")
		case !azhttp.XMLChar(r):
			b.WriteRune(utf8.RuneError) // as encoding/xml does; no XML body can carry one in
		default:
			b.WriteRune(r)
		}
	}
	return &messageText{Escaped: b.String()}
}

// messageToXML renders m; full adds DequeueCount and MessageText.
func messageToXML(m Message, full bool) messageXML {
	x := messageXML{
		MessageID:      m.ID,
		InsertionTime:  azhttp.HTTPTime(m.Inserted),
		ExpirationTime: expiryTime(m.Expires),
		PopReceipt:     m.PopReceipt,
	}
	if m.PopReceipt != "" {
		x.TimeNextVisible = azhttp.HTTPTime(m.Visible)
	}
	if full {
		x.DequeueCount = &m.DequeueCount
		x.MessageText = newMessageText(m.Text)
	}
	return x
}
