package blobsdk_test

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// checkBatch compares the SDK's parsed sub-responses with the wanted error
// codes ("" for success) in Content-ID order, and checks each carries a
// request id of its own. (The SDK's ContainerName and BlobName assume a
// production-style URL, so the order identifies the sub-request here.)
func checkBatch(t *testing.T, got []*service.BatchResponseItem, want ...bloberror.Code) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("batch: %d sub-responses, want %d", len(got), len(want))
	}
	ids := map[string]bool{}
	for i, r := range got {
		if r.ContentID == nil || *r.ContentID != i {
			t.Errorf("sub-response %d: Content-ID %v", i, r.ContentID)
		}
		if r.RequestID == nil || *r.RequestID == "" || ids[*r.RequestID] {
			t.Errorf("sub-response %d: request id %v missing or repeated", i, r.RequestID)
		} else {
			ids[*r.RequestID] = true
		}
		switch {
		case want[i] == "" && r.Error != nil:
			t.Errorf("sub-request %d: %v, want success", i, r.Error)
		case want[i] != "" && !bloberror.HasCode(r.Error, want[i]):
			t.Errorf("sub-request %d: error %v, want %s", i, r.Error, want[i])
		}
	}
}

// TestBatchDeleteAccountScope: a batch of deletes at account scope, signed
// per sub-request with Shared Key, deletes what exists and reports the
// missing blob as BlobNotFound without stopping the others.
func TestBatchDeleteAccountScope(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	c := cname("batchdel")
	cc := f.createContainer(c, nil)
	for _, n := range []string{"a", "dir/b c", "z"} {
		upload(t, cc.NewBlockBlobClient(n), []byte(n), nil)
	}
	bb, err := f.svc.NewBatchBuilder()
	must(t, err, "NewBatchBuilder")
	for _, n := range []string{"a", "missing", "dir/b c"} {
		must(t, bb.Delete(c, n, nil), "batch Delete %q", n)
	}
	resp, err := f.svc.SubmitBatch(ctx, bb, nil)
	must(t, err, "SubmitBatch")
	if resp.RequestID == nil || resp.ContentType == nil || !strings.HasPrefix(*resp.ContentType, "multipart/mixed; boundary=batchresponse_") {
		t.Errorf("batch response: request id %v, content type %v", resp.RequestID, resp.ContentType)
	}
	checkBatch(t, resp.Responses, "", bloberror.BlobNotFound, "")
	for n, exists := range map[string]bool{"a": false, "dir/b c": false, "z": true} {
		_, err := cc.NewBlobClient(n).GetProperties(ctx, nil)
		if exists {
			must(t, err, "blob %q after the batch", n)
		} else {
			mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "blob %q after the batch", n)
		}
	}
}

// TestBatchSetTierContainerScope: Set Blob Tier through a container's
// batch, with a lease condition that fails for one blob.
func TestBatchSetTierContainerScope(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	c := cname("batchtier")
	cc := f.createContainer(c, nil)
	for _, n := range []string{"hot1", "hot2"} {
		upload(t, cc.NewBlockBlobClient(n), []byte(n), nil)
	}
	bb, err := cc.NewBatchBuilder()
	must(t, err, "NewBatchBuilder")
	must(t, bb.SetTier("hot1", blob.AccessTierCool, nil), "batch SetTier")
	must(t, bb.SetTier("hot2", blob.AccessTierCold, &container.BatchSetTierOptions{
		SetTierOptions: blob.SetTierOptions{AccessConditions: &blob.AccessConditions{
			LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: ptr("a4b6d1fe-1a77-4c3b-9d2c-1e5e1f6d3b2a")}}}}), "batch SetTier")
	resp, err := cc.SubmitBatch(ctx, bb, nil)
	must(t, err, "SubmitBatch")
	if len(resp.Responses) != 2 || resp.Responses[0].Error != nil {
		t.Fatalf("batch responses: %+v", resp.Responses)
	}
	checkErr(t, resp.Responses[1].Error, http.StatusPreconditionFailed, bloberror.LeaseNotPresentWithBlobOperation, "Set Tier with a lease id on an unleased blob")
	for n, want := range map[string]blob.AccessTier{"hot1": blob.AccessTierCool, "hot2": blob.AccessTierHot} {
		p, err := cc.NewBlobClient(n).GetProperties(ctx, nil)
		must(t, err, "GetProperties %q", n)
		if p.AccessTier == nil || *p.AccessTier != string(want) {
			t.Errorf("%q: tier %v, want %s", n, p.AccessTier, want)
		}
	}
}

