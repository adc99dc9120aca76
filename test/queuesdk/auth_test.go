package queuesdk_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/queueerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/sas"
)

// TestWrongKey: Shared Key with the wrong key is 403 AuthenticationFailed
// and changes nothing.
func TestWrongKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	name := qname("wrongkey")
	qc := f.createQueue(name, nil)
	enqueue(t, qc, "secret", nil)

	cred, err := azqueue.NewSharedKeyCredential(f.env.Account, base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x42}, 64)))
	must(t, err, "NewSharedKeyCredential")
	bad, err := azqueue.NewServiceClientWithSharedKeyCredential(f.env.QueueURL, cred, clientOptions())
	must(t, err, "service client with the wrong key")
	_, err = bad.NewQueueClient(name).DequeueMessage(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthenticationFailed, "Dequeue with the wrong key")
	_, err = bad.NewQueueClient(name).EnqueueMessage(ctx, "forged", nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthenticationFailed, "Enqueue with the wrong key")
	_, err = bad.CreateQueue(ctx, qname("sneaky"), nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthenticationFailed, "Create with the wrong key")
	_, err = bad.NewListQueuesPager(nil).NextPage(ctx)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthenticationFailed, "List with the wrong key")

	if got := peek(t, qc, 32); len(got) != 1 || deref(got[0].MessageText) != "secret" || deref(got[0].DequeueCount) != 0 {
		t.Errorf("after wrong-key requests: %v", peekedTexts(got))
	}
	page, err := f.svc.NewListQueuesPager(nil).NextPage(ctx)
	must(t, err, "ListQueues")
	if len(page.Queues) != 1 {
		t.Errorf("%d queues after a wrong-key create", len(page.Queues))
	}

	// No credentials at all: queues have no public access, and Azure asks
	// for credentials (the .NET SDK's recording
	// QueueClientTests/ExistsAsync_Error: 401 NoAuthenticationInformation).
	anon, err := azqueue.NewQueueClientWithNoCredential(f.env.QueueURL+name, clientOptions())
	must(t, err, "anonymous client")
	_, err = anon.PeekMessages(ctx, nil)
	checkErr(t, err, http.StatusUnauthorized, queueerror.Code("NoAuthenticationInformation"), "anonymous Peek")
}

// TestSharedKeyLite: the Lite scheme signs the verb, a few headers and the
// resource with only comp; requests signed with it work, a bad signature
// is 403.
func TestSharedKeyLite(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	name := qname("lite")
	do := func(method, path, body string, key string) rawResult {
		req, err := http.NewRequest(method, f.env.QueueURL+path, strings.NewReader(body))
		must(t, err, "NewRequest")
		req.Header.Set("x-ms-version", "2024-08-04")
		if body != "" {
			req.Header.Set("Content-Type", "application/xml")
		}
		sharedKeyLite(req, f.env.Account, key)
		resp, err := http.DefaultClient.Do(req)
		must(t, err, "%s %s", method, path)
		defer func() { _ = resp.Body.Close() }() // only the status and headers matter
		return rawResult{StatusCode: resp.StatusCode, Code: resp.Header.Get("x-ms-error-code"), Header: resp.Header}
	}
	if r := do(http.MethodPut, name, "", f.env.Key); r.StatusCode != http.StatusCreated {
		t.Fatalf("Create Queue with Shared Key Lite: %d %s", r.StatusCode, r.Code)
	}
	if r := do(http.MethodPost, name+"/messages?visibilitytimeout=0&messagettl=3600", "<QueueMessage><MessageText>lite</MessageText></QueueMessage>", f.env.Key); r.StatusCode != http.StatusCreated {
		t.Fatalf("Put Message with Shared Key Lite: %d %s", r.StatusCode, r.Code)
	}
	if r := do(http.MethodGet, name+"?comp=metadata", "", f.env.Key); r.StatusCode != http.StatusOK || r.Header.Get("x-ms-approximate-messages-count") != "1" {
		t.Errorf("Get Queue Metadata with Shared Key Lite: %d %s count %q", r.StatusCode, r.Code, r.Header.Get("x-ms-approximate-messages-count"))
	}
	other := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 64))
	do(http.MethodPost, name+"/messages", "<QueueMessage><MessageText>forged</MessageText></QueueMessage>", other).Check(t, http.StatusForbidden, "AuthenticationFailed", "Put Message with a bad Lite signature")
	if got := peek(t, f.svc.NewQueueClient(name), 32); len(got) != 1 || deref(got[0].MessageText) != "lite" {
		t.Errorf("queue after Lite requests: %v", peekedTexts(got))
	}
}

