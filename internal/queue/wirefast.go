package queue

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// The message bodies every Put, Get and Peek Messages writes or reads go
// through encoding/xml, whose reflection was a tenth of a durable Put
// Message's CPU. The two functions below do the same work for the shapes
// the SDKs send and the server answers, byte for byte (wirefast_test.go
// compares them with encoding/xml); anything else still goes through
// encoding/xml.

// appendMessages appends doc as encoding/xml would write it.
func appendMessages(b []byte, doc messagesXML) []byte {
	b = append(b, "<QueueMessagesList>"...)
	for _, m := range doc.Messages {
		b = append(b, "<QueueMessage>"...)
		b = appendElement(b, "MessageId", m.MessageID)
		b = appendElement(b, "InsertionTime", m.InsertionTime)
		b = appendElement(b, "ExpirationTime", m.ExpirationTime)
		if m.PopReceipt != "" {
			b = appendElement(b, "PopReceipt", m.PopReceipt)
		}
		if m.TimeNextVisible != "" {
			b = appendElement(b, "TimeNextVisible", m.TimeNextVisible)
		}
		if m.DequeueCount != nil {
			b = append(b, "<DequeueCount>"...)
			b = strconv.AppendInt(b, *m.DequeueCount, 10)
			b = append(b, "</DequeueCount>"...)
		}
		if m.MessageText != nil {
			b = append(b, "<MessageText>"...)
			b = append(b, m.MessageText.Escaped...)
			b = append(b, "</MessageText>"...)
		}
		b = append(b, "</QueueMessage>"...)
	}
	return append(b, "</QueueMessagesList>"...)
}

// appendElement appends <name>value</name>, value escaped as encoding/xml
// escapes character data.
func appendElement(b []byte, name, value string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, '>')
	b = azhttp.AppendXMLEscaped(b, value)
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>')
}

// simpleDeclarations are the XML declarations the SDKs write before a
// message body, each one encoding/xml accepts.
var simpleDeclarations = [][]byte{
	[]byte(`<?xml version="1.0" encoding="utf-8"?>`),
	[]byte(`<?xml version="1.0" encoding="UTF-8"?>`),
	[]byte(`<?xml version='1.0' encoding='utf-8'?>`),
	[]byte(`<?xml version='1.0' encoding='UTF-8'?>`),
	[]byte(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`),
	[]byte(`<?xml version="1.0" encoding="utf-8" standalone="yes"?>`),
}

const (
	messageOpen  = "<QueueMessage><MessageText>"
	messageClose = "</MessageText></QueueMessage>"
)

// simpleMessageText returns the text of a Put or Update Message body
// of the plain shape: an optional declaration of simpleDeclarations and
// white space, then <QueueMessage><MessageText>, text holding no markup,
// entity, carriage return or character XML forbids, and the closing tags,
// then white space. ok is false for any other body, which the caller
// then reads with encoding/xml.
func simpleMessageText(body []byte) (text string, ok bool) {
	for _, d := range simpleDeclarations {
		if rest, found := bytes.CutPrefix(body, d); found {
			body = bytes.TrimLeft(rest, " \t\r\n")
			break
		}
	}
	rest, found := bytes.CutPrefix(body, []byte(messageOpen))
	if !found {
		return "", false
	}
	end := bytes.IndexByte(rest, '<')
	if end < 0 || !bytes.HasPrefix(rest[end:], []byte(messageClose)) {
		return "", false
	}
	if len(bytes.TrimRight(rest[end+len(messageClose):], " \t\r\n")) != 0 {
		return "", false
	}
	raw := rest[:end]
	if len(raw) > MaxMessageSize {
		return "", false
	}
	for i := 0; i < len(raw); {
		c := raw[i]
		if c < utf8.RuneSelf {
			if c == '&' || c == '>' || c == '\r' || c < 0x20 && c != '\t' && c != '\n' {
				return "", false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && size == 1 || !azhttp.XMLChar(r) {
			return "", false
		}
		i += size
	}
	return string(raw), true
}