// TestBatchWithSAS: with SAS the sub-requests carry the batch URL's SAS,
// and each is held to that SAS's permissions on its own.
func TestBatchWithSAS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	c := cname("batchsas")
	cc := f.createContainer(c, nil)
	for _, n := range []string{"x", "y"} {
		upload(t, cc.NewBlockBlobClient(n), []byte(n), nil)
	}
	now := time.Now().UTC()

	// An account SAS without delete permission: the batch is accepted,
	// each delete refused.
	readOnly := sasService(t, f, f.accountSAS(sas.AccountPermissions{Read: true, List: true}, now.Add(-time.Hour), now.Add(time.Hour)))
	bb, err := readOnly.NewBatchBuilder()
	must(t, err, "NewBatchBuilder")
	must(t, bb.Delete(c, "x", nil), "batch Delete")
	resp, err := readOnly.SubmitBatch(ctx, bb, nil)
	must(t, err, "SubmitBatch with a read-only SAS")
	checkBatch(t, resp.Responses, bloberror.AuthorizationPermissionMismatch)

	// An account SAS with delete permission at account scope.
	full := sasService(t, f, f.fullAccountSAS())
	bb, err = full.NewBatchBuilder()
	must(t, err, "NewBatchBuilder")
	must(t, bb.Delete(c, "x", nil), "batch Delete")
	resp, err = full.SubmitBatch(ctx, bb, nil)
	must(t, err, "SubmitBatch with an account SAS")
	checkBatch(t, resp.Responses, "")

	// A service SAS for the container at container scope.
	qp, err := sas.BlobSignatureValues{
		Protocol: sas.ProtocolHTTPSandHTTP, StartTime: now.Add(-time.Hour), ExpiryTime: now.Add(time.Hour),
		Permissions: (&sas.ContainerPermissions{Delete: true}).String(), ContainerName: c,
	}.SignWithSharedKey(f.cred)
	must(t, err, "signing container SAS")
	viaSAS := sasContainer(t, f, c, qp.Encode())
	cb, err := viaSAS.NewBatchBuilder()
	must(t, err, "NewBatchBuilder")
	must(t, cb.Delete("y", nil), "batch Delete")
	must(t, cb.Delete("x", nil), "batch Delete")
	cresp, err := viaSAS.SubmitBatch(ctx, cb, nil)
	must(t, err, "SubmitBatch with a container SAS")
	if len(cresp.Responses) != 2 || cresp.Responses[0].Error != nil {
		t.Fatalf("container SAS batch: %+v", cresp.Responses)
	}
	checkErr(t, cresp.Responses[1].Error, http.StatusNotFound, bloberror.BlobNotFound, "deleting x twice")
	_, err = cc.NewBlobClient("y").GetProperties(ctx, nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "y after the container SAS batch")
}

// TestBatchTooManySubRequests: 257 sub-requests are refused as a whole
// with ExceedsMaxBatchRequestCount, and nothing is deleted.
func TestBatchTooManySubRequests(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	c := cname("batchmax")
	cc := f.createContainer(c, nil)
	upload(t, cc.NewBlockBlobClient("keep"), []byte("k"), nil)
	bb, err := cc.NewBatchBuilder()
	must(t, err, "NewBatchBuilder")
	must(t, bb.Delete("keep", nil), "batch Delete")
	for i := range 256 {
		must(t, bb.Delete("n"+strings.Repeat("x", i%7)+string(rune('a'+i%26)), nil), "batch Delete")
	}
	_, err = cc.SubmitBatch(ctx, bb, nil)
	if err == nil || !strings.Contains(err.Error(), "ExceedsMaxBatchRequestCount") || !strings.Contains(err.Error(), "400") {
		t.Fatalf("SubmitBatch with 257 sub-requests: %v, want ExceedsMaxBatchRequestCount", err)
	}
	_, err = cc.NewBlobClient("keep").GetProperties(ctx, nil)
	must(t, err, "keep after the refused batch")
}

