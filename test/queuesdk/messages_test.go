package queuesdk_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/queueerror"
)

var guid = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// TestMessageLifecycle: Put (201 with id, times and a receipt), Get (hidden
// for the timeout, DequeueCount 1, new receipt), Delete (204).
func TestMessageLifecycle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	qc := f.createQueue(qname("life"), nil)
	now := f.clock.Now()

	var raw *http.Response
	resp, err := qc.EnqueueMessage(policy.WithCaptureResponse(ctx, &raw), "hello <world> & friends", nil)
	mustStatus(t, err, raw, http.StatusCreated, "EnqueueMessage")
	put := resp.Messages[0]
	if !guid.MatchString(deref(put.MessageID)) || deref(put.PopReceipt) == "" {
		t.Errorf("enqueued: id %q receipt %q", deref(put.MessageID), deref(put.PopReceipt))
	}
	if !deref(put.InsertionTime).Equal(now) || !deref(put.TimeNextVisible).Equal(now) || !deref(put.ExpirationTime).Equal(now.Add(7*24*time.Hour)) {
		t.Errorf("enqueued times: inserted %v visible %v expires %v (now %v)", put.InsertionTime, put.TimeNextVisible, put.ExpirationTime, now)
	}

	got := dequeue(t, qc, 1, 45)
	if len(got) != 1 {
		t.Fatalf("dequeued %d messages", len(got))
	}
	m := got[0]
	if deref(m.MessageID) != deref(put.MessageID) || deref(m.MessageText) != "hello <world> & friends" || deref(m.DequeueCount) != 1 {
		t.Errorf("dequeued: id %s text %q count %d", deref(m.MessageID), deref(m.MessageText), deref(m.DequeueCount))
	}
	if !deref(m.TimeNextVisible).Equal(now.Add(45*time.Second)) || deref(m.PopReceipt) == deref(put.PopReceipt) {
		t.Errorf("dequeued: next visible %v, receipt reused %v", deref(m.TimeNextVisible), deref(m.PopReceipt) == deref(put.PopReceipt))
	}
	if n := approxCount(t, qc); n != 1 {
		t.Errorf("count while invisible: %d", n)
	}
	if p := peek(t, qc, 32); len(p) != 0 {
		t.Errorf("peek shows an invisible message: %v", peekedTexts(p))
	}

	_, err = qc.DeleteMessage(policy.WithCaptureResponse(ctx, &raw), deref(m.MessageID), deref(m.PopReceipt), nil)
	mustStatus(t, err, raw, http.StatusNoContent, "DeleteMessage")
	f.clock.Advance(time.Minute)
	if got := dequeue(t, qc, 32, 30); len(got) != 0 {
		t.Errorf("deleted message dequeued again")
	}
	if n := approxCount(t, qc); n != 0 {
		t.Errorf("count after delete: %d", n)
	}
}

// TestMessageReappears: a consumer that does not delete in time loses the
// message; it comes back with DequeueCount 2 and the old receipt neither
// deletes nor updates it.
func TestMessageReappears(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	qc := f.createQueue(qname("reappear"), nil)
	enqueue(t, qc, "job", nil)

	slow := dequeue(t, qc, 1, 10)[0]
	f.clock.Advance(9 * time.Second)
	if got := dequeue(t, qc, 1, 10); len(got) != 0 {
		t.Fatalf("handed out again inside the window")
	}
	f.clock.Advance(time.Second)
	fast := dequeue(t, qc, 1, 10)
	if len(fast) != 1 || deref(fast[0].MessageID) != deref(slow.MessageID) || deref(fast[0].DequeueCount) != 2 {
		t.Fatalf("after the window: %+v", fast)
	}
	checkReceiptRejected(t, qc, deref(slow.MessageID), deref(slow.PopReceipt), "the slow consumer's receipt")
	_, err := qc.DeleteMessage(ctx, deref(fast[0].MessageID), deref(fast[0].PopReceipt), nil)
	must(t, err, "Delete with the current receipt")
	if n := approxCount(t, qc); n != 0 {
		t.Errorf("count after delete: %d", n)
	}
}

