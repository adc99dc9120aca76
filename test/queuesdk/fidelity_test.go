package queuesdk_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/queueerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/sas"
)

// TestSetQueueACLValidation: Set Queue ACL refuses what Azure refuses —
// more than five policies, an Id over 64 characters, a permission letter
// a queue does not have — and keeps the previous policies.
func TestSetQueueACLValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	qc := f.createQueue(qname("acl"), nil)
	expiry := f.clock.Now().Add(time.Hour)
	policyOf := func(id, perms string) *azqueue.SignedIdentifier {
		return &azqueue.SignedIdentifier{ID: ptr(id), AccessPolicy: &azqueue.AccessPolicy{Expiry: &expiry, Permission: ptr(perms)}}
	}
	_, err := qc.SetAccessPolicy(ctx, &azqueue.SetAccessPolicyOptions{QueueACL: []*azqueue.SignedIdentifier{policyOf(strings.Repeat("i", 64), "raup")}})
	must(t, err, "a 64-character Id and every queue letter")

	six := make([]*azqueue.SignedIdentifier, 6)
	for i := range six {
		six[i] = policyOf(string(rune('a'+i)), "r")
	}
	_, err = qc.SetAccessPolicy(ctx, &azqueue.SetAccessPolicyOptions{QueueACL: six})
	checkErr(t, err, http.StatusBadRequest, queueerror.InvalidXMLDocument, "six policies")
	_, err = qc.SetAccessPolicy(ctx, &azqueue.SetAccessPolicyOptions{QueueACL: six[:5]})
	must(t, err, "five policies")

	_, err = qc.SetAccessPolicy(ctx, &azqueue.SetAccessPolicyOptions{QueueACL: []*azqueue.SignedIdentifier{policyOf(strings.Repeat("i", 65), "r")}})
	checkErr(t, err, http.StatusBadRequest, queueerror.InvalidXMLDocument, "a 65-character Id")
	for _, bad := range []string{"rw", "d", "rl", "x"} {
		_, err = qc.SetAccessPolicy(ctx, &azqueue.SetAccessPolicyOptions{QueueACL: []*azqueue.SignedIdentifier{policyOf("p", bad)}})
		checkErr(t, err, http.StatusBadRequest, queueerror.InvalidXMLDocument, "permission "+bad)
		// At line 0, position 0, with an empty reason (@azure/storage-
		// queue's recording "setAccessPolicy negative").
		if msg := err.Error(); !strings.Contains(msg, "<LineNumber>0</LineNumber><LinePosition>0</LinePosition><Reason") {
			t.Errorf("permission %s: %s", bad, msg)
		}
	}
	got, err := qc.GetAccessPolicy(ctx, nil)
	must(t, err, "GetAccessPolicy")
	if len(got.SignedIdentifiers) != 5 {
		t.Fatalf("after refused updates: %d policies, want the 5 set before", len(got.SignedIdentifiers))
	}

	// Stored access policies are the account owner's business.
	acct := f.sasQueue(qname("x"), f.fullAccountSAS())
	_, err = f.sasQueue(strings.TrimPrefix(qc.URL(), f.env.QueueURL), f.fullAccountSAS()).GetAccessPolicy(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationFailure, "Get Queue ACL with an account SAS")
	_, err = acct.SetAccessPolicy(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationFailure, "Set Queue ACL with an account SAS")
}