// TestBatchMixedKindsRaw: a batch mixing Delete and Set Tier is refused as
// a whole (Azure's AllBatchSubRequestsShouldBeSameApi, inside a 202), and
// sub-requests without credentials of their own act with the batch's SAS.
func TestBatchMixedKindsRaw(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := cname("batchraw")
	cc := f.createContainer(c, nil)
	for _, n := range []string{"m1", "m2"} {
		upload(t, cc.NewBlockBlobClient(n), []byte(n), nil)
	}
	path := "/" + f.env.Account + "/" + c + "/"
	send := func(parts ...string) (int, []string) {
		t.Helper()
		var body strings.Builder
		for i, p := range parts {
			body.WriteString("--batch_x\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: " + string(rune('0'+i)) + "\r\n\r\n" + p + "\r\n")
		}
		body.WriteString("--batch_x--\r\n")
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, withQuery(strings.TrimSuffix(f.env.BlobURL, "/")+"?comp=batch", f.fullAccountSAS()), strings.NewReader(body.String()))
		must(t, err, "NewRequest")
		req.Header.Set("Content-Type", "multipart/mixed; boundary=batch_x")
		req.Header.Set("x-ms-version", "2025-01-05")
		resp, err := http.DefaultClient.Do(req)
		must(t, err, "POST batch")
		defer func() { _ = resp.Body.Close() }()
		_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		must(t, err, "batch response Content-Type %q", resp.Header.Get("Content-Type"))
		mr := multipart.NewReader(resp.Body, params["boundary"])
		var got []string
		for {
			p, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			must(t, err, "reading batch response")
			b, err := io.ReadAll(p)
			must(t, err, "reading part")
			got = append(got, "Content-ID="+p.Header.Get("Content-ID")+"\n"+string(b))
		}
		return resp.StatusCode, got
	}
	status, got := send("DELETE "+path+"m1 HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
		"PUT "+path+"m2?comp=tier HTTP/1.1\r\nx-ms-access-tier: Cool\r\nContent-Length: 0\r\n\r\n")
	if status != http.StatusAccepted || len(got) != 1 || !strings.HasPrefix(got[0], "Content-ID=\nHTTP/1.1 400 ") ||
		!strings.Contains(got[0], "x-ms-error-code: AllBatchSubRequestsShouldBeSameApi") {
		t.Fatalf("mixed batch: %d %q", status, got)
	}
	_, err := cc.NewBlobClient("m1").GetProperties(t.Context(), nil)
	must(t, err, "m1 after the refused batch")

	// The second part is written as the JavaScript SDK writes it: the
	// blank line after its headers is the delimiter's leading CRLF.
	status, got = send("DELETE "+path+"m1 HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
		"DELETE "+path+"m2 HTTP/1.1\r\nAccept: application/xml\r\n")
	if status != http.StatusAccepted || len(got) != 2 {
		t.Fatalf("delete batch: %d %q", status, got)
	}
	for i, p := range got {
		if !strings.HasPrefix(p, "Content-ID="+string(rune('0'+i))+"\nHTTP/1.1 202 Accepted\r\n") || !strings.Contains(p, "x-ms-delete-type-permanent: true") ||
			!strings.Contains(p, "x-ms-request-id: ") {
			t.Errorf("sub-response %d: %q", i, p)
		}
	}
	pager := cc.NewListBlobsFlatPager(nil)
	page, err := pager.NextPage(t.Context())
	must(t, err, "List Blobs")
	if len(page.Segment.BlobItems) != 0 {
		t.Errorf("blobs left after the batch: %d", len(page.Segment.BlobItems))
	}
}

// TestBatchRefusesBlobSAS: a service SAS for one blob authorizes no batch.
func TestBatchRefusesBlobSAS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := cname("batchbsas")
	cc := f.createContainer(c, nil)
	upload(t, cc.NewBlockBlobClient("b"), []byte("b"), nil)
	now := time.Now().UTC()
	qp, err := sas.BlobSignatureValues{
		Protocol: sas.ProtocolHTTPSandHTTP, StartTime: now.Add(-time.Hour), ExpiryTime: now.Add(time.Hour),
		Permissions: (&sas.BlobPermissions{Delete: true}).String(), ContainerName: c, BlobName: "b",
	}.SignWithSharedKey(f.cred)
	must(t, err, "signing blob SAS")
	viaSAS := sasContainer(t, f, c, qp.Encode())
	cb, err := viaSAS.NewBatchBuilder()
	must(t, err, "NewBatchBuilder")
	must(t, cb.Delete("b", nil), "batch Delete")
	_, err = viaSAS.SubmitBatch(t.Context(), cb, nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusForbidden {
		t.Fatalf("batch with a blob SAS: %v, want 403", err)
	}
}

// TestBatchNeedsMultipart: a batch body that is not multipart/mixed with a
// boundary is refused outright.
func TestBatchNeedsMultipart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, ct := range []string{"text/plain", "multipart/mixed", ""} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, withQuery(strings.TrimSuffix(f.env.BlobURL, "/")+"?comp=batch", f.fullAccountSAS()), strings.NewReader("x"))
		must(t, err, "NewRequest")
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := http.DefaultClient.Do(req)
		must(t, err, "POST batch")
		_ = resp.Body.Close()
		want := "InvalidHeaderValue"
		if ct == "" {
			want = "MissingRequiredHeader"
		}
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("x-ms-error-code") != want {
			t.Errorf("Content-Type %q: %d %s, want 400 %s", ct, resp.StatusCode, resp.Header.Get("x-ms-error-code"), want)
		}
	}
}

