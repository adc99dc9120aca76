package queue

import (
	"encoding/xml"
	"strings"
	"testing"
)

// TestAppendMessagesMatchesEncodingXML: the hand-written encoder writes
// what encoding/xml writes for every shape of answer (Put, Get, Peek,
// none) and for fields holding characters XML escapes.
func TestAppendMessagesMatchesEncodingXML(t *testing.T) {
	three := int64(3)
	odd := "a&b<c>d\"e'f\tg\nh\ri\x01j\u00e9k"
	docs := map[string]messagesXML{
		"none": {},
		"put":  {Messages: []messageXML{{MessageID: "id-1", InsertionTime: "Sun, 29 Nov 2026 13:00:00 GMT", ExpirationTime: "Sun, 06 Dec 2026 13:00:00 GMT", PopReceipt: "AgAAAAMAAAAAAAAA+/=", TimeNextVisible: "Sun, 29 Nov 2026 13:00:30 GMT"}}},
		"get": {Messages: []messageXML{
			{MessageID: "a", InsertionTime: "t1", ExpirationTime: "t2", PopReceipt: "p", TimeNextVisible: "t3", DequeueCount: &three, MessageText: newMessageText("hello <world> & \"you\"\r\n")},
			{MessageID: "b", InsertionTime: "t1", ExpirationTime: "t2", PopReceipt: "q", TimeNextVisible: "t3", DequeueCount: &three, MessageText: newMessageText("")},
		}},
		"peek":        {Messages: []messageXML{{MessageID: "a", InsertionTime: "t1", ExpirationTime: "t2", DequeueCount: &three, MessageText: newMessageText("x")}}},
		"odd strings": {Messages: []messageXML{{MessageID: odd, InsertionTime: odd, ExpirationTime: odd, PopReceipt: odd, TimeNextVisible: odd}}},
	}
	for name, doc := range docs {
		want, err := xml.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendMessages(nil, doc); string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// slowMessageText is what parseMessageText answers without the fast path.
func slowMessageText(body []byte) (*string, error) {
	var doc queueMessageXML
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil, err
	}
	return doc.Text, nil
}

// TestSimpleMessageTextMatchesEncodingXML: every body the fast path reads
// is read the same by encoding/xml, and the bodies it leaves (entities,
// CDATA, white space between elements, other declarations, characters XML
// forbids) are left to encoding/xml.
func TestSimpleMessageTextMatchesEncodingXML(t *testing.T) {
	taken := []string{
		`<QueueMessage><MessageText>hello</MessageText></QueueMessage>`,
		`<QueueMessage><MessageText></MessageText></QueueMessage>`,
		`<?xml version="1.0" encoding="utf-8"?><QueueMessage><MessageText>aGVsbG8=</MessageText></QueueMessage>`,
		"<?xml version='1.0' encoding='utf-8'?>\n<QueueMessage><MessageText>tab\there\nline</MessageText></QueueMessage>\n",
		`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><QueueMessage><MessageText>caf` + "\u00e9 \U0001F600" + `</MessageText></QueueMessage>`,
		`<QueueMessage><MessageText>` + strings.Repeat("x", MaxMessageSize) + `</MessageText></QueueMessage>`,
	}
	for _, body := range taken {
		text, ok := simpleMessageText([]byte(body))
		if !ok {
			t.Errorf("fast path left %q", body)
			continue
		}
		want, err := slowMessageText([]byte(body))
		if err != nil || want == nil || *want != text {
			t.Errorf("%q: fast %q, encoding/xml %v %v", body, text, want, err)
		}
	}
	left := []string{
		`<QueueMessage><MessageText>a &amp; b</MessageText></QueueMessage>`,
		`<QueueMessage><MessageText><![CDATA[x]]></MessageText></QueueMessage>`,
		"<QueueMessage>\n <MessageText>x</MessageText>\n</QueueMessage>",
		`<?xml version="1.1"?><QueueMessage><MessageText>x</MessageText></QueueMessage>`,
		`<?xml version="1.0" encoding="ISO-8859-1"?><QueueMessage><MessageText>x</MessageText></QueueMessage>`,
		"<QueueMessage><MessageText>a\rb</MessageText></QueueMessage>",
		"<QueueMessage><MessageText>a\x01b</MessageText></QueueMessage>",
		"<QueueMessage><MessageText>a\xffb</MessageText></QueueMessage>",
		`<QueueMessage><MessageText>a>b</MessageText></QueueMessage>`,
		`<QueueMessage><MessageText>x</MessageText></QueueMessage>trailing`,
		`<QueueMessage><MessageText>x</MessageText><Other/></QueueMessage>`,
		"\ufeff<QueueMessage><MessageText>x</MessageText></QueueMessage>",
		`<QueueMessage><MessageText>` + strings.Repeat("x", MaxMessageSize+1) + `</MessageText></QueueMessage>`,
		`<QueueMessage/>`,
		``,
	}
	for _, body := range left {
		if text, ok := simpleMessageText([]byte(body)); ok {
			t.Errorf("fast path took %q as %q", body, text)
		}
	}
}

// FuzzSimpleMessageText: whatever the fast path reads, encoding/xml reads
// alike.
func FuzzSimpleMessageText(f *testing.F) {
	f.Add([]byte(`<QueueMessage><MessageText>hello</MessageText></QueueMessage>`))
	f.Add([]byte("<?xml version='1.0' encoding='utf-8'?>\n<QueueMessage><MessageText>a\tb</MessageText></QueueMessage>"))
	f.Add([]byte(`<QueueMessage><MessageText>a &amp; b</MessageText></QueueMessage>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		text, ok := simpleMessageText(body)
		if !ok {
			return
		}
		want, err := slowMessageText(body)
		if err != nil || want == nil || *want != text {
			t.Fatalf("%q: fast %q, encoding/xml %v %v", body, text, want, err)
		}
	})
}