// TestUpdateMessage: new content and visibility, a new receipt, and the
// old receipt invalid; DequeueCount unchanged.
func TestUpdateMessage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	qc := f.createQueue(qname("update"), nil)
	enqueue(t, qc, "draft", nil)
	m := dequeue(t, qc, 1, 30)[0]

	var raw *http.Response
	up, err := qc.UpdateMessage(policy.WithCaptureResponse(ctx, &raw), deref(m.MessageID), deref(m.PopReceipt), "final", &azqueue.UpdateMessageOptions{VisibilityTimeout: ptr(int32(20))})
	mustStatus(t, err, raw, http.StatusNoContent, "UpdateMessage")
	if deref(up.PopReceipt) == "" || deref(up.PopReceipt) == deref(m.PopReceipt) {
		t.Errorf("UpdateMessage receipt %q (old %q)", deref(up.PopReceipt), deref(m.PopReceipt))
	}
	if !deref(up.TimeNextVisible).Equal(f.clock.Now().Add(20 * time.Second)) {
		t.Errorf("TimeNextVisible %v, want now+20s", deref(up.TimeNextVisible))
	}
	checkReceiptRejected(t, qc, deref(m.MessageID), deref(m.PopReceipt), "the pre-update receipt")

	f.clock.Advance(19 * time.Second)
	if p := peek(t, qc, 1); len(p) != 0 {
		t.Fatalf("visible before the updated window ends")
	}
	f.clock.Advance(time.Second)
	p := peek(t, qc, 1)
	if len(p) != 1 || deref(p[0].MessageText) != "final" || deref(p[0].DequeueCount) != 1 {
		t.Fatalf("after update: %v count %d", peekedTexts(p), deref(p[0].DequeueCount))
	}

	// Visibility 0 (the SDK default) makes a message visible at once.
	m = dequeue(t, qc, 1, 30)[0]
	up, err = qc.UpdateMessage(ctx, deref(m.MessageID), deref(m.PopReceipt), "retry me", nil)
	must(t, err, "UpdateMessage with visibility 0")
	if p := peek(t, qc, 1); len(p) != 1 || deref(p[0].MessageText) != "retry me" || deref(p[0].DequeueCount) != 2 {
		t.Errorf("after update to visibility 0: %v", peekedTexts(p))
	}
	_, err = qc.DeleteMessage(ctx, deref(m.MessageID), deref(up.PopReceipt), nil)
	must(t, err, "Delete with the update's receipt")

	// The put's receipt updates a message nobody has dequeued.
	put := enqueue(t, qc, "fresh", &azqueue.EnqueueMessageOptions{VisibilityTimeout: ptr(int32(3600))})
	_, err = qc.UpdateMessage(ctx, deref(put.MessageID), deref(put.PopReceipt), "changed before delivery", nil)
	must(t, err, "Update with the put's receipt")
	if p := peek(t, qc, 1); len(p) != 1 || deref(p[0].MessageText) != "changed before delivery" {
		t.Errorf("after updating a delayed message: %v", peekedTexts(p))
	}

	r := f.raw(http.MethodPut, strings.TrimPrefix(qc.URL(), f.env.QueueURL)+"/messages/"+deref(put.MessageID)+"?popreceipt=x", "", nil)
	r.Check(t, http.StatusBadRequest, "MissingRequiredQueryParameter", "Update without visibilitytimeout")
}

func TestPeekMessages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	qc := f.createQueue(qname("peek"), nil)
	for i := range 5 {
		enqueue(t, qc, fmt.Sprint(i), nil)
	}
	one, err := qc.PeekMessage(context.Background(), nil)
	must(t, err, "PeekMessage")
	if len(one.Messages) != 1 || deref(one.Messages[0].MessageText) != "0" || deref(one.Messages[0].DequeueCount) != 0 {
		t.Errorf("PeekMessage: %v", peekedTexts(one.Messages))
	}
	if got := peekedTexts(peek(t, qc, 32)); !slices.Equal(got, []string{"0", "1", "2", "3", "4"}) {
		t.Errorf("PeekMessages(32): %v", got)
	}
	// Peeking changes nothing: a Get still sees DequeueCount 1.
	if m := dequeue(t, qc, 1, 30); deref(m[0].DequeueCount) != 1 || deref(m[0].MessageText) != "0" {
		t.Errorf("dequeue after peeks: count %d text %q", deref(m[0].DequeueCount), deref(m[0].MessageText))
	}
	r := f.raw(http.MethodGet, strings.TrimPrefix(qc.URL(), f.env.QueueURL)+"/messages?peekonly=true&numofmessages=2", "", nil)
	if r.StatusCode != http.StatusOK || strings.Contains(string(r.Body), "PopReceipt") || strings.Contains(string(r.Body), "TimeNextVisible") || strings.Count(string(r.Body), "<QueueMessage>") != 2 {
		t.Errorf("raw peek: %d %s", r.StatusCode, r.Body)
	}
}

