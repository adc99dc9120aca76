// Package queuesdk_test holds black-box conformance tests that drive a
// cerulean server through the official Azure Queue SDK for Go (azqueue),
// falling back to raw net/http only where the SDK cannot express a request
// (malformed bodies, Shared Key Lite).
package queuesdk_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/queueerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/sas"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// fixture is one server on a controllable clock plus an SDK service client
// authorised with Shared Key.
type fixture struct {
	t     *testing.T
	env   *servertest.Env
	clock *testkit.Clock
	cred  *azqueue.SharedKeyCredential
	svc   *azqueue.ServiceClient
}

// newFixture starts a fresh in-memory server for the test; every test gets
// its own, so tests run in parallel. The server's clock is frozen at a real
// instant (so that SAS times made from it are plausible) and moved only by
// the test, so visibility windows and TTLs are crossed without sleeping.
func newFixture(t *testing.T, opts ...servertest.Option) *fixture {
	t.Helper()
	c := testkit.NewClock(time.Now().UTC().Truncate(time.Second))
	env := servertest.Start(t, append([]servertest.Option{servertest.WithClock(c.Now)}, opts...)...)
	if !strings.HasSuffix(env.QueueURL, "/") {
		t.Fatalf("servertest.Env.QueueURL = %q, want a trailing /", env.QueueURL)
	}
	cred, err := azqueue.NewSharedKeyCredential(env.Account, env.Key)
	must(t, err, "NewSharedKeyCredential")
	svc, err := azqueue.NewServiceClientWithSharedKeyCredential(env.QueueURL, cred, clientOptions())
	must(t, err, "NewServiceClientWithSharedKeyCredential(%q)", env.QueueURL)
	return &fixture{t: t, env: env, clock: c, cred: cred, svc: svc}
}

// clientOptions disables retries so every call observes the server's first
// answer.
func clientOptions() *azqueue.ClientOptions {
	o := &azqueue.ClientOptions{}
	o.Retry = policy.RetryOptions{MaxRetries: -1, TryTimeout: 2 * time.Minute}
	return o
}

// createQueue creates a queue and fails the test unless the answer is 201.
func (f *fixture) createQueue(name string, opts *azqueue.CreateOptions) *azqueue.QueueClient {
	f.t.Helper()
	qc := f.svc.NewQueueClient(name)
	var raw *http.Response
	_, err := qc.Create(policy.WithCaptureResponse(context.Background(), &raw), opts)
	must(f.t, err, "Create queue %q", name)
	if raw == nil || raw.StatusCode != http.StatusCreated {
		f.t.Fatalf("Create queue %q: status %v, want 201", name, statusOf(raw))
	}
	return qc
}

// the kit under the names this suite's files use
var (
	qname      = testkit.Name // a unique queue name starting with tag
	must       = testkit.Must
	mustStatus = testkit.MustStatus
	checkErr   = testkit.CheckErr[queueerror.Code]
)

func ptr[T any](v T) *T { return testkit.Ptr(v) }

func deref[T any](p *T) T { return testkit.Deref(p) }

// enqueue puts a message and returns what the server acknowledged.
func enqueue(t testing.TB, qc *azqueue.QueueClient, text string, o *azqueue.EnqueueMessageOptions) *azqueue.EnqueuedMessage {
	t.Helper()
	resp, err := qc.EnqueueMessage(context.Background(), text, o)
	must(t, err, "EnqueueMessage %.20q", text)
	if len(resp.Messages) != 1 {
		t.Fatalf("EnqueueMessage returned %d messages, want 1", len(resp.Messages))
	}
	return resp.Messages[0]
}

// dequeue gets up to n messages with visibility timeout vt seconds.
func dequeue(t testing.TB, qc *azqueue.QueueClient, n, vt int32) []*azqueue.DequeuedMessage {
	t.Helper()
	resp, err := qc.DequeueMessages(context.Background(), &azqueue.DequeueMessagesOptions{NumberOfMessages: &n, VisibilityTimeout: &vt})
	must(t, err, "DequeueMessages(%d, vt=%d)", n, vt)
	return resp.Messages
}

func peek(t testing.TB, qc *azqueue.QueueClient, n int32) []*azqueue.PeekedMessage {
	t.Helper()
	resp, err := qc.PeekMessages(context.Background(), &azqueue.PeekMessagesOptions{NumberOfMessages: &n})
	must(t, err, "PeekMessages(%d)", n)
	return resp.Messages
}

func approxCount(t testing.TB, qc *azqueue.QueueClient) int32 {
	t.Helper()
	p, err := qc.GetProperties(context.Background(), nil)
	must(t, err, "GetProperties")
	if p.ApproximateMessagesCount == nil {
		t.Fatal("GetProperties: no x-ms-approximate-messages-count")
	}
	return *p.ApproximateMessagesCount
}