// TestAccountSAS: permissions, resource types and expiry are enforced.
func TestAccountSAS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	name := qname("acctsas")
	qc := f.createQueue(name, nil)
	enqueue(t, qc, "readable", nil)
	now := f.clock.Now()
	all := sas.AccountResourceTypes{Service: true, Container: true, Object: true}

	ro := f.sasQueue(name, f.accountSAS(sas.AccountPermissions{Read: true, List: true}, all, now.Add(-time.Minute), now.Add(time.Hour)))
	if got := peek(t, ro, 1); len(got) != 1 {
		t.Errorf("Peek with a read-only account SAS: %d", len(got))
	}
	if _, err := ro.GetProperties(ctx, nil); err != nil {
		t.Errorf("GetProperties with a read-only account SAS: %v", err)
	}
	_, err := ro.EnqueueMessage(ctx, "x", nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationPermissionMismatch, "Enqueue with a read-only account SAS")
	_, err = ro.DequeueMessage(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationPermissionMismatch, "Dequeue with a read-only account SAS")
	_, err = ro.ClearMessages(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationPermissionMismatch, "Clear with a read-only account SAS")

	worker := f.sasQueue(name, f.accountSAS(sas.AccountPermissions{Add: true, Process: true, Update: true}, sas.AccountResourceTypes{Object: true}, now.Add(-time.Minute), now.Add(time.Hour)))
	enqueue(t, worker, "by the worker", nil)
	m := dequeue(t, worker, 1, 30)[0]
	_, err = worker.UpdateMessage(ctx, deref(m.MessageID), deref(m.PopReceipt), "updated", nil)
	must(t, err, "Update with an a/p/u object account SAS")
	_, err = worker.Delete(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationResourceTypeMismatch, "Delete Queue with an object-only account SAS")
	_, err = worker.GetProperties(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationResourceTypeMismatch, "GetProperties with an object-only account SAS")

	svcSAS, err := azqueue.NewServiceClientWithNoCredential(f.env.QueueURL+"?"+f.accountSAS(sas.AccountPermissions{List: true, Write: true}, sas.AccountResourceTypes{Service: true, Container: true}, now.Add(-time.Minute), now.Add(time.Hour)), clientOptions())
	must(t, err, "service client with account SAS")
	_, err = svcSAS.NewListQueuesPager(nil).NextPage(ctx)
	must(t, err, "List with an l account SAS")
	_, err = svcSAS.CreateQueue(ctx, qname("viasas"), nil)
	must(t, err, "Create with a w container account SAS")

	expired := f.sasQueue(name, f.accountSAS(sas.AccountPermissions{Read: true}, all, now.Add(-2*time.Hour), now.Add(-time.Hour)))
	_, err = expired.PeekMessages(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthenticationFailed, "Peek with an expired account SAS")
	tampered := f.sasQueue(name, strings.Replace(f.accountSAS(sas.AccountPermissions{Read: true}, all, now.Add(-time.Minute), now.Add(time.Hour)), "sp=r", "sp=rap", 1))
	_, err = tampered.EnqueueMessage(ctx, "x", nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthenticationFailed, "Enqueue with a SAS whose sp was widened")
}