// TestMessageOrder: visible messages come out oldest first.
func TestMessageOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	qc := f.createQueue(qname("order"), nil)
	var want []string
	for i := range 40 {
		enqueue(t, qc, fmt.Sprintf("m%02d", i), nil)
		want = append(want, fmt.Sprintf("m%02d", i))
		if i%7 == 0 {
			f.clock.Advance(time.Millisecond)
		}
	}
	var got []string
	for _, m := range append(dequeue(t, qc, 32, 60), dequeue(t, qc, 32, 60)...) {
		got = append(got, deref(m.MessageText))
	}
	if !slices.Equal(got, want) {
		t.Errorf("dequeue order:\n got %v\nwant %v", got, want)
	}
}

// TestMessageTTL: a message is gone once its time-to-live has passed; it
// is never returned and no longer counted.
func TestMessageTTL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	qc := f.createQueue(qname("ttl"), nil)
	short := enqueue(t, qc, "short", &azqueue.EnqueueMessageOptions{TimeToLive: ptr(int32(10))})
	if !deref(short.ExpirationTime).Equal(f.clock.Now().Add(10 * time.Second)) {
		t.Errorf("ExpirationTime %v, want now+10s", deref(short.ExpirationTime))
	}
	enqueue(t, qc, "long", &azqueue.EnqueueMessageOptions{TimeToLive: ptr(int32(3600))})
	f.clock.Advance(9 * time.Second)
	if got := peekedTexts(peek(t, qc, 32)); !slices.Equal(got, []string{"short", "long"}) {
		t.Fatalf("before expiry: %v", got)
	}
	f.clock.Advance(time.Second)
	if got := peekedTexts(peek(t, qc, 32)); !slices.Equal(got, []string{"long"}) {
		t.Errorf("peek at expiry: %v", got)
	}
	if n := approxCount(t, qc); n != 1 {
		t.Errorf("count at expiry: %d", n)
	}
	got := dequeue(t, qc, 32, 30)
	if len(got) != 1 || deref(got[0].MessageText) != "long" {
		t.Errorf("dequeue at expiry returned %d messages", len(got))
	}
	_, err := qc.DeleteMessage(ctx, deref(short.MessageID), deref(short.PopReceipt), nil)
	checkErr(t, err, http.StatusNotFound, queueerror.MessageNotFound, "Delete an expired message")

	// A message that expires while invisible never comes back.
	enqueue(t, qc, "expires-invisible", &azqueue.EnqueueMessageOptions{TimeToLive: ptr(int32(20))})
	m := dequeue(t, qc, 1, 15)
	if len(m) != 1 || deref(m[0].MessageText) != "expires-invisible" {
		t.Fatalf("dequeue: %+v", m)
	}
	f.clock.Advance(30 * time.Minute)
	if got := dequeue(t, qc, 32, 30); len(got) != 1 || deref(got[0].MessageText) != "long" {
		t.Errorf("after the second expiry: %d messages", len(got))
	}
}