// batchEndpoints are the service URLs of one server in each form a
// client may hold: path style on 127.0.0.1 (cerulean's connection
// string) and on localhost, and production style with the account in the
// host name, with the options that reach them.
func batchEndpoints(t *testing.T, f *fixture) (map[string]string, *service.ClientOptions) {
	t.Helper()
	_, port, err := net.SplitHostPort(f.env.Server.BlobAddr())
	must(t, err, "blob address %q", f.env.Server.BlobAddr())
	o := clientOptions(nil)
	o.Transport = testkit.ResolvingClient(nil, map[string]string{
		"devstoreaccount1.blob.localhost": f.env.Server.BlobAddr(), "localhost": f.env.Server.BlobAddr(),
	})
	return map[string]string{
		"127.0.0.1":       f.env.BlobURL,
		"localhost":       "http://localhost:" + port + "/" + f.env.Account + "/",
		"production host": "http://devstoreaccount1.blob.localhost:" + port + "/",
	}, o
}

// batchNames are blob names whose paths need escaping.
var batchNames = []string{"plain", "with space", "dir/sub/leaf", "ünï cödé 日本", "per%cent", "plus+sign", "q?mark", "hash#tag", "semi;colon"}

// TestBatchEveryEndpoint: the Go SDK's batch builder, at service and
// container scope, with Shared Key, an account SAS and a container SAS,
// against every form of endpoint, deletes and re-tiers blobs whose names
// need escaping. The SDK writes each sub-request's target as its URL's
// path (azblob internal/exported/blob_batch.go buildSubRequest), which
// leaves the account out on a production-style host — as .NET's
// Delete_SpecialCharacters recording shows Azure receiving it — and used
// to answer 400 InvalidInput there.
func TestBatchEveryEndpoint(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	endpoints, o := batchEndpoints(t, f)
	cs, err := service.NewClientFromConnectionString(f.env.ConnectionString, o)
	must(t, err, "service client from the connection string")
	now := time.Now().UTC()
	for label, u := range endpoints {
		sk, err := service.NewClientWithSharedKeyCredential(u, f.cred, o)
		must(t, err, "Shared Key client for %s", u)
		asas, err := service.NewClientWithNoCredential(withQuery(u, f.fullAccountSAS()), o)
		must(t, err, "account SAS client for %s", u)
		services := map[string]*service.Client{"Shared Key": sk, "account SAS": asas}
		if label == "127.0.0.1" {
			services["connection string"] = cs
		}
		for cred, svc := range services {
			for _, scope := range []string{"service", "container"} {
				t.Run(label+"/"+cred+"/"+scope, func(t *testing.T) {
					c := cname("batchep")
					cc := f.createContainer(c, nil)
					for _, n := range batchNames {
						upload(t, cc.NewBlockBlobClient(n), []byte(n), nil)
					}
					runBatchTier(t, svc, svc.NewContainerClient(c), scope, c)
					runBatchDelete(t, svc, svc.NewContainerClient(c), scope, c)
				})
			}
		}
		t.Run(label+"/container SAS", func(t *testing.T) {
			c := cname("batchcsas")
			cc := f.createContainer(c, nil)
			for _, n := range batchNames {
				upload(t, cc.NewBlockBlobClient(n), []byte(n), nil)
			}
			qp, err := sas.BlobSignatureValues{
				Protocol: sas.ProtocolHTTPSandHTTP, StartTime: now.Add(-time.Hour), ExpiryTime: now.Add(time.Hour),
				Permissions: (&sas.ContainerPermissions{Delete: true, Write: true, Read: true}).String(), ContainerName: c,
			}.SignWithSharedKey(f.cred)
			must(t, err, "signing a container SAS")
			viaSAS, err := container.NewClientWithNoCredential(withQuery(strings.TrimSuffix(u, "/")+"/"+c, qp.Encode()), (*container.ClientOptions)(o))
			must(t, err, "container SAS client")
			runBatchTier(t, nil, viaSAS, "container", c)
			runBatchDelete(t, nil, viaSAS, "container", c)
		})
	}
}

