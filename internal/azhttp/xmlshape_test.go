package azhttp

import (
	"errors"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

func TestCheckXML(t *testing.T) {
	nested := func(n int) string { return "<r>" + strings.Repeat("<a>", n-1) + strings.Repeat("</a>", n-1) + "</r>" }
	cases := []struct {
		doc     string
		refused bool
	}{
		{`<?xml version="1.0"?><Tags><TagSet/></Tags>`, false},
		{`<Tags><!-- a comment --><TagSet/></Tags>`, false},
		{`<QueueMessage><MessageText><![CDATA[<!DOCTYPE x>]]></MessageText></QueueMessage>`, false},
		{`<QueueMessage><MessageText>&lt;!DOCTYPE x&gt;</MessageText></QueueMessage>`, false},
		{`<?xml version="1.0"?><!DOCTYPE Tags><Tags/>`, true},
		{`<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>`, true},
		{`<r><!ENTITY x "y"></r>`, true},
		{`<r><!-- unterminated`, false},
		{nested(MaxXMLDepth), false},
		{nested(MaxXMLDepth + 1), true},
		{"<r>" + strings.Repeat("<a/>", 10*MaxXMLDepth) + "</r>", false},
	}
	for _, c := range cases {
		err := CheckXML([]byte(c.doc))
		if refused := errors.Is(err, azerr.ErrInvalidXmlDocument); refused != c.refused || err != nil && !refused {
			t.Errorf("CheckXML(%.60q) = %v, want refused %v", c.doc, err, c.refused)
		}
	}
}