// TestMessageNoExpiry: messagettl=-1 never expires and reports Azure's
// 9999-12-31 23:59:59 expiry.
func TestMessageNoExpiry(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	qc := f.createQueue(qname("forever"), nil)
	m := enqueue(t, qc, "forever", &azqueue.EnqueueMessageOptions{TimeToLive: ptr(int32(-1))})
	never := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	if !deref(m.ExpirationTime).Equal(never) {
		t.Errorf("ExpirationTime %v, want %v", deref(m.ExpirationTime), never)
	}
	f.clock.Advance(10 * 365 * 24 * time.Hour)
	got := dequeue(t, qc, 1, 1)
	if len(got) != 1 || !deref(got[0].ExpirationTime).Equal(never) || deref(got[0].MessageText) != "forever" {
		t.Fatalf("after ten years: %+v", got)
	}
	// A TTL over the old seven-day maximum is fine at current versions.
	long := enqueue(t, qc, "a year", &azqueue.EnqueueMessageOptions{TimeToLive: ptr(int32(365 * 24 * 3600))})
	if !deref(long.ExpirationTime).Equal(f.clock.Now().Add(365 * 24 * time.Hour)) {
		t.Errorf("one-year TTL: ExpirationTime %v", deref(long.ExpirationTime))
	}
	_, err := qc.EnqueueMessage(context.Background(), "x", &azqueue.EnqueueMessageOptions{TimeToLive: ptr(int32(0))})
	checkErr(t, err, http.StatusBadRequest, queueerror.OutOfRangeQueryParameterValue, "messagettl=0")
	_, err = qc.EnqueueMessage(context.Background(), "x", &azqueue.EnqueueMessageOptions{TimeToLive: ptr(int32(-2))})
	checkErr(t, err, http.StatusBadRequest, queueerror.OutOfRangeQueryParameterValue, "messagettl=-2")
	r := f.raw(http.MethodPost, strings.TrimPrefix(qc.URL(), f.env.QueueURL)+"/messages?messagettl=-1", "<QueueMessage><MessageText>old</MessageText></QueueMessage>", map[string]string{"x-ms-version": "2017-04-17"})
	r.Check(t, http.StatusBadRequest, "OutOfRangeQueryParameterValue", "messagettl=-1 before version 2017-07-29")
}

// TestMessageSizeLimit: 64 KiB of text is the limit, counted after XML
// unescaping; beyond it Azure answers 413 RequestBodyTooLarge.
func TestMessageSizeLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	qc := f.createQueue(qname("size"), nil)
	enqueue(t, qc, strings.Repeat("x", 64*1024), nil)
	enqueue(t, qc, strings.Repeat("&", 64*1024), nil) // 320 KiB on the wire
	_, err := qc.EnqueueMessage(ctx, strings.Repeat("x", 64*1024+1), nil)
	checkErr(t, err, http.StatusRequestEntityTooLarge, queueerror.RequestBodyTooLarge, "Enqueue 64 KiB + 1")
	_, err = qc.EnqueueMessage(ctx, strings.Repeat("é", 32*1024+1), nil)
	checkErr(t, err, http.StatusRequestEntityTooLarge, queueerror.RequestBodyTooLarge, "Enqueue 64 KiB + 2 bytes of UTF-8")

	m := dequeue(t, qc, 1, 30)[0]
	if len(deref(m.MessageText)) != 64*1024 {
		t.Errorf("dequeued %d bytes", len(deref(m.MessageText)))
	}
	_, err = qc.UpdateMessage(ctx, deref(m.MessageID), deref(m.PopReceipt), strings.Repeat("y", 64*1024+1), nil)
	checkErr(t, err, http.StatusRequestEntityTooLarge, queueerror.RequestBodyTooLarge, "Update to 64 KiB + 1")
	_, err = qc.DeleteMessage(ctx, deref(m.MessageID), deref(m.PopReceipt), nil)
	must(t, err, "the rejected update left the receipt valid")
	r := f.raw(http.MethodPost, strings.TrimPrefix(qc.URL(), f.env.QueueURL)+"/messages", strings.Repeat(" ", 8<<20), nil)
	r.Check(t, http.StatusRequestEntityTooLarge, "RequestBodyTooLarge", "8 MiB body")
	if n := approxCount(t, qc); n != 1 {
		t.Errorf("count after rejected puts: %d, want 1", n)
	}
}