// runBatchTier sets every batchNames blob of container c to Cool in one
// batch at the given scope and checks each blob's tier afterwards.
func runBatchTier(t *testing.T, svc *service.Client, cc *container.Client, scope, c string) {
	t.Helper()
	var responses []*service.BatchResponseItem
	if scope == "service" {
		bb, err := svc.NewBatchBuilder()
		must(t, err, "NewBatchBuilder")
		for _, n := range batchNames {
			must(t, bb.SetTier(c, n, blob.AccessTierCool, nil), "batch SetTier %q", n)
		}
		resp, err := svc.SubmitBatch(t.Context(), bb, nil)
		must(t, err, "SubmitBatch")
		responses = resp.Responses
	} else {
		bb, err := cc.NewBatchBuilder()
		must(t, err, "NewBatchBuilder")
		for _, n := range batchNames {
			must(t, bb.SetTier(n, blob.AccessTierCool, nil), "batch SetTier %q", n)
		}
		resp, err := cc.SubmitBatch(t.Context(), bb, nil)
		must(t, err, "SubmitBatch")
		responses = resp.Responses
	}
	checkBatch(t, responses, make([]bloberror.Code, len(batchNames))...)
	for _, n := range batchNames {
		p, err := cc.NewBlobClient(n).GetProperties(t.Context(), nil)
		must(t, err, "GetProperties %q", n)
		if p.AccessTier == nil || *p.AccessTier != string(blob.AccessTierCool) {
			t.Errorf("%q: tier %v after the batch, want Cool", n, p.AccessTier)
		}
	}
}

// runBatchDelete deletes every batchNames blob of container c in one
// batch at the given scope and checks none is left.
func runBatchDelete(t *testing.T, svc *service.Client, cc *container.Client, scope, c string) {
	t.Helper()
	var responses []*service.BatchResponseItem
	if scope == "service" {
		bb, err := svc.NewBatchBuilder()
		must(t, err, "NewBatchBuilder")
		for _, n := range batchNames {
			must(t, bb.Delete(c, n, nil), "batch Delete %q", n)
		}
		resp, err := svc.SubmitBatch(t.Context(), bb, nil)
		must(t, err, "SubmitBatch")
		responses = resp.Responses
	} else {
		bb, err := cc.NewBatchBuilder()
		must(t, err, "NewBatchBuilder")
		for _, n := range batchNames {
			must(t, bb.Delete(n, nil), "batch Delete %q", n)
		}
		resp, err := cc.SubmitBatch(t.Context(), bb, nil)
		must(t, err, "SubmitBatch")
		responses = resp.Responses
	}
	checkBatch(t, responses, make([]bloberror.Code, len(batchNames))...)
	for _, n := range batchNames {
		_, err := cc.NewBlobClient(n).GetProperties(t.Context(), nil)
		mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "%q after the batch", n)
	}
}

// TestBatchSnapshotsAndVersions: the snapshot and versionid options of
// the batch builder travel in each sub-request's query, through a
// production-style host too: Delete of one snapshot, of one version, and
// of a blob with its snapshots (x-ms-delete-snapshots: include).
func TestBatchSnapshotsAndVersions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, servertest.WithBlobDataProtection(true, 0))
	ctx := t.Context()
	endpoints, o := batchEndpoints(t, f)
	for _, label := range []string{"127.0.0.1", "production host"} {
		t.Run(label, func(t *testing.T) {
			svc, err := service.NewClientWithSharedKeyCredential(endpoints[label], f.cred, o)
			must(t, err, "service client")
			c := cname("batchsnap")
			cc := f.createContainer(c, nil)
			name := "snap ü/blob"
			bc := cc.NewBlockBlobClient(name)
			first := upload(t, bc, []byte("v1"), nil)
			s1, err := bc.CreateSnapshot(ctx, nil)
			must(t, err, "CreateSnapshot")
			s2, err := bc.CreateSnapshot(ctx, nil)
			must(t, err, "CreateSnapshot")
			upload(t, bc, []byte("v2"), nil)
			other := cc.NewBlockBlobClient("other")
			upload(t, other, []byte("o"), nil)
			_, err = other.CreateSnapshot(ctx, nil)
			must(t, err, "CreateSnapshot")

			bb, err := svc.NewBatchBuilder()
			must(t, err, "NewBatchBuilder")
			must(t, bb.Delete(c, name, &service.BatchDeleteOptions{Snapshot: s2.Snapshot}), "Delete a snapshot")
			must(t, bb.Delete(c, name, &service.BatchDeleteOptions{VersionID: first.VersionID}), "Delete a version")
			must(t, bb.Delete(c, "other", &service.BatchDeleteOptions{DeleteOptions: blob.DeleteOptions{DeleteSnapshots: ptr(blob.DeleteSnapshotsOptionTypeInclude)}}), "Delete with snapshots")
			resp, err := svc.SubmitBatch(ctx, bb, nil)
			must(t, err, "SubmitBatch")
			checkBatch(t, resp.Responses, "", "", "")
			_, err = mustWithSnapshot(t, bc.BlobClient(), *s2.Snapshot).GetProperties(ctx, nil)
			mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "the deleted snapshot")
			_, err = mustWithVersion(t, bc.BlobClient(), *first.VersionID).GetProperties(ctx, nil)
			mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "the deleted version")
			_, err = mustWithSnapshot(t, bc.BlobClient(), *s1.Snapshot).GetProperties(ctx, nil)
			must(t, err, "the snapshot left alone")
			got := downloadAll(t, bc.BlobClient())
			if got != "v2" {
				t.Errorf("current blob %q, want v2", got)
			}
			_, err = other.GetProperties(ctx, nil)
			mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "the blob deleted with its snapshots")
		})
	}
}

