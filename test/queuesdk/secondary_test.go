package queuesdk_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/queueerror"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// checkSecondary runs Azure's read-only secondary contract through sec, a
// client of the account's secondary endpoint, against primary, the same
// account's primary: the reads the secondary serves (Peek Messages, Get
// Queue Metadata and ACL, List Queues, Get Queue Service Properties and
// Stats) answer what the primary holds; every write, Get Messages
// included (it changes the messages it returns), is refused with 403
// InsufficientAccountPermissions, as Blob's secondary refuses them, and
// changes nothing.
func checkSecondary(t *testing.T, primary, sec *azqueue.ServiceClient, what string) {
	t.Helper()
	ctx := context.Background()
	name := testkit.Name("sec")
	qc := primary.NewQueueClient(name)
	_, err := qc.Create(ctx, &azqueue.CreateOptions{Metadata: map[string]*string{"region": ptr("west")}})
	must(t, err, "%s: Create Queue on the primary", what)
	m := enqueue(t, qc, "readable from the secondary", nil)
	_, err = qc.SetAccessPolicy(ctx, &azqueue.SetAccessPolicyOptions{QueueACL: []*azqueue.SignedIdentifier{{ID: ptr("readers"), AccessPolicy: &azqueue.AccessPolicy{Permission: ptr("r")}}}})
	must(t, err, "%s: Set Queue ACL on the primary", what)

	sq := sec.NewQueueClient(name)
	if got := peekedTexts(peek(t, sq, 32)); len(got) != 1 || got[0] != "readable from the secondary" {
		t.Errorf("%s: Peek Messages on the secondary: %q", what, got)
	}
	props, err := sq.GetProperties(ctx, nil)
	must(t, err, "%s: Get Queue Metadata on the secondary", what)
	if metaGet(props.Metadata, "region") != "west" || deref(props.ApproximateMessagesCount) != 1 {
		t.Errorf("%s: Get Queue Metadata on the secondary: %v, %d messages", what, props.Metadata, deref(props.ApproximateMessagesCount))
	}
	acl, err := sq.GetAccessPolicy(ctx, nil)
	must(t, err, "%s: Get Queue ACL on the secondary", what)
	if len(acl.SignedIdentifiers) != 1 || deref(acl.SignedIdentifiers[0].ID) != "readers" {
		t.Errorf("%s: Get Queue ACL on the secondary: %+v", what, acl.SignedIdentifiers)
	}
	page, err := sec.NewListQueuesPager(&azqueue.ListQueuesOptions{Prefix: &name}).NextPage(ctx)
	must(t, err, "%s: List Queues on the secondary", what)
	if len(page.Queues) != 1 || deref(page.Queues[0].Name) != name {
		t.Errorf("%s: List Queues on the secondary: %+v", what, page.Queues)
	}
	_, err = sec.GetServiceProperties(ctx, nil)
	must(t, err, "%s: Get Queue Service Properties on the secondary", what)
	stats, err := sec.GetStatistics(ctx, nil)
	must(t, err, "%s: Get Queue Service Stats on the secondary", what)
	if stats.GeoReplication == nil || deref(stats.GeoReplication.Status) != azqueue.GeoReplicationStatusLive {
		t.Errorf("%s: Get Queue Service Stats on the secondary: %+v", what, stats.GeoReplication)
	}

	refused := func(err error, op string) {
		t.Helper()
		checkErr(t, err, http.StatusForbidden, queueerror.InsufficientAccountPermissions, "%s: %s on the secondary", what, op)
	}
	_, err = sec.NewQueueClient(testkit.Name("new")).Create(ctx, nil)
	refused(err, "Create Queue")
	_, err = sq.SetMetadata(ctx, &azqueue.SetMetadataOptions{Metadata: map[string]*string{"region": ptr("east")}})
	refused(err, "Set Queue Metadata")
	_, err = sq.SetAccessPolicy(ctx, nil)
	refused(err, "Set Queue ACL")
	_, err = sec.SetProperties(ctx, &azqueue.SetPropertiesOptions{CORS: []*azqueue.CORSRule{}})
	refused(err, "Set Queue Service Properties")
	_, err = sq.EnqueueMessage(ctx, "x", nil)
	refused(err, "Put Message")
	_, err = sq.DequeueMessage(ctx, nil)
	refused(err, "Get Messages")
	_, err = sq.UpdateMessage(ctx, deref(m.MessageID), deref(m.PopReceipt), "changed", nil)
	refused(err, "Update Message")
	_, err = sq.DeleteMessage(ctx, deref(m.MessageID), deref(m.PopReceipt), nil)
	refused(err, "Delete Message")
	_, err = sq.ClearMessages(ctx, nil)
	refused(err, "Clear Messages")
	_, err = sq.Delete(ctx, nil)
	refused(err, "Delete Queue")

	// Nothing the secondary refused happened: the message is still there,
	// visible, its receipt still valid; the metadata and policy unchanged.
	if got := peekedTexts(peek(t, qc, 32)); len(got) != 1 || got[0] != "readable from the secondary" {
		t.Errorf("%s: after the refused writes the primary holds %q", what, got)
	}
	props, err = qc.GetProperties(ctx, nil)
	must(t, err, "%s: Get Queue Metadata on the primary", what)
	if metaGet(props.Metadata, "region") != "west" {
		t.Errorf("%s: metadata after the refused write: %v", what, props.Metadata)
	}
	if acl, err := qc.GetAccessPolicy(ctx, nil); err != nil || len(acl.SignedIdentifiers) != 1 {
		t.Errorf("%s: ACL after the refused write: %v %v", what, acl.SignedIdentifiers, err)
	}
	_, err = qc.DeleteMessage(ctx, deref(m.MessageID), deref(m.PopReceipt), nil)
	must(t, err, "%s: Delete Message on the primary with the receipt the secondary refused", what)
}

