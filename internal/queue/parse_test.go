package queue

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

func TestParseMessageText(t *testing.T) {
	for _, tc := range []struct {
		body     string
		optional bool
		want     string // "" with wantErr nil means nil text
		wantErr  *azerr.Error
	}{
		{body: `<QueueMessage><MessageText>hi</MessageText></QueueMessage>`, want: "hi"},
		{body: `<?xml version="1.0" encoding="utf-8"?><QueueMessage><MessageText>a &amp; &lt;b&gt;</MessageText></QueueMessage>`, want: "a & <b>"},
		{body: `<QueueMessage><MessageText></MessageText></QueueMessage>`, want: ""},
		{body: ``, optional: true},
		{body: ``, wantErr: azerr.ErrInvalidXmlDocument},
		{body: `<QueueMessage><MessageText>x</QueueMessage>`, wantErr: azerr.ErrInvalidXmlDocument},
		{body: `<QueueMessage></QueueMessage>`, wantErr: azerr.ErrInvalidXmlDocument},
		{body: `<Other><MessageText>x</MessageText></Other>`, wantErr: azerr.ErrInvalidXmlDocument},
		{body: `not xml`, wantErr: azerr.ErrInvalidXmlDocument},
		{body: `<QueueMessage><MessageText>` + strings.Repeat("x", MaxMessageSize+1) + `</MessageText></QueueMessage>`, wantErr: azerr.ErrRequestBodyTooLarge},
		{body: `<QueueMessage><MessageText>` + strings.Repeat("&amp;", MaxMessageSize) + `</MessageText></QueueMessage>`, want: strings.Repeat("&", MaxMessageSize)},
		// Characters XML 1.0 does not allow, literal or referenced, are
		// refused (REST reference, Put Message: the text must fit in an
		// XML request); the allowed controls, whitespace alone and
		// characters beyond the BMP are text like any other.
		{body: "<QueueMessage><MessageText>\x01</MessageText></QueueMessage>", wantErr: azerr.ErrInvalidXmlDocument},
		{body: "<QueueMessage><MessageText>a\x1fb</MessageText></QueueMessage>", wantErr: azerr.ErrInvalidXmlDocument},
		{body: "<QueueMessage><MessageText>\uFFFE</MessageText></QueueMessage>", wantErr: azerr.ErrInvalidXmlDocument},
		{body: `<QueueMessage><MessageText>&#x1;</MessageText></QueueMessage>`, wantErr: azerr.ErrInvalidXmlDocument},
		{body: `<QueueMessage><MessageText>&#0;</MessageText></QueueMessage>`, wantErr: azerr.ErrInvalidXmlDocument},
		{body: `<QueueMessage><MessageText>&#xD800;</MessageText></QueueMessage>`, wantErr: azerr.ErrInvalidXmlDocument},
		{body: `<QueueMessage><MessageText>&#xFFFF;</MessageText></QueueMessage>`, wantErr: azerr.ErrInvalidXmlDocument},
		{body: `<QueueMessage><MessageText>&#x110000;</MessageText></QueueMessage>`, wantErr: azerr.ErrInvalidXmlDocument},
		{body: `<QueueMessage><MessageText>&#x9;&#10;&#xD;&#x10000;&#xFFFD;</MessageText></QueueMessage>`, want: "\t\n\r\U00010000\uFFFD"},
		{body: "<QueueMessage><MessageText>\t \U0001F642 \uFFFD</MessageText></QueueMessage>", want: "\t \U0001F642 \uFFFD"},
		{body: `<QueueMessage><MessageText>   </MessageText></QueueMessage>`, want: "   "},
		{body: `<QueueMessage><MessageText><![CDATA[&#x1; <raw> & ]]></MessageText></QueueMessage>`, want: "&#x1; <raw> & "},
		{body: `<QueueMessage><!-- &#x1; --><MessageText>c</MessageText></QueueMessage>`, want: "c"},
	} {
		got, err := parseMessageText([]byte(tc.body), tc.optional)
		short := tc.body[:min(len(tc.body), 60)]
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("%q: got %v, want %s", short, err, tc.wantErr.Code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", short, err)
			continue
		}
		if tc.body == "" {
			if got != nil {
				t.Errorf("empty optional body gave %q", *got)
			}
			continue
		}
		if got == nil || *got != tc.want {
			t.Errorf("%q: got %v, want %q", short, got, tc.want)
		}
	}
}

