package queue

import (
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzParseMessageText: any body either parses to valid UTF-8 text within
// the limit or is rejected with an error; nothing panics.
func FuzzParseMessageText(f *testing.F) {
	f.Add([]byte(`<QueueMessage><MessageText>hi</MessageText></QueueMessage>`), false)
	f.Add([]byte(`<QueueMessage><MessageText>a<b>c</b>d</MessageText></QueueMessage>`), true)
	f.Add([]byte(`<QueueMessage><MessageText><![CDATA[x]]></MessageText></QueueMessage>`), false)
	f.Add([]byte(`<!DOCTYPE x [<!ENTITY a "b">]><QueueMessage><MessageText>&a;</MessageText></QueueMessage>`), false)
	f.Add([]byte(``), true)
	f.Fuzz(func(t *testing.T, body []byte, optional bool) {
		text, err := parseMessageText(body, optional)
		if err != nil {
			if text != nil {
				t.Fatal("text returned with an error")
			}
			return
		}
		if text == nil {
			if !optional {
				t.Fatal("nil text for a required body")
			}
			return
		}
		if len(*text) > MaxMessageSize || !utf8.ValidString(*text) {
			t.Fatalf("accepted text of %d bytes, valid UTF-8 %v", len(*text), utf8.ValidString(*text))
		}
	})
}

// FuzzQueryInts: the integer query parameters either parse within their
// documented bounds or are rejected.
func FuzzQueryInts(f *testing.F) {
	for _, s := range []string{"visibilitytimeout=10&messagettl=-1", "numofmessages=32", "messagettl=1e3", "visibilitytimeout=%2B5", "messagettl=9223372036854775807"} {
		f.Add(s, "2024-08-04")
	}
	f.Add("messagettl=-1", "2015-04-05")
	f.Fuzz(func(t *testing.T, raw, version string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		if o, err := putOptions(q, version); err == nil {
			if o.Visibility < 0 || o.Visibility > MaxVisibilityTimeout {
				t.Fatalf("visibility %v accepted", o.Visibility)
			}
			if !o.NoExpiry && o.TTL < time.Second {
				t.Fatalf("ttl %v accepted", o.TTL)
			}
			if o.NoExpiry && version != "" && version < infiniteTTLVersion {
				t.Fatalf("messagettl=-1 accepted at version %q", version)
			}
		}
		if n, err := numMessages(q); err == nil && (n < 1 || n > MaxMessagesPerGet) {
			t.Fatalf("numofmessages %d accepted", n)
		}
	})
}

// FuzzReceiptAndID: receipts and message ids from the URL never panic, and
// whatever parses round-trips.
func FuzzReceiptAndID(f *testing.F) {
	f.Add("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "0c4b7b1e-9d2e-4c1a-8f7e-1a2b3c4d5e6f")
	f.Add("a b+c/==", "{0C4B7B1E-9D2E-4C1A-8F7E-1A2B3C4D5E6F}")
	f.Fuzz(func(t *testing.T, receiptText, id string) {
		if rc, err := parseReceipt(receiptText); err == nil {
			m := &message{Visible: rc.visibleAt(), Seq: rc.seq, Receipt: rc.version}
			if back, err := parseReceipt(issueReceipt(m)); err != nil || back != rc {
				t.Fatalf("receipt %q: re-issued as %+v (%v), want %+v", receiptText, back, err, rc)
			}
		}
		if got, ok := parseID(id); ok {
			if back, ok := parseID(formatID(got)); !ok || back != got {
				t.Fatalf("id %q does not round-trip", id)
			}
			if !strings.EqualFold(strings.Trim(id, "{}"), formatID(got)) {
				t.Fatalf("id %q parsed as %s", id, formatID(got))
			}
		}
		_ = splitPath(id)
		_ = checkQueueName(id)
	})
}