func mustWithSnapshot(t *testing.T, c *blob.Client, snapshot string) *blob.Client {
	t.Helper()
	s, err := c.WithSnapshot(snapshot)
	must(t, err, "WithSnapshot")
	return s
}

func mustWithVersion(t *testing.T, c *blob.Client, version string) *blob.Client {
	t.Helper()
	v, err := c.WithVersionID(version)
	must(t, err, "WithVersionID")
	return v
}

func downloadAll(t *testing.T, c *blob.Client) string {
	t.Helper()
	resp, err := c.DownloadStream(t.Context(), nil)
	must(t, err, "DownloadStream")
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	must(t, err, "reading the blob")
	return string(b)
}

// versionPolicy sends every request of a client at one x-ms-version.
type versionPolicy string

func (v versionPolicy) Do(req *policy.Request) (*http.Response, error) {
	req.Raw().Header.Set("x-ms-version", string(v))
	return req.Next()
}

// TestBatchCustomVersion: a batch sent at an older x-ms-version than the
// SDK's is served at that version, sub-requests included (the REST
// reference's x-ms-version: "This version will be used for all
// subrequests"; azure-storage-blob's recording
// test_container.test_delete_blobs_simple shows each sub-response
// carrying the batch's 2019-02-02), on a production-style host too.
func TestBatchCustomVersion(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	endpoints, o := batchEndpoints(t, f)
	for _, label := range []string{"127.0.0.1", "production host"} {
		// Container scope arrived in 2020-04-08; service scope in 2018-11-09.
		for scope, version := range map[string]string{"service": "2019-12-12", "container": "2020-04-08"} {
			t.Run(label+"/"+scope, func(t *testing.T) {
				vo := *o
				vo.PerRetryPolicies = []policy.Policy{versionPolicy(version)}
				svc, err := service.NewClientWithNoCredential(withQuery(endpoints[label], f.fullAccountSAS()), &vo)
				must(t, err, "service client")
				c := cname("batchver")
				cc := f.createContainer(c, nil)
				upload(t, cc.NewBlockBlobClient("a b"), []byte("a"), nil)
				upload(t, cc.NewBlockBlobClient("c"), []byte("c"), nil)
				var resp service.SubmitBatchResponse
				if scope == "service" {
					bb, err := svc.NewBatchBuilder()
					must(t, err, "NewBatchBuilder")
					must(t, bb.Delete(c, "a b", nil), "batch Delete")
					must(t, bb.Delete(c, "c", nil), "batch Delete")
					resp, err = svc.SubmitBatch(t.Context(), bb, nil)
					must(t, err, "SubmitBatch at %s", version)
				} else {
					vc := svc.NewContainerClient(c)
					bb, err := vc.NewBatchBuilder()
					must(t, err, "NewBatchBuilder")
					must(t, bb.Delete("a b", nil), "batch Delete")
					must(t, bb.Delete("c", nil), "batch Delete")
					cresp, err := vc.SubmitBatch(t.Context(), bb, nil)
					must(t, err, "SubmitBatch at %s", version)
					resp = service.SubmitBatchResponse(cresp)
				}
				checkBatch(t, resp.Responses, "", "")
				if resp.Version == nil || *resp.Version != version {
					t.Errorf("batch answered at %v, want %s", resp.Version, version)
				}
				for i, r := range resp.Responses {
					if r.Version == nil || *r.Version != version {
						t.Errorf("sub-response %d answered at %v, want %s", i, r.Version, version)
					}
				}
			})
		}
	}
}