// TestQueryBounds: numofmessages is 1 to 32, Get's visibilitytimeout 1 s
// to 7 days, Put's 0 to 7 days and below the TTL.
func TestQueryBounds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	qc := f.createQueue(qname("bounds"), nil)
	for range 40 {
		enqueue(t, qc, "m", nil)
	}
	for _, n := range []int32{0, 33, -1} {
		_, err := qc.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: ptr(n)})
		checkErr(t, err, http.StatusBadRequest, queueerror.OutOfRangeQueryParameterValue, "DequeueMessages(numofmessages=%d)", n)
		_, err = qc.PeekMessages(ctx, &azqueue.PeekMessagesOptions{NumberOfMessages: ptr(n)})
		checkErr(t, err, http.StatusBadRequest, queueerror.OutOfRangeQueryParameterValue, "PeekMessages(numofmessages=%d)", n)
	}
	if got := peek(t, qc, 32); len(got) != 32 {
		t.Errorf("PeekMessages(32): %d", len(got))
	}
	_, err := qc.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{VisibilityTimeout: ptr(int32(0))})
	checkErr(t, err, http.StatusBadRequest, queueerror.OutOfRangeQueryParameterValue, "DequeueMessages(visibilitytimeout=0)")
	_, err = qc.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{VisibilityTimeout: ptr(int32(7*24*3600 + 1))})
	checkErr(t, err, http.StatusBadRequest, queueerror.OutOfRangeQueryParameterValue, "DequeueMessages(visibilitytimeout=7d+1s)")
	_, err = qc.EnqueueMessage(ctx, "x", &azqueue.EnqueueMessageOptions{VisibilityTimeout: ptr(int32(-1))})
	checkErr(t, err, http.StatusBadRequest, queueerror.OutOfRangeQueryParameterValue, "Enqueue(visibilitytimeout=-1)")
	_, err = qc.EnqueueMessage(ctx, "x", &azqueue.EnqueueMessageOptions{VisibilityTimeout: ptr(int32(60)), TimeToLive: ptr(int32(60))})
	checkErr(t, err, http.StatusBadRequest, queueerror.InvalidQueryParameterValue, "Enqueue with visibility not below the TTL")
	if got := dequeue(t, qc, 32, 7*24*3600); len(got) != 32 {
		t.Errorf("DequeueMessages(32, 7 days): %d", len(got))
	}
	base := strings.TrimPrefix(qc.URL(), f.env.QueueURL) + "/messages"
	f.raw(http.MethodGet, base+"?numofmessages=ten", "", nil).Check(t, http.StatusBadRequest, "InvalidQueryParameterValue", "numofmessages=ten")
	f.raw(http.MethodPost, base+"?visibilitytimeout=1.5", "<QueueMessage><MessageText>x</MessageText></QueueMessage>", nil).Check(t, http.StatusBadRequest, "InvalidQueryParameterValue", "visibilitytimeout=1.5")
	if n := approxCount(t, qc); n != 40 {
		t.Errorf("count after rejected requests: %d, want 40", n)
	}
}

// TestBadMessageBodies: malformed XML is 400 InvalidXmlDocument and stores
// nothing.
func TestBadMessageBodies(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	qc := f.createQueue(qname("badxml"), nil)
	base := strings.TrimPrefix(qc.URL(), f.env.QueueURL) + "/messages"
	for _, body := range []string{
		"",
		"not xml at all",
		"<QueueMessage><MessageText>unterminated</QueueMessage>",
		"<QueueMessage></QueueMessage>",
		"<Message><MessageText>wrong root</MessageText></Message>",
		"<QueueMessage><MessageText>\xff\xfe</MessageText></QueueMessage>",
	} {
		f.raw(http.MethodPost, base, body, nil).Check(t, http.StatusBadRequest, "InvalidXmlDocument", fmt.Sprintf("Put Message with body %q", body))
	}
	ok := f.raw(http.MethodPost, base, `<?xml version="1.0" encoding="utf-8"?><QueueMessage><MessageText>fine &amp; dandy</MessageText></QueueMessage>`, nil)
	if ok.StatusCode != http.StatusCreated {
		t.Fatalf("well-formed raw put: %d %s", ok.StatusCode, ok.Body)
	}
	m := dequeue(t, qc, 1, 30)[0]
	if deref(m.MessageText) != "fine & dandy" {
		t.Errorf("raw put text %q", deref(m.MessageText))
	}
	upd := base + "/" + deref(m.MessageID) + "?visibilitytimeout=0&popreceipt=" + queryEscape(deref(m.PopReceipt))
	f.raw(http.MethodPut, upd, "<QueueMessage><MessageText>", nil).Check(t, http.StatusBadRequest, "InvalidXmlDocument", "Update Message with a malformed body")
	// The failed update did not consume the receipt; an empty body updates
	// visibility only.
	r := f.raw(http.MethodPut, upd, "", nil)
	if r.StatusCode != http.StatusNoContent || r.Header.Get("x-ms-popreceipt") == "" || r.Header.Get("x-ms-time-next-visible") == "" {
		t.Fatalf("visibility-only update: %d %v", r.StatusCode, r.Header)
	}
	if p := peek(t, qc, 1); len(p) != 1 || deref(p[0].MessageText) != "fine & dandy" {
		t.Errorf("after visibility-only update: %v", peekedTexts(p))
	}
	if n := approxCount(t, qc); n != 1 {
		t.Errorf("count after bad bodies: %d, want 1", n)
	}
}