// TestSecondaryPathStyle: the secondary at /<account>-secondary/ on the
// primary's port, as @azure/storage-queue and azqueue address it from a
// path-style endpoint.
func TestSecondaryPathStyle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	secondaryURL := strings.Replace(f.env.QueueURL, "/"+f.env.Account+"/", "/"+f.env.Account+"-secondary/", 1)
	sec, err := azqueue.NewServiceClientWithSharedKeyCredential(secondaryURL, f.cred, clientOptions())
	must(t, err, "path-style secondary client")
	checkSecondary(t, f.svc, sec, "path style")

	// A SAS signed for the account (its primary name) authorizes reads on
	// the secondary too; a write it allows is still refused there.
	name := qname("secsas")
	qc := f.createQueue(name, nil)
	enqueue(t, qc, "m", nil)
	bySAS, err := azqueue.NewQueueClientWithNoCredential(secondaryURL+name+"?"+f.fullAccountSAS(), clientOptions())
	must(t, err, "SAS client of the secondary")
	if got := peekedTexts(peek(t, bySAS, 1)); len(got) != 1 || got[0] != "m" {
		t.Errorf("Peek Messages on the secondary with an account SAS: %q", got)
	}
	_, err = bySAS.EnqueueMessage(context.Background(), "x", nil)
	checkErr(t, err, http.StatusForbidden, queueerror.InsufficientAccountPermissions, "Put Message on the secondary with an account SAS")
}

// TestSecondaryProductionStyle: the secondary at
// https://<account>-secondary.queue.core.windows.net/, the host Azure
// gives it, resolved to the server.
func TestSecondaryProductionStyle(t *testing.T) {
	t.Parallel()
	certFile, keyFile := testkit.TLSCertFiles(t, "*.queue.core.windows.net")
	f := newFixture(t, servertest.WithStorageCert(certFile, keyFile))
	opts := clientOptions()
	opts.Transport = testkit.ResolvingClient(f.env.CertPool, map[string]string{
		prodQueueHost: f.env.Server.QueueAddr(), prodQueueSecondary: f.env.Server.QueueAddr(),
	})
	primary, err := azqueue.NewServiceClientWithSharedKeyCredential("https://"+prodQueueHost+"/", f.cred, opts)
	must(t, err, "production-style client")
	sec, err := azqueue.NewServiceClientWithSharedKeyCredential("https://"+prodQueueSecondary+"/", f.cred, opts)
	must(t, err, "production-style secondary client")
	checkSecondary(t, primary, sec, "production style")
}