// sharedKey signs a Blob request as the SDKs do (the Shared Key string to
// sign of the REST reference: no Content-Length for an empty body).
func sharedKey(t *testing.T, f *fixture, method, resource string, hdr http.Header, query url.Values) string {
	t.Helper()
	var xms []string
	for k := range hdr {
		if lk := strings.ToLower(k); strings.HasPrefix(lk, "x-ms-") {
			xms = append(xms, lk+":"+hdr.Get(k)+"\n")
		}
	}
	sort.Strings(xms)
	var q []string
	for k, v := range query {
		q = append(q, "\n"+strings.ToLower(k)+":"+strings.Join(v, ","))
	}
	sort.Strings(q)
	length := hdr.Get("Content-Length")
	if length == "0" {
		length = ""
	}
	toSign := strings.Join([]string{method, hdr.Get("Content-Encoding"), hdr.Get("Content-Language"), length, hdr.Get("Content-MD5"),
		hdr.Get("Content-Type"), "", "", "", "", "", "", strings.Join(xms, "") + "/" + f.env.Account + resource + strings.Join(q, "")}, "\n")
	key, err := base64.StdEncoding.DecodeString(f.env.Key)
	must(t, err, "account key")
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(toSign))
	return "SharedKey " + f.env.Account + ":" + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// batchPart is one part of a batch response.
type batchPart struct {
	contentID string
	resp      *http.Response
}

// readBatchParts reads a batch response's parts as HTTP responses.
func readBatchParts(t *testing.T, resp *http.Response) []batchPart {
	t.Helper()
	_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	must(t, err, "batch response Content-Type %q", resp.Header.Get("Content-Type"))
	mr := multipart.NewReader(resp.Body, params["boundary"])
	var parts []batchPart
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return parts
		}
		must(t, err, "reading the batch response")
		b, err := io.ReadAll(p)
		must(t, err, "reading a part")
		sub, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(append(b, "\r\n"...))), nil)
		must(t, err, "sub-response %q", b)
		parts = append(parts, batchPart{p.Header.Get("Content-ID"), sub})
	}
}

// TestBatchPythonForm: a batch exactly as azure-storage-blob 12.0 wrote
// it (its recording test_container.test_delete_blobs_simple, answered
// 202 by Azure): a boundary Python's email package chose, with '=' and
// unquoted in the Content-Type; sub-request targets "/container/blob?"
// without the account whatever the endpoint; no Content-Length and a
// content-type header in each sub-request, each signed with Shared Key
// over "/account/container/blob". Azure answers every delete 202 and
// echoes each sub-request's client request id and the batch's version.
func TestBatchPythonForm(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	endpoints, o := batchEndpoints(t, f)
	hc := &http.Client{Transport: o.Transport.(*http.Client).Transport}
	for _, label := range []string{"production host", "127.0.0.1"} {
		t.Run(label, func(t *testing.T) {
			c := cname("batchpy")
			cc := f.createContainer(c, nil)
			blobs := []string{"blob1", "blob 2", "dir/blob~3"}
			for _, n := range blobs {
				upload(t, cc.NewBlockBlobClient(n), []byte("hello world"), nil)
			}
			const boundary = "===============1531725606335133470=="
			date := time.Now().UTC().Format(http.TimeFormat)
			var body strings.Builder
			for i, n := range blobs {
				target := "/" + c + "/" + strings.ReplaceAll(url.PathEscape(n), "%2F", "/")
				hdr := http.Header{"X-Ms-Date": {date}, "X-Ms-Client-Request-Id": {"client-" + strconv.Itoa(i)}, "Content-Type": {"application/xml; charset=utf-8"}}
				fmt.Fprintf(&body, "--%s\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: %d\r\n\r\n", boundary, i)
				fmt.Fprintf(&body, "DELETE %s? HTTP/1.1\r\nx-ms-date: %s\r\nx-ms-client-request-id: %s\r\ncontent-type: %s\r\nAuthorization: %s\r\n\r\n\r\n",
					target, date, hdr.Get("X-Ms-Client-Request-Id"), hdr.Get("Content-Type"), sharedKey(t, f, "DELETE", target, hdr, nil))
			}
			fmt.Fprintf(&body, "--%s--\r\n", boundary)

			u := endpoints[label]
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, u+"?comp=batch", strings.NewReader(body.String()))
			must(t, err, "NewRequest")
			req.Header.Set("Content-Type", "multipart/mixed; boundary="+boundary)
			req.Header.Set("x-ms-date", date)
			req.Header.Set("x-ms-version", "2019-02-02")
			req.Header.Set("Content-Length", strconv.Itoa(body.Len()))
			// Python signs the path it sent after the account: for a
			// path-style endpoint the account comes twice.
			req.Header.Set("Authorization", sharedKey(t, f, http.MethodPost, req.URL.EscapedPath(), req.Header, url.Values{"comp": {"batch"}}))
			resp, err := hc.Do(req)
			must(t, err, "POST batch")
			defer func() { _ = resp.Body.Close() }()
			if resp.StatusCode != http.StatusAccepted {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("batch: %d %s", resp.StatusCode, b)
			}
			parts := readBatchParts(t, resp)
			if len(parts) != len(blobs) {
				t.Fatalf("%d parts, want %d", len(parts), len(blobs))
			}
			for i, p := range parts {
				h := p.resp.Header
				if p.contentID != strconv.Itoa(i) || p.resp.StatusCode != http.StatusAccepted || h.Get("x-ms-delete-type-permanent") != "true" ||
					h.Get("x-ms-client-request-id") != "client-"+strconv.Itoa(i) || h.Get("x-ms-version") != "2019-02-02" || h.Get("x-ms-request-id") == "" {
					t.Errorf("part %d: Content-ID %q, %s %v", i, p.contentID, p.resp.Status, h)
				}
			}
			for _, n := range blobs {
				_, err := cc.NewBlobClient(n).GetProperties(t.Context(), nil)
				mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "%q after the batch", n)
			}
		})
	}
}

