package queue

import (
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/sas"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// capturedBody is a pipeline policy that keeps the last response's status
// and body, handing the body on unread.
type capturedBody struct {
	status int
	body   string
}

func (c *capturedBody) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if err != nil {
		return resp, err
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close() // fully read
	if err != nil {
		return nil, err
	}
	c.status, c.body = resp.StatusCode, string(b)
	resp.Body = io.NopCloser(strings.NewReader(c.body))
	return resp, nil
}

// TestWireGolden pins the XML bodies the SDKs parse: each response is
// compared with testdata/<name>.golden (rewrite with -update). Message ids
// are random and replaced by a placeholder.
func TestWireGolden(t *testing.T) {
	s, clock := newTestService(t)
	srv := httptest.NewServer(NewHandler(s))
	defer srv.Close()
	cred, err := azqueue.NewSharedKeyCredential(acct, azauth.DevKey)
	if err != nil {
		t.Fatal(err)
	}
	qp, err := sas.AccountSignatureValues{
		Protocol:      sas.ProtocolHTTPSandHTTP,
		ExpiryTime:    clock.Now().Add(time.Hour),
		Permissions:   (&sas.AccountPermissions{Read: true, Write: true, Delete: true, List: true, Add: true, Update: true, Process: true}).String(),
		ResourceTypes: (&sas.AccountResourceTypes{Service: true, Container: true, Object: true}).String(),
	}.SignWithSharedKey(cred)
	if err != nil {
		t.Fatal(err)
	}
	token := qp.Encode()
	do := func(method, path, body string) (int, string) {
		t.Helper()
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		req, err := http.NewRequest(method, srv.URL+"/"+acct+path+sep+token, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("x-ms-version", "2024-08-04")
		return testkit.Do(t, req)
	}
	ids := regexp.MustCompile(`<MessageId>[0-9a-f-]{36}</MessageId>`)
	golden := func(name string, status, want int, body string) {
		t.Helper()
		if status != want {
			t.Fatalf("%s: status %d, want %d\n%s", name, status, want, body)
		}
		body = ids.ReplaceAllString(body, "<MessageId>ID</MessageId>")
		body = strings.ReplaceAll(body, srv.URL, "http://HOST")
		path := filepath.Join("testdata", name+".golden")
		if *update {
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if string(b) != body {
			t.Errorf("%s differs from %s:\n got %s\nwant %s", name, path, body, b)
		}
	}

	req, _ := http.NewRequest(http.MethodPut, srv.URL+"/"+acct+"/orders?"+token, nil)
	req.Header.Set("x-ms-meta-region", "west")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v %v", resp, err)
	}
	_ = resp.Body.Close()
	do(http.MethodPut, "/returns", "")

	st, body := do(http.MethodPost, "/orders/messages?messagettl=3600", "<QueueMessage><MessageText>order &amp; 1</MessageText></QueueMessage>")
	golden("put-message", st, http.StatusCreated, body)
	do(http.MethodPost, "/orders/messages?messagettl=-1", "<QueueMessage><MessageText>order 2</MessageText></QueueMessage>")
	clock.Advance(time.Second)
	st, body = do(http.MethodGet, "/orders/messages?peekonly=true&numofmessages=32", "")
	golden("peek-messages", st, http.StatusOK, body)
	st, body = do(http.MethodGet, "/orders/messages?numofmessages=2&visibilitytimeout=60", "")
	golden("get-messages", st, http.StatusOK, body)
	st, body = do(http.MethodGet, "/orders/messages", "")
	golden("get-messages-empty", st, http.StatusOK, body)
	st, body = do(http.MethodGet, "?comp=list&include=metadata&maxresults=1", "")
	golden("list-queues", st, http.StatusOK, body)
	// Stored access policies are the account owner's: Shared Key only.
	if st, body := do(http.MethodGet, "/orders?comp=acl", ""); st != http.StatusForbidden || !strings.Contains(body, "<Code>AuthorizationFailure</Code>") {
		t.Fatalf("Get Queue ACL with an account SAS: %d %s", st, body)
	}
	var raw capturedBody
	owner, err := azqueue.NewQueueClientWithSharedKeyCredential(srv.URL+"/"+acct+"/orders", cred, &azqueue.ClientOptions{ClientOptions: policy.ClientOptions{PerRetryPolicies: []policy.Policy{&raw}}})
	if err != nil {
		t.Fatal(err)
	}
	start, expiry := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	_, err = owner.SetAccessPolicy(t.Context(), &azqueue.SetAccessPolicyOptions{QueueACL: []*azqueue.SignedIdentifier{{
		ID: to.Ptr("workers"), AccessPolicy: &azqueue.AccessPolicy{Start: &start, Expiry: &expiry, Permission: to.Ptr("raup")},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err = owner.GetAccessPolicy(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	golden("get-acl", raw.status, http.StatusOK, raw.body)
	st, body = do(http.MethodGet, "?restype=service&comp=properties", "")
	golden("service-properties", st, http.StatusOK, body)
	// Stats are served on the secondary endpoint only (path style:
	// /account-secondary/), with the primary's SAS.
	st, body = do(http.MethodGet, "-secondary/?restype=service&comp=stats", "")
	golden("service-stats", st, http.StatusOK, body)
	if st, body := do(http.MethodGet, "?restype=service&comp=stats", ""); st != http.StatusBadRequest || !strings.Contains(body, "<Code>InvalidQueryParameterValue</Code>") {
		t.Errorf("Get Queue Service Stats on the primary: %d %s", st, body)
	}
}