func TestPutOptions(t *testing.T) {
	for _, tc := range []struct {
		query, version string
		want           PutOptions
		wantErr        *azerr.Error
	}{
		{query: "", want: PutOptions{TTL: DefaultTTL}},
		{query: "visibilitytimeout=10&messagettl=60", want: PutOptions{Visibility: 10 * time.Second, TTL: time.Minute}},
		{query: "messagettl=-1", want: PutOptions{NoExpiry: true}},
		{query: "messagettl=-1", version: "2017-04-17", wantErr: azerr.ErrOutOfRangeQueryParameterValue},
		{query: "messagettl=604801", version: "2017-04-17", wantErr: azerr.ErrOutOfRangeQueryParameterValue},
		{query: "messagettl=31536000", version: "2024-08-04", want: PutOptions{TTL: 365 * 24 * time.Hour}},
		{query: "messagettl=0", wantErr: azerr.ErrOutOfRangeQueryParameterValue},
		{query: "messagettl=-2", wantErr: azerr.ErrOutOfRangeQueryParameterValue},
		{query: "messagettl=abc", wantErr: azerr.ErrInvalidQueryParameterValue},
		{query: "visibilitytimeout=-1", wantErr: azerr.ErrOutOfRangeQueryParameterValue},
		{query: "visibilitytimeout=604801", wantErr: azerr.ErrOutOfRangeQueryParameterValue},
		{query: "visibilitytimeout=1.5", wantErr: azerr.ErrInvalidQueryParameterValue},
		{query: "visibilitytimeout=99999999999999999999", wantErr: azerr.ErrInvalidQueryParameterValue},
	} {
		q, _ := url.ParseQuery(tc.query)
		got, err := putOptions(q, tc.version)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("%q (%s): got %v, want %s", tc.query, tc.version, err, tc.wantErr.Code)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q (%s): got %+v %v, want %+v", tc.query, tc.version, got, err, tc.want)
		}
	}
}

func TestNumMessages(t *testing.T) {
	for q, want := range map[string]int{"": 1, "numofmessages=1": 1, "numofmessages=32": 32, "numofmessages=0": -1, "numofmessages=33": -1, "numofmessages=x": -2} {
		v, _ := url.ParseQuery(q)
		n, err := numMessages(v)
		switch want {
		case -1:
			if !errors.Is(err, azerr.ErrOutOfRangeQueryParameterValue) {
				t.Errorf("%q: %v %v", q, n, err)
			}
		case -2:
			if !errors.Is(err, azerr.ErrInvalidQueryParameterValue) {
				t.Errorf("%q: %v %v", q, n, err)
			}
		default:
			if err != nil || n != want {
				t.Errorf("%q: %v %v", q, n, err)
			}
		}
	}
}

func TestReceiptRoundTrip(t *testing.T) {
	m := &message{Visible: time.Unix(0, 1234567890123), Seq: 42, Receipt: 77}
	rc, err := parseReceipt(issueReceipt(m))
	if err != nil || rc.visible != 1234567890123 || rc.seq != 42 || rc.version != 77 {
		t.Fatalf("round trip: %+v %v", rc, err)
	}
	// A receipt pasted into a URL without escaping its '+' still works.
	s := issueReceipt(&message{Visible: time.Unix(0, 0xfbfbfbfb), Seq: 0xfbfbfbfbfb, Receipt: 1})
	if !strings.Contains(s, "+") {
		t.Skip("chosen receipt has no '+'")
	}
	if _, err := parseReceipt(strings.ReplaceAll(s, "+", " ")); err != nil {
		t.Errorf("receipt with spaces for '+': %v", err)
	}
}

