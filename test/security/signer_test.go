package security

import (
	"net/url"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	blobsas "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	filesas "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"
	fileservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	queuesas "github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/sas"

	"github.com/cerulean-db/cerulean/internal/azauth"
)

// TestSignerAgreesWithSDKs: the matrix's own SAS signer produces the
// signatures the official SDKs produce for the same values, so what the
// matrix proves holds for SAS tokens clients really send.
func TestSignerAgreesWithSDKs(t *testing.T) {
	account, key := azauth.DevAccount, azauth.DevKey
	start := time.Date(2026, 6, 1, 11, 0, 0, 0, time.UTC)
	expiry := start.Add(2 * time.Hour)
	check := func(what, sdkSig string, v sasValues) {
		t.Helper()
		v.start, v.expiry = start, expiry
		if got := v.sign(account, key).Get("sig"); got != sdkSig {
			t.Errorf("%s: signer gave %s, the SDK %s", what, got, sdkSig)
		}
	}

	blobCred, err := service.NewSharedKeyCredential(account, key)
	if err != nil {
		t.Fatal(err)
	}
	qp, err := blobsas.AccountSignatureValues{Version: sasVersion, Protocol: blobsas.ProtocolHTTPSandHTTP, StartTime: start, ExpiryTime: expiry,
		Permissions: "rwdlacup", ResourceTypes: "sco", IPRange: blobsas.IPRange{Start: []byte{127, 0, 0, 1}}}.SignWithSharedKey(blobCred)
	if err != nil {
		t.Fatal(err)
	}
	check("azblob account SAS", qp.Signature(), sasValues{services: "b", resourceTypes: "sco", permissions: "rwdlacup", protocol: "https,http", ip: "127.0.0.1"})
	qp, err = blobsas.BlobSignatureValues{Version: sasVersion, StartTime: start, ExpiryTime: expiry, Permissions: "racwdl", ContainerName: "c1", Identifier: "pol"}.SignWithSharedKey(blobCred)
	if err != nil {
		t.Fatal(err)
	}
	check("azblob container SAS", qp.Signature(), sasValues{service: "blob", resource: "/" + account + "/c1", sr: "c", permissions: "racwdl", identifier: "pol"})
	qp, err = blobsas.BlobSignatureValues{Version: sasVersion, StartTime: start, ExpiryTime: expiry, Permissions: "rw", ContainerName: "c1", BlobName: "d/b1"}.SignWithSharedKey(blobCred)
	if err != nil {
		t.Fatal(err)
	}
	check("azblob blob SAS", qp.Signature(), sasValues{service: "blob", resource: "/" + account + "/c1/d/b1", sr: "b", permissions: "rw"})

	queueCred, err := azqueue.NewSharedKeyCredential(account, key)
	if err != nil {
		t.Fatal(err)
	}
	qq, err := queuesas.QueueSignatureValues{Version: sasVersion, StartTime: start, ExpiryTime: expiry, Permissions: "raup", QueueName: "q1"}.SignWithSharedKey(queueCred)
	if err != nil {
		t.Fatal(err)
	}
	check("azqueue queue SAS", qq.Signature(), sasValues{service: "queue", resource: "/" + account + "/q1", permissions: "raup"})

	fileCred, err := fileservice.NewSharedKeyCredential(account, key)
	if err != nil {
		t.Fatal(err)
	}
	fq, err := filesas.SignatureValues{Version: sasVersion, StartTime: start, ExpiryTime: expiry, Permissions: "rcwdl", ShareName: "s1"}.SignWithSharedKey(fileCred)
	if err != nil {
		t.Fatal(err)
	}
	check("azfile share SAS", fq.Signature(), sasValues{service: "file", resource: "/" + account + "/s1", sr: "s", permissions: "rcwdl"})
	fq, err = filesas.SignatureValues{Version: sasVersion, StartTime: start, ExpiryTime: expiry, Permissions: "rw", ShareName: "s1", FilePath: "d/f"}.SignWithSharedKey(fileCred)
	if err != nil {
		t.Fatal(err)
	}
	check("azfile file SAS", fq.Signature(), sasValues{service: "file", resource: "/" + account + "/s1/d/f", sr: "f", permissions: "rw"})

	tableCred, err := aztables.NewSharedKeyCredential(account, key)
	if err != nil {
		t.Fatal(err)
	}
	encoded, err := aztables.SASSignatureValues{Version: sasVersion, StartTime: start, ExpiryTime: expiry, Permissions: "raud", TableName: "t1"}.Sign(tableCred)
	if err != nil {
		t.Fatal(err)
	}
	tq, err := url.ParseQuery(encoded)
	if err != nil {
		t.Fatal(err)
	}
	check("aztables table SAS", tq.Get("sig"), sasValues{service: "table", resource: "/" + account + "/t1", tableName: "t1", permissions: "raud"})
}