// TestMessageTextRoundTrip: message text comes back exactly as it was
// put — XML metacharacters, quotes, unicode beyond the BMP, CR LF, tabs,
// whitespace alone (the Python SDK's recording
// test_queue_encodings.test_message_text_xml_whitespace: "  mess\t
// age1\n" comes back as sent), and 64 KiB of characters that take more
// than one byte or escape to more than one.
func TestMessageTextRoundTrip(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	qc := f.createQueue(qname("text"), nil)
	texts := []string{
		`<tag attr="v">a & b</tag>`,
		"line one\r\nline two\nline three\r",
		"tab\there 'single' \"double\" &amp; &lt;not an entity&gt;",
		"ünïcödé ✓ 𝄞 日本語 🙂",
		"]]> <![CDATA[x]]>",
		"   leading and trailing spaces   ",
		"  mess\t age1\n",
		" \t\r\n ",
		"\r",
		"\uFFFD \uE000 \U0010FFFD",
		strings.Repeat("🙂", 64*1024/4),
		strings.Repeat(`<&>"'`, 64*1024/5),
	}
	for _, text := range texts {
		enqueue(t, qc, text, nil)
	}
	got := peekedTexts(peek(t, qc, int32(len(texts))))
	if len(got) != len(texts) {
		t.Fatalf("peeked %d messages, want %d", len(got), len(texts))
	}
	for i, want := range texts {
		if got[i] != want {
			t.Errorf("message %d: got %.80q, want %.80q", i, got[i], want)
		}
	}
	// Characters no XML document may hold never reach the server from the
	// Go SDK: its encoding/xml writes each as U+FFFD, which is stored.
	enqueue(t, qc, "a\x01b\x00c", nil)
	if got := peekedTexts(peek(t, qc, 32)); got[len(got)-1] != "a\uFFFDb\uFFFDc" {
		t.Errorf("text with U+0001 and U+0000 through the Go SDK: got %q", got[len(got)-1])
	}
	// The same through a raw request: a literal CR LF inside the XML is
	// line-end normalised as every XML reader does, an escaped one kept.
	body := "<QueueMessage><MessageText>a&#xD;&#xA;b &lt;&amp;&gt; c</MessageText></QueueMessage>"
	name := strings.TrimPrefix(qc.URL(), f.env.QueueURL)
	if r := f.raw(http.MethodPost, name+"/messages", body, nil); r.StatusCode != http.StatusCreated {
		t.Fatalf("raw put: %d %s", r.StatusCode, r.Body)
	}
	got = peekedTexts(peek(t, qc, 32))
	if last := got[len(got)-1]; last != "a\r\nb <&> c" {
		t.Errorf("raw message text %q", last)
	}
	// Sent raw, such a character is refused as Azure refuses it (the
	// Python SDK's recording test_message_text_xml_invalid_chars: 400
	// InvalidXmlDocument), and so is a reference to one.
	for _, text := range []string{"\x01", "&#x1;", "&#xD800;"} {
		f.raw(http.MethodPost, name+"/messages", "<QueueMessage><MessageText>"+text+"</MessageText></QueueMessage>", nil).
			Check(t, http.StatusBadRequest, "InvalidXmlDocument", fmt.Sprintf("raw put of %q", text))
	}
	if n := len(peek(t, qc, 32)); n != len(texts)+2 {
		t.Errorf("%d messages after the refused puts, want %d", n, len(texts)+2)
	}
}