// TestDeleteMessageErrors: missing or malformed receipts, unknown ids.
func TestDeleteMessageErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	qc := f.createQueue(qname("delerr"), nil)
	a := enqueue(t, qc, "a", nil)
	b := enqueue(t, qc, "b", nil)
	base := strings.TrimPrefix(qc.URL(), f.env.QueueURL) + "/messages/" + deref(a.MessageID)
	f.raw(http.MethodDelete, base, "", nil).Check(t, http.StatusBadRequest, "MissingRequiredQueryParameter", "Delete without popreceipt")
	// A receipt that is not Base64 is malformed (Java's recording
	// QueueAsyncApiTests.deleteMessageInvalidArgs); one that is names no
	// message (.NET's QueueClientTests DeleteMessagAsync_Error).
	f.raw(http.MethodDelete, base+"?popreceipt="+url.QueryEscape(deref(a.PopReceipt)+"Random"), "", nil).Check(t, http.StatusBadRequest, "InvalidQueryParameterValue", "Delete with a malformed popreceipt")
	f.raw(http.MethodDelete, base+"?popreceipt=bm90LWEtcmVjZWlwdA%3D%3D", "", nil).Check(t, http.StatusNotFound, "MessageNotFound", "Delete with a Base64 popreceipt of no message")
	_, err := qc.DeleteMessage(ctx, deref(b.MessageID), deref(a.PopReceipt), nil)
	checkErr(t, err, http.StatusNotFound, queueerror.MessageNotFound, "Delete b with a's receipt")
	_, err = qc.DeleteMessage(ctx, "00000000-0000-4000-8000-000000000000", deref(a.PopReceipt), nil)
	checkErr(t, err, http.StatusNotFound, queueerror.MessageNotFound, "Delete an unknown id")
	_, err = f.svc.NewQueueClient("no-such-queue").DeleteMessage(ctx, deref(a.MessageID), deref(a.PopReceipt), nil)
	checkErr(t, err, http.StatusNotFound, queueerror.QueueNotFound, "Delete from a missing queue")
	f.raw(http.MethodDelete, base+"/extra?popreceipt=x", "", nil).Check(t, http.StatusBadRequest, "InvalidUri", "a path below a message")
	if n := approxCount(t, qc); n != 2 {
		t.Errorf("count after failed deletes: %d, want 2", n)
	}
}

func TestClearMessages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	qc := f.createQueue(qname("clear"), nil)
	for i := range 50 {
		enqueue(t, qc, fmt.Sprint(i), nil)
	}
	dequeue(t, qc, 10, 300) // invisible messages are cleared too
	var raw *http.Response
	_, err := qc.ClearMessages(policy.WithCaptureResponse(ctx, &raw), nil)
	mustStatus(t, err, raw, http.StatusNoContent, "ClearMessages")
	if n := approxCount(t, qc); n != 0 {
		t.Errorf("count after clear: %d", n)
	}
	f.clock.Advance(time.Hour)
	if got := dequeue(t, qc, 32, 30); len(got) != 0 {
		t.Errorf("%d messages after clear", len(got))
	}
	_, err = f.svc.NewQueueClient("no-such-queue").ClearMessages(ctx, nil)
	checkErr(t, err, http.StatusNotFound, queueerror.QueueNotFound, "ClearMessages of a missing queue")
}
