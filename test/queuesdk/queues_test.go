package queuesdk_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/queueerror"
)

// TestCreateQueue: 201 on create, 204 for a repeat with identical metadata,
// 409 QueueAlreadyExists when the metadata differs; bad names are 400.
func TestCreateQueue(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	name := qname("create")
	meta := map[string]*string{"color": ptr("blue"), "size": ptr("xl")}
	f.createQueue(name, &azqueue.CreateOptions{Metadata: meta})

	var raw *http.Response
	_, err := f.svc.NewQueueClient(name).Create(policy.WithCaptureResponse(ctx, &raw), &azqueue.CreateOptions{Metadata: map[string]*string{"size": ptr("xl"), "color": ptr("blue")}})
	mustStatus(t, err, raw, http.StatusNoContent, "repeat Create with identical metadata")
	_, err = f.svc.CreateQueue(ctx, name, &azqueue.CreateOptions{Metadata: map[string]*string{"color": ptr("red")}})
	checkErr(t, err, http.StatusConflict, queueerror.QueueAlreadyExists, "Create with other metadata")
	_, err = f.svc.CreateQueue(ctx, name, nil)
	checkErr(t, err, http.StatusConflict, queueerror.QueueAlreadyExists, "Create without metadata over a queue with metadata")

	_, err = f.svc.CreateQueue(ctx, "Upper", nil)
	checkErr(t, err, http.StatusBadRequest, queueerror.InvalidResourceName, "Create with upper-case name")
	_, err = f.svc.CreateQueue(ctx, "ab", nil)
	checkErr(t, err, http.StatusBadRequest, queueerror.OutOfRangeInput, "Create with a 2-character name")
	_, err = f.svc.CreateQueue(ctx, "a--b", nil)
	checkErr(t, err, http.StatusBadRequest, queueerror.InvalidResourceName, "Create with a double hyphen")
}

func TestDeleteQueue(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	name := qname("delete")
	qc := f.createQueue(name, nil)
	enqueue(t, qc, "gone with the queue", nil)
	var raw *http.Response
	_, err := qc.Delete(policy.WithCaptureResponse(ctx, &raw), nil)
	mustStatus(t, err, raw, http.StatusNoContent, "Delete queue")
	_, err = qc.Delete(ctx, nil)
	checkErr(t, err, http.StatusNotFound, queueerror.QueueNotFound, "Delete missing queue")
	_, err = qc.GetProperties(ctx, nil)
	checkErr(t, err, http.StatusNotFound, queueerror.QueueNotFound, "GetProperties of deleted queue")
	_, err = qc.EnqueueMessage(ctx, "x", nil)
	checkErr(t, err, http.StatusNotFound, queueerror.QueueNotFound, "Enqueue to deleted queue")
	_, err = qc.DequeueMessage(ctx, nil)
	checkErr(t, err, http.StatusNotFound, queueerror.QueueNotFound, "Dequeue from deleted queue")

	// Recreated, the queue is empty: the old messages went with it.
	f.createQueue(name, nil)
	if n := approxCount(t, qc); n != 0 {
		t.Errorf("recreated queue has %d messages", n)
	}
}

