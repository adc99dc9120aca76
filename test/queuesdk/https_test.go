package queuesdk_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/queueerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/sas"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

const (
	prodQueueHost      = "devstoreaccount1.queue.core.windows.net"
	prodQueueSecondary = "devstoreaccount1-secondary.queue.core.windows.net"
)

// TestProductionURLOverHTTPS runs a small flow through azqueue's
// production code path (https://devstoreaccount1.queue.core.windows.net/
// resolved to the server), its secondary endpoint included, and an
// spr=https SAS over it.
func TestProductionURLOverHTTPS(t *testing.T) {
	t.Parallel()
	certFile, keyFile := testkit.TLSCertFiles(t, "*.queue.core.windows.net")
	f := newFixture(t, servertest.WithStorageCert(certFile, keyFile))
	opts := clientOptions()
	opts.Transport = testkit.ResolvingClient(f.env.CertPool, map[string]string{
		prodQueueHost: f.env.Server.QueueAddr(), prodQueueSecondary: f.env.Server.QueueAddr(),
	})
	svc, err := azqueue.NewServiceClientWithSharedKeyCredential("https://"+prodQueueHost+"/", f.cred, opts)
	must(t, err, "production-style client")
	ctx := t.Context()
	name := testkit.Name("prod")
	qc := svc.NewQueueClient(name)
	_, err = qc.Create(ctx, nil)
	must(t, err, "Create Queue over HTTPS")
	_, err = qc.EnqueueMessage(ctx, "<hello & welcome>", nil)
	must(t, err, "Put Message over HTTPS")
	page, err := svc.NewListQueuesPager(nil).NextPage(ctx)
	must(t, err, "List Queues over HTTPS")
	if page.ServiceEndpoint == nil || *page.ServiceEndpoint != "https://"+prodQueueHost+"/" {
		t.Errorf("ServiceEndpoint = %v, want https://%s/", page.ServiceEndpoint, prodQueueHost)
	}

	// The secondary reads, refuses writes and reports its replication.
	sec, err := azqueue.NewServiceClientWithSharedKeyCredential("https://"+prodQueueSecondary+"/", f.cred, opts)
	must(t, err, "secondary client")
	peeked, err := sec.NewQueueClient(name).PeekMessages(ctx, nil)
	must(t, err, "Peek Messages on the secondary")
	if len(peeked.Messages) != 1 || peeked.Messages[0].MessageText == nil || *peeked.Messages[0].MessageText != "<hello & welcome>" {
		t.Errorf("peeked %+v", peeked.Messages)
	}
	_, err = sec.NewQueueClient(name).EnqueueMessage(ctx, "x", nil)
	checkErr(t, err, http.StatusForbidden, queueerror.InsufficientAccountPermissions, "Put Message on the secondary")
	stats, err := sec.GetStatistics(ctx, nil)
	must(t, err, "Get Queue Service Stats on the secondary")
	if stats.GeoReplication == nil || stats.GeoReplication.Status == nil || *stats.GeoReplication.Status != azqueue.GeoReplicationStatusLive {
		t.Errorf("GeoReplication = %+v, want live", stats.GeoReplication)
	}

	// A queue SAS signed with spr=https: accepted over HTTPS, refused over
	// plain HTTP.
	q := f.queueSAS(name, sas.QueueSignatureValues{Protocol: sas.ProtocolHTTPS, ExpiryTime: time.Now().Add(time.Hour), Permissions: "r"})
	reader, err := azqueue.NewQueueClientWithNoCredential("https://"+prodQueueHost+"/"+name+"?"+q, opts)
	must(t, err, "SAS client over HTTPS")
	_, err = reader.PeekMessages(ctx, nil)
	must(t, err, "Peek Messages with an spr=https SAS over HTTPS")
	plain := newFixture(t)
	plain.createQueue(name, nil)
	_, err = plain.sasQueue(name, q).PeekMessages(ctx, nil)
	checkErr(t, err, http.StatusForbidden, queueerror.AuthorizationProtocolMismatch, "Peek Messages with an spr=https SAS over plain HTTP")
}