func TestMessageIDs(t *testing.T) {
	id := newMessageID()
	s := formatID(id)
	back, ok := parseID(s)
	if !ok || back != id {
		t.Fatalf("%s does not round-trip", s)
	}
	if up, ok := parseID("{" + strings.ToUpper(s) + "}"); !ok || up != id {
		t.Errorf("upper case with braces not accepted")
	}
	for _, bad := range []string{"", "x", strings.Replace(s, "-", "", 1), s[:35] + "g"} {
		if _, ok := parseID(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestMessageRecordRoundTrip(t *testing.T) {
	m := &message{ID: newMessageID(), Seq: 9, Inserted: time.Unix(100, 5).UTC(), Expires: time.Unix(200, 0).UTC(), Visible: time.Unix(150, 7).UTC(), Receipt: 11, DequeueCount: 3, Text: "hé\x00llo"}
	back, err := decodeMessage(encodeMessage(m))
	if err != nil || *back != *m {
		t.Fatalf("round trip: %+v %v, want %+v", back, err, m)
	}
	m.Expires = time.Time{}
	back, _ = decodeMessage(encodeMessage(m))
	if !back.Expires.IsZero() {
		t.Errorf("never-expiring message decodes with expiry %v", back.Expires)
	}
	if _, err := decodeMessage([]byte{2, 0}); err == nil {
		t.Errorf("short record decoded")
	}
}

func TestQueueNames(t *testing.T) {
	for name, want := range map[string]*azerr.Error{
		"abc": nil, "my-queue-1": nil, "0queue": nil, strings.Repeat("a", 63): nil,
		"ab": azerr.ErrOutOfRangeInput, strings.Repeat("a", 64): azerr.ErrOutOfRangeInput,
		"-abc": azerr.ErrInvalidResourceName, "abc-": azerr.ErrInvalidResourceName, "a--b": azerr.ErrInvalidResourceName,
		"Abc": azerr.ErrInvalidResourceName, "a_bc": azerr.ErrInvalidResourceName, "abc.d": azerr.ErrInvalidResourceName,
	} {
		err := checkQueueName(name)
		if want == nil && err != nil || want != nil && !errors.Is(err, want) {
			t.Errorf("%q: got %v, want %v", name, err, want)
		}
	}
}

func TestSplitPath(t *testing.T) {
	for p, want := range map[string]resourcePath{
		"/acct":                   {acct: "acct"},
		"/acct/":                  {acct: "acct"},
		"/acct/q":                 {acct: "acct", queue: "q"},
		"/acct/q/messages":        {acct: "acct", queue: "q", messages: true},
		"/acct/q/messages/id":     {acct: "acct", queue: "q", messages: true, id: "id"},
		"/acct/q/other":           {acct: "acct", queue: "q", invalid: true},
		"/acct/q/messages/id/x":   {acct: "acct", queue: "q", messages: true, id: "id", invalid: true},
		"/acct/q/messages//":      {acct: "acct", queue: "q", messages: true},
		"/acct/q/messages/id/x/y": {acct: "acct", queue: "q", messages: true, id: "id", invalid: true},
	} {
		if got := splitPath(p); got != want {
			t.Errorf("%q: got %+v, want %+v", p, got, want)
		}
	}
}

// TestQueryErrorDetails: a rejected integer parameter names itself, its
// value and, when out of range, the range, as Azure's error document does.
func TestQueryErrorDetails(t *testing.T) {
	q, _ := url.ParseQuery("numofmessages=33&visibilitytimeout=soon")
	_, err := numMessages(q)
	var e *azerr.Error
	if !errors.As(err, &e) || e.Detail("QueryParameterName") != "numofmessages" || e.Detail("QueryParameterValue") != "33" ||
		e.Detail("MinimumAllowed") != "1" || e.Detail("MaximumAllowed") != "32" {
		t.Errorf("numofmessages=33: %v %+v", err, e)
	}
	_, err = intParam(q, "visibilitytimeout", 0, 0, 10)
	if !errors.As(err, &e) || e.Code != azerr.ErrInvalidQueryParameterValue.Code || e.Detail("QueryParameterName") != "visibilitytimeout" || e.Detail("QueryParameterValue") != "soon" {
		t.Errorf("visibilitytimeout=soon: %v %+v", err, e)
	}
}