// checkReceiptRejected checks that a pop receipt which is no longer the
// message's current one neither deletes nor updates it: both answer 404
// MessageNotFound. whose names the receipt in failure messages.
func checkReceiptRejected(t testing.TB, qc *azqueue.QueueClient, id, receipt, whose string) {
	t.Helper()
	ctx := context.Background()
	_, err := qc.DeleteMessage(ctx, id, receipt, nil)
	checkErr(t, err, http.StatusNotFound, queueerror.MessageNotFound, "Delete with %s", whose)
	_, err = qc.UpdateMessage(ctx, id, receipt, "stale", nil)
	checkErr(t, err, http.StatusNotFound, queueerror.MessageNotFound, "Update with %s", whose)
}

// metaGet looks a metadata name up case-insensitively: Go's HTTP client
// canonicalizes header names, so the SDK hands them back as "Color".
func metaGet(m map[string]*string, name string) string {
	for k, v := range m {
		if strings.EqualFold(k, name) {
			return deref(v)
		}
	}
	return ""
}

func peekedTexts(ms []*azqueue.PeekedMessage) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, deref(m.MessageText))
	}
	return out
}

func statusOf(resp *http.Response) any {
	if resp == nil {
		return "<no response>"
	}
	return resp.StatusCode
}

// ---------------------------------------------------------------------------
// SAS and raw HTTP

// accountSAS signs an account SAS for the queue service.
func (f *fixture) accountSAS(perms sas.AccountPermissions, rt sas.AccountResourceTypes, start, expiry time.Time) string {
	f.t.Helper()
	v := sas.AccountSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, StartTime: start, ExpiryTime: expiry, Permissions: perms.String(), ResourceTypes: rt.String()}
	return testkit.SignSAS(f.t, v.SignWithSharedKey, f.cred)
}

// fullAccountSAS is an account SAS with every queue permission, valid for
// an hour around the server's clock.
func (f *fixture) fullAccountSAS() string {
	now := f.clock.Now()
	return f.accountSAS(sas.AccountPermissions{Read: true, Write: true, Delete: true, List: true, Add: true, Create: true, Update: true, Process: true},
		sas.AccountResourceTypes{Service: true, Container: true, Object: true}, now.Add(-time.Hour), now.Add(time.Hour))
}

// queueSAS signs a service SAS for one queue.
func (f *fixture) queueSAS(queue string, v sas.QueueSignatureValues) string {
	f.t.Helper()
	v.QueueName = queue
	if v.Protocol == "" {
		v.Protocol = sas.ProtocolHTTPSandHTTP
	}
	return testkit.SignSAS(f.t, v.SignWithSharedKey, f.cred)
}

// sasQueue returns a queue client authorised only by a SAS query.
func (f *fixture) sasQueue(name, query string) *azqueue.QueueClient {
	f.t.Helper()
	qc, err := azqueue.NewQueueClientWithNoCredential(f.env.QueueURL+name+"?"+query, clientOptions())
	must(f.t, err, "NewQueueClientWithNoCredential")
	return qc
}

// rawResult is the outcome of a raw HTTP request.
type rawResult = testkit.Response

// raw sends one request to path (relative to the account URL, query
// included) authorised by the full account SAS.
func (f *fixture) raw(method, path, body string, header map[string]string) rawResult {
	f.t.Helper()
	return f.send(method, withQuery(f.env.QueueURL+path, f.fullAccountSAS()), body, header)
}

// send sends one unsigned request: anonymous, or authorised by a SAS in u.
func (f *fixture) send(method, u, body string, header map[string]string) rawResult {
	f.t.Helper()
	h := map[string]string{"x-ms-version": "2024-08-04"}
	for k, v := range header {
		h[k] = v
	}
	return testkit.Send(f.t, testkit.Request{Method: method, URL: u, Header: h, Body: []byte(body)})
}

// withQuery appends a query string to a URL that may already have one.
func withQuery(u, q string) string {
	if strings.Contains(u, "?") {
		return u + "&" + q
	}
	return u + "?" + q
}

// sharedKeyLite signs req with Shared Key Lite for the Queue service: the
// verb, Content-MD5, Content-Type, Date, the x-ms-* headers and the
// resource with only its comp parameter.
func sharedKeyLite(req *http.Request, account, key string) {
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	var names []string
	for k := range req.Header {
		if lk := strings.ToLower(k); strings.HasPrefix(lk, "x-ms-") {
			names = append(names, lk)
		}
	}
	sort.Strings(names)
	var headers strings.Builder
	for _, n := range names {
		headers.WriteString(n + ":" + req.Header.Get(n) + "\n")
	}
	resource := "/" + account + req.URL.EscapedPath()
	if comp := req.URL.Query().Get("comp"); comp != "" {
		resource += "?comp=" + url.QueryEscape(comp)
	}
	toSign := strings.Join([]string{req.Method, req.Header.Get("Content-MD5"), req.Header.Get("Content-Type"), "", headers.String() + resource}, "\n")
	k, _ := base64.StdEncoding.DecodeString(key)
	m := hmac.New(sha256.New, k)
	m.Write([]byte(toSign))
	req.Header.Set("Authorization", "SharedKeyLite "+account+":"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
}

func queryEscape(s string) string { return url.QueryEscape(s) }