// TestListQueues: prefix, paging with marker and maxresults, and
// include=metadata.
func TestListQueues(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	var want []string
	for i := range 7 {
		name := fmt.Sprintf("list-%02d", i)
		f.createQueue(name, &azqueue.CreateOptions{Metadata: map[string]*string{"idx": ptr(fmt.Sprint(i))}})
		want = append(want, name)
	}
	f.createQueue("other", nil)

	pager := f.svc.NewListQueuesPager(&azqueue.ListQueuesOptions{Prefix: ptr("list-"), MaxResults: ptr(int32(3)), Include: azqueue.ListQueuesInclude{Metadata: true}})
	var got []string
	pages := 0
	for pager.More() {
		page, err := pager.NextPage(ctx)
		must(t, err, "ListQueues page %d", pages)
		pages++
		if deref(page.MaxResults) != 3 || deref(page.Prefix) != "list-" {
			t.Errorf("page %d: MaxResults %d Prefix %q", pages, deref(page.MaxResults), deref(page.Prefix))
		}
		if !strings.HasPrefix(deref(page.ServiceEndpoint), "http://") {
			t.Errorf("ServiceEndpoint %q", deref(page.ServiceEndpoint))
		}
		for _, q := range page.Queues {
			got = append(got, deref(q.Name))
			idx := strings.TrimPrefix(deref(q.Name), "list-0")
			if v := metaGet(q.Metadata, "idx"); v != idx {
				t.Errorf("queue %s: metadata idx %q, want %q", deref(q.Name), v, idx)
			}
		}
	}
	if !slices.Equal(got, want) || pages != 3 {
		t.Errorf("listed %v in %d pages, want %v in 3", got, pages, want)
	}

	page, err := f.svc.NewListQueuesPager(nil).NextPage(ctx)
	must(t, err, "ListQueues without options")
	if len(page.Queues) != 8 || page.Queues[0].Metadata != nil {
		t.Errorf("unfiltered listing: %d queues, first metadata %v", len(page.Queues), page.Queues[0].Metadata)
	}
	if r := f.raw(http.MethodGet, "?comp=list&maxresults=0", "", nil); r.StatusCode != http.StatusBadRequest {
		t.Errorf("maxresults=0: %d %s", r.StatusCode, r.Code)
	}
	// A marker this server never handed out (.NET's recording
	// ServiceClientTests GetQueuesAsync_Error).
	if r := f.raw(http.MethodGet, "?comp=list&marker=garbage", "", nil); r.StatusCode != http.StatusBadRequest || r.Code != "OutOfRangeInput" {
		t.Errorf("marker=garbage: %d %s", r.StatusCode, r.Code)
	}
}

// TestQueueMetadata: Set replaces all metadata (last writer wins), Get
// returns it with x-ms-approximate-messages-count.
func TestQueueMetadata(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	qc := f.createQueue(qname("meta"), &azqueue.CreateOptions{Metadata: map[string]*string{"a": ptr("1")}})
	for i := range 3 {
		enqueue(t, qc, fmt.Sprint(i), nil)
	}
	dequeue(t, qc, 1, 30) // an invisible message still counts

	var raw *http.Response
	_, err := qc.SetMetadata(policy.WithCaptureResponse(ctx, &raw), &azqueue.SetMetadataOptions{Metadata: map[string]*string{"b": ptr("2"), "c": ptr("three")}})
	mustStatus(t, err, raw, http.StatusNoContent, "SetMetadata")
	p, err := qc.GetProperties(ctx, nil)
	must(t, err, "GetProperties")
	if deref(p.ApproximateMessagesCount) != 3 {
		t.Errorf("ApproximateMessagesCount %d, want 3", deref(p.ApproximateMessagesCount))
	}
	if len(p.Metadata) != 2 || metaGet(p.Metadata, "b") != "2" || metaGet(p.Metadata, "c") != "three" {
		t.Errorf("metadata after Set: %v", p.Metadata)
	}
	_, err = qc.SetMetadata(ctx, nil)
	must(t, err, "SetMetadata with none")
	if p, _ := qc.GetProperties(ctx, nil); len(p.Metadata) != 0 {
		t.Errorf("metadata after clearing: %v", p.Metadata)
	}
	_, err = qc.SetMetadata(ctx, &azqueue.SetMetadataOptions{Metadata: map[string]*string{"bad-name": ptr("x")}})
	checkErr(t, err, http.StatusBadRequest, queueerror.InvalidMetadata, "SetMetadata with a non-identifier name")
	_, err = f.svc.NewQueueClient("missing-queue").SetMetadata(ctx, nil)
	checkErr(t, err, http.StatusNotFound, queueerror.QueueNotFound, "SetMetadata of missing queue")

	// HEAD works too (no body, count in the header).
	r := f.raw(http.MethodHead, qc.URL()[len(f.env.QueueURL):]+"?comp=metadata", "", nil)
	if r.StatusCode != http.StatusOK || r.Header.Get("x-ms-approximate-messages-count") != "3" {
		t.Errorf("HEAD ?comp=metadata: %d count %q", r.StatusCode, r.Header.Get("x-ms-approximate-messages-count"))
	}
}