// TestBatchSubRequestTargets: every form of sub-request target, each
// signed with Shared Key over the path it names, deletes its blob through
// a batch on a path-style and on a production-style endpoint: the path
// with the account (Go, .NET, JavaScript and Java against a path-style
// endpoint), without it (every SDK against a production-style endpoint;
// Python whatever its endpoint), the same without its leading slash
// (what the Azurite maintainers show .NET writing, Azure/Azurite#1809),
// and absolute URLs naming the account in the host or in the path.
func TestBatchSubRequestTargets(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	endpoints, o := batchEndpoints(t, f)
	hc := &http.Client{Transport: o.Transport.(*http.Client).Transport}
	host := strings.TrimSuffix(strings.TrimPrefix(endpoints["production host"], "http://"), "/")
	acct := "/" + f.env.Account
	for _, label := range []string{"production host", "127.0.0.1"} {
		for _, form := range []struct {
			name     string
			target   func(c, b string) string
			resource func(c, b string) string // the path the client signs after the account
		}{
			{"path with the account", func(c, b string) string { return acct + "/" + c + "/" + b }, func(c, b string) string { return acct + "/" + c + "/" + b }},
			{"path without the account", func(c, b string) string { return "/" + c + "/" + b }, func(c, b string) string { return "/" + c + "/" + b }},
			{"no leading slash", func(c, b string) string { return f.env.Account + "/" + c + "/" + b }, func(c, b string) string { return acct + "/" + c + "/" + b }},
			{"absolute, production host", func(c, b string) string { return "http://" + host + "/" + c + "/" + b }, func(c, b string) string { return "/" + c + "/" + b }},
			{"absolute, path style", func(c, b string) string { return f.env.BlobURL + c + "/" + b }, func(c, b string) string { return acct + "/" + c + "/" + b }},
		} {
			if label == "production host" && (form.name == "path with the account" || form.name == "no leading slash") {
				// On a production-style host a path names a container
				// first; /account/... is a container named as the account.
				continue
			}
			t.Run(label+"/"+form.name, func(t *testing.T) {
				c := cname("batchtgt")
				cc := f.createContainer(c, nil)
				upload(t, cc.NewBlockBlobClient("a b"), []byte("x"), nil)
				date := time.Now().UTC().Format(http.TimeFormat)
				hdr := http.Header{"X-Ms-Date": {date}}
				body := "--batch_t\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: 0\r\n\r\n" +
					"DELETE " + form.target(c, "a%20b") + " HTTP/1.1\r\nx-ms-date: " + date + "\r\nAuthorization: " +
					sharedKey(t, f, http.MethodDelete, form.resource(c, "a%20b"), hdr, nil) + "\r\nContent-Length: 0\r\n\r\n--batch_t--\r\n"
				req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, withQuery(endpoints[label]+"?comp=batch", f.fullAccountSAS()), strings.NewReader(body))
				must(t, err, "NewRequest")
				req.Header.Set("Content-Type", "multipart/mixed; boundary=batch_t")
				req.Header.Set("x-ms-version", "2025-01-05")
				resp, err := hc.Do(req)
				must(t, err, "POST batch")
				defer func() { _ = resp.Body.Close() }()
				if resp.StatusCode != http.StatusAccepted {
					t.Fatalf("batch: %s", resp.Status)
				}
				parts := readBatchParts(t, resp)
				if len(parts) != 1 || parts[0].contentID != "0" || parts[0].resp.StatusCode != http.StatusAccepted {
					for _, p := range parts {
						b, _ := io.ReadAll(p.resp.Body)
						t.Logf("part %q: %s %v %s", p.contentID, p.resp.Status, p.resp.Header, b)
					}
					t.Fatalf("%d parts, want one 202", len(parts))
				}
				_, err = cc.NewBlobClient("a b").GetProperties(t.Context(), nil)
				mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "the blob after the batch")
			})
		}
	}
}