// TestMessageParameterRanges: numofmessages, visibilitytimeout and
// messagettl outside Azure's ranges are refused with the parameter, the
// value and the bounds in the error body.
func TestMessageParameterRanges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	qc := f.createQueue(qname("ranges"), nil)
	name := strings.TrimPrefix(qc.URL(), f.env.QueueURL)
	put := "<QueueMessage><MessageText>x</MessageText></QueueMessage>"
	for _, tc := range []struct {
		method, query, body string
		status              int
		code                string
		details             []string
	}{
		{http.MethodGet, "peekonly=true&numofmessages=0", "", 400, "OutOfRangeQueryParameterValue", []string{"<QueryParameterName>numofmessages</QueryParameterName>", "<QueryParameterValue>0</QueryParameterValue>", "<MinimumAllowed>1</MinimumAllowed>", "<MaximumAllowed>32</MaximumAllowed>"}},
		{http.MethodGet, "peekonly=true&numofmessages=33", "", 400, "OutOfRangeQueryParameterValue", []string{"<QueryParameterValue>33</QueryParameterValue>", "<MaximumAllowed>32</MaximumAllowed>"}},
		{http.MethodGet, "numofmessages=33", "", 400, "OutOfRangeQueryParameterValue", []string{"<QueryParameterName>numofmessages</QueryParameterName>"}},
		{http.MethodGet, "visibilitytimeout=0", "", 400, "OutOfRangeQueryParameterValue", []string{"<QueryParameterName>visibilitytimeout</QueryParameterName>", "<MinimumAllowed>1</MinimumAllowed>", "<MaximumAllowed>604800</MaximumAllowed>"}},
		{http.MethodGet, "visibilitytimeout=604801", "", 400, "OutOfRangeQueryParameterValue", []string{"<QueryParameterValue>604801</QueryParameterValue>"}},
		{http.MethodGet, "numofmessages=two", "", 400, "InvalidQueryParameterValue", []string{"<QueryParameterName>numofmessages</QueryParameterName>"}},
		{http.MethodPost, "visibilitytimeout=604801", put, 400, "OutOfRangeQueryParameterValue", []string{"<QueryParameterName>visibilitytimeout</QueryParameterName>", "<MinimumAllowed>0</MinimumAllowed>", "<MaximumAllowed>604800</MaximumAllowed>"}},
		{http.MethodPost, "messagettl=0", put, 400, "OutOfRangeQueryParameterValue", []string{"<QueryParameterName>messagettl</QueryParameterName>", "<QueryParameterValue>0</QueryParameterValue>", "<MinimumAllowed>1</MinimumAllowed>"}},
		{http.MethodPost, "messagettl=-2", put, 400, "OutOfRangeQueryParameterValue", []string{"<QueryParameterValue>-2</QueryParameterValue>"}},
		{http.MethodPost, "messagettl=604801", put, 201, "", nil},
		{http.MethodPost, "visibilitytimeout=-1", put, 400, "OutOfRangeQueryParameterValue", []string{"<QueryParameterName>visibilitytimeout</QueryParameterName>"}},
		{http.MethodPost, "visibilitytimeout=60&messagettl=60", put, 400, "InvalidQueryParameterValue", []string{"<QueryParameterName>visibilitytimeout</QueryParameterName>"}},
		{http.MethodPost, "messagettl=-1&visibilitytimeout=604800", put, 201, "", nil},
		{http.MethodPost, "messagettl=1", put, 201, "", nil},
		{http.MethodGet, "peekonly=true&numofmessages=32", "", 200, "", nil},
		{http.MethodGet, "numofmessages=1&visibilitytimeout=604800", "", 200, "", nil},
	} {
		r := f.raw(tc.method, name+"/messages?"+tc.query, tc.body, nil)
		if !r.Check(t, tc.status, tc.code, tc.method+" "+tc.query) {
			continue
		}
		for _, d := range tc.details {
			if !strings.Contains(string(r.Body), d) {
				t.Errorf("%s %s: body lacks %s\n%s", tc.method, tc.query, d, r.Body)
			}
		}
	}
}

// TestQueueSASCreate: an account SAS creates a queue with w or with c, a
// queue SAS never (AuthorizationFailure, as Azure answers it).
func TestQueueSASCreate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	now := f.clock.Now()
	for _, perms := range []sas.AccountPermissions{{Write: true}, {Create: true}} {
		token := f.accountSAS(perms, sas.AccountResourceTypes{Container: true}, now.Add(-time.Minute), now.Add(time.Hour))
		_, err := f.sasQueue(qname("sascreate"), token).Create(ctx, nil)
		must(t, err, "Create Queue with account SAS sp=%s", perms.String())
	}
	token := f.accountSAS(sas.AccountPermissions{Read: true, Add: true}, sas.AccountResourceTypes{Container: true}, now.Add(-time.Minute), now.Add(time.Hour))
	_, err := f.sasQueue(qname("sascreate"), token).Create(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationPermissionMismatch, "Create Queue with account SAS sp=ra")
	token = f.accountSAS(sas.AccountPermissions{Create: true}, sas.AccountResourceTypes{Object: true}, now.Add(-time.Minute), now.Add(time.Hour))
	_, err = f.sasQueue(qname("sascreate"), token).Create(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationResourceTypeMismatch, "Create Queue with an object-only account SAS")

	name := qname("sascreate")
	qsas := f.queueSAS(name, sas.QueueSignatureValues{StartTime: now.Add(-time.Minute), ExpiryTime: now.Add(time.Hour), Permissions: (&sas.QueuePermissions{Read: true, Add: true, Update: true, Process: true}).String()})
	_, err = f.sasQueue(name, qsas).Create(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationFailure, "Create Queue with a queue SAS")
}