// TestQueueACL: stored access policies round-trip; at most five.
func TestQueueACL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	qc := f.createQueue(qname("acl"), nil)
	start := f.clock.Now().Add(-time.Hour).Truncate(time.Second)
	expiry := start.Add(48 * time.Hour)
	acl := []*azqueue.SignedIdentifier{
		{ID: ptr("readers"), AccessPolicy: &azqueue.AccessPolicy{Start: &start, Expiry: &expiry, Permission: ptr("r")}},
		{ID: ptr("workers"), AccessPolicy: &azqueue.AccessPolicy{Expiry: &expiry, Permission: ptr("raup")}},
	}
	_, err := qc.SetAccessPolicy(ctx, &azqueue.SetAccessPolicyOptions{QueueACL: acl})
	must(t, err, "SetAccessPolicy")
	got, err := qc.GetAccessPolicy(ctx, nil)
	must(t, err, "GetAccessPolicy")
	if len(got.SignedIdentifiers) != 2 {
		t.Fatalf("GetAccessPolicy: %d identifiers", len(got.SignedIdentifiers))
	}
	r := got.SignedIdentifiers[0]
	if deref(r.ID) != "readers" || deref(r.AccessPolicy.Permission) != "r" || !deref(r.AccessPolicy.Start).Equal(start) || !deref(r.AccessPolicy.Expiry).Equal(expiry) {
		t.Errorf("first identifier: %s %s %v %v", deref(r.ID), deref(r.AccessPolicy.Permission), deref(r.AccessPolicy.Start), deref(r.AccessPolicy.Expiry))
	}
	if w := got.SignedIdentifiers[1]; deref(w.ID) != "workers" || deref(w.AccessPolicy.Permission) != "raup" || w.AccessPolicy.Start != nil {
		t.Errorf("second identifier: %s %s start %v", deref(w.ID), deref(w.AccessPolicy.Permission), w.AccessPolicy.Start)
	}

	six := make([]*azqueue.SignedIdentifier, 6)
	for i := range six {
		six[i] = &azqueue.SignedIdentifier{ID: ptr(fmt.Sprint("id", i)), AccessPolicy: &azqueue.AccessPolicy{Expiry: &expiry, Permission: ptr("r")}}
	}
	_, err = qc.SetAccessPolicy(ctx, &azqueue.SetAccessPolicyOptions{QueueACL: six})
	checkErr(t, err, http.StatusBadRequest, queueerror.InvalidXMLDocument, "SetAccessPolicy with six identifiers")
	if got, _ := qc.GetAccessPolicy(ctx, nil); len(got.SignedIdentifiers) != 2 {
		t.Errorf("a rejected Set changed the ACL: %d identifiers", len(got.SignedIdentifiers))
	}
	_, err = qc.SetAccessPolicy(ctx, &azqueue.SetAccessPolicyOptions{QueueACL: []*azqueue.SignedIdentifier{}})
	must(t, err, "SetAccessPolicy with none")
	if got, _ := qc.GetAccessPolicy(ctx, nil); len(got.SignedIdentifiers) != 0 {
		t.Errorf("ACL after clearing: %d identifiers", len(got.SignedIdentifiers))
	}
	_, err = f.svc.NewQueueClient("missing-queue").GetAccessPolicy(ctx, nil)
	checkErr(t, err, http.StatusNotFound, queueerror.QueueNotFound, "GetAccessPolicy of missing queue")
}