// TestQueueSAS: a service SAS is bound to its queue and its r/a/u/p
// letters; a stored access policy can supply them.
func TestQueueSAS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	name, other := qname("qsas"), qname("qsas-other")
	qc := f.createQueue(name, nil)
	f.createQueue(other, nil)
	now := f.clock.Now()
	sign := func(queue string, p sas.QueuePermissions) string {
		return f.queueSAS(queue, sas.QueueSignatureValues{StartTime: now.Add(-time.Minute), ExpiryTime: now.Add(time.Hour), Permissions: p.String()})
	}

	producer := f.sasQueue(name, sign(name, sas.QueuePermissions{Read: true, Add: true}))
	enqueue(t, producer, "from the producer", nil)
	if got := peek(t, producer, 1); len(got) != 1 {
		t.Errorf("Peek with sp=ra: %d", len(got))
	}
	if p, err := producer.GetProperties(ctx, nil); err != nil || deref(p.ApproximateMessagesCount) != 1 {
		t.Errorf("GetProperties with sp=r: %v", err)
	}
	_, err := producer.DequeueMessage(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationPermissionMismatch, "Dequeue with sp=ra")
	// Beyond messages and Get Queue Metadata a queue SAS is refused
	// outright, as Azure refuses a queue SAS creating a queue.
	_, err = producer.SetMetadata(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationFailure, "SetMetadata with a queue SAS")
	_, err = producer.Delete(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationFailure, "Delete Queue with a queue SAS")

	consumer := f.sasQueue(name, sign(name, sas.QueuePermissions{Process: true}))
	m := dequeue(t, consumer, 1, 30)
	if len(m) != 1 {
		t.Fatalf("Dequeue with sp=p: %d", len(m))
	}
	_, err = consumer.UpdateMessage(ctx, deref(m[0].MessageID), deref(m[0].PopReceipt), "x", nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationPermissionMismatch, "Update with sp=p")
	_, err = consumer.EnqueueMessage(ctx, "x", nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationPermissionMismatch, "Enqueue with sp=p")
	updater := f.sasQueue(name, sign(name, sas.QueuePermissions{Update: true}))
	up, err := updater.UpdateMessage(ctx, deref(m[0].MessageID), deref(m[0].PopReceipt), "updated", &azqueue.UpdateMessageOptions{VisibilityTimeout: ptr(int32(30))})
	must(t, err, "Update with sp=u")
	_, err = consumer.DeleteMessage(ctx, deref(m[0].MessageID), deref(up.PopReceipt), nil)
	must(t, err, "Delete with sp=p")

	// The SAS for one queue does not open another.
	wrongQueue := f.sasQueue(other, sign(name, sas.QueuePermissions{Read: true, Add: true}))
	_, err = wrongQueue.EnqueueMessage(ctx, "x", nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthenticationFailed, "Enqueue to another queue with a queue SAS")

	// A stored access policy supplies permissions and expiry; removing it
	// revokes every SAS that names it.
	expiry := now.Add(time.Hour)
	_, err = qc.SetAccessPolicy(ctx, &azqueue.SetAccessPolicyOptions{QueueACL: []*azqueue.SignedIdentifier{{ID: ptr("workers"), AccessPolicy: &azqueue.AccessPolicy{Expiry: &expiry, Permission: ptr("raup")}}}})
	must(t, err, "SetAccessPolicy")
	viaPolicy := f.sasQueue(name, f.queueSAS(name, sas.QueueSignatureValues{Identifier: "workers"}))
	enqueue(t, viaPolicy, "via policy", nil)
	if got := dequeue(t, viaPolicy, 1, 30); len(got) != 1 {
		t.Errorf("Dequeue through the stored policy: %d", len(got))
	}
	_, err = qc.SetAccessPolicy(ctx, &azqueue.SetAccessPolicyOptions{QueueACL: []*azqueue.SignedIdentifier{}})
	must(t, err, "clear ACL")
	_, err = viaPolicy.PeekMessages(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthenticationFailed, "Peek after the policy was removed")

	expired := f.sasQueue(name, f.queueSAS(name, sas.QueueSignatureValues{StartTime: now.Add(-2 * time.Hour), ExpiryTime: now.Add(-time.Hour), Permissions: "r"}))
	_, err = expired.PeekMessages(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthenticationFailed, "Peek with an expired queue SAS")
	// The server's clock decides expiry: the same SAS dies when time moves.
	short := f.sasQueue(name, f.queueSAS(name, sas.QueueSignatureValues{ExpiryTime: now.Add(time.Minute), Permissions: "r"}))
	if _, err := short.PeekMessages(ctx, nil); err != nil {
		t.Errorf("Peek with a SAS valid for a minute: %v", err)
	}
	f.clock.Advance(2 * time.Minute)
	_, err = short.PeekMessages(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthenticationFailed, "Peek once the server clock passed the SAS expiry")
}