// TestServiceProperties: Set merges the elements sent; CORS rules then
// answer preflights.
func TestServiceProperties(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	p, err := f.svc.GetServiceProperties(ctx, nil)
	must(t, err, "GetServiceProperties (defaults)")
	if p.Logging == nil || deref(p.Logging.Version) != "1.0" || len(p.CORS) != 0 {
		t.Errorf("default properties: %+v", p.StorageServiceProperties)
	}
	rule := &azqueue.CORSRule{AllowedOrigins: ptr("https://app.example"), AllowedMethods: ptr("GET,POST"), AllowedHeaders: ptr("x-ms-*"), ExposedHeaders: ptr("x-ms-request-id"), MaxAgeInSeconds: ptr(int32(60))}
	var raw *http.Response
	_, err = f.svc.SetProperties(policy.WithCaptureResponse(ctx, &raw), &azqueue.SetPropertiesOptions{CORS: []*azqueue.CORSRule{rule}})
	mustStatus(t, err, raw, http.StatusAccepted, "SetProperties")
	p, err = f.svc.GetServiceProperties(ctx, nil)
	must(t, err, "GetServiceProperties")
	if len(p.CORS) != 1 || deref(p.CORS[0].AllowedOrigins) != "https://app.example" || deref(p.CORS[0].MaxAgeInSeconds) != 60 {
		t.Fatalf("CORS after Set: %+v", p.CORS)
	}
	if p.Logging == nil || p.HourMetrics == nil {
		t.Errorf("Set of CORS alone dropped other elements: %+v", p.StorageServiceProperties)
	}

	pre := f.send(http.MethodOptions, f.env.QueueURL+"somequeue/messages", "", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "x-ms-version"})
	if pre.StatusCode != http.StatusOK || pre.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("allowed preflight: %d %v", pre.StatusCode, pre.Header)
	}
	pre = f.send(http.MethodOptions, f.env.QueueURL+"somequeue/messages", "", map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
	pre.Check(t, http.StatusForbidden, "CorsPreflightFailure", "preflight from another origin")

	six := make([]*azqueue.CORSRule, 6)
	for i := range six {
		six[i] = rule
	}
	_, err = f.svc.SetProperties(ctx, &azqueue.SetPropertiesOptions{CORS: six})
	checkErr(t, err, http.StatusBadRequest, queueerror.InvalidXMLDocument, "SetProperties with six CORS rules")
	f.raw(http.MethodPut, "?restype=service&comp=properties", "<StorageServiceProperties><Cors>", nil).Check(t, http.StatusBadRequest, "InvalidXmlDocument", "malformed service properties")
}

// TestServiceStats: Get Queue Service Stats is "available only on the
// secondary location endpoint" (REST reference, Get Queue Service Stats):
// there it reports a live replica in sync with the server's clock; the
// primary refuses the comp=stats value, as Blob's does.
func TestServiceStats(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	_, err := f.svc.GetStatistics(ctx, nil)
	checkErr(t, err, http.StatusBadRequest, queueerror.InvalidQueryParameterValue, "GetStatistics on the primary")

	secondaryURL := strings.Replace(f.env.QueueURL, "/"+f.env.Account+"/", "/"+f.env.Account+"-secondary/", 1)
	sec, err := azqueue.NewServiceClientWithSharedKeyCredential(secondaryURL, f.cred, clientOptions())
	must(t, err, "secondary client")
	s, err := sec.GetStatistics(ctx, nil)
	must(t, err, "GetStatistics on the secondary")
	if s.GeoReplication == nil || deref(s.GeoReplication.Status) != azqueue.GeoReplicationStatusLive {
		t.Fatalf("GetStatistics: %+v", s.StorageServiceStats)
	}
	if got := deref(s.GeoReplication.LastSyncTime); !got.Equal(f.clock.Now()) {
		t.Errorf("LastSyncTime %v, want the server clock %v", got, f.clock.Now())
	}
}
