package tablesdk_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

const prodTableHost = "devstoreaccount1.table.core.windows.net"

// TestProductionURLOverHTTPS runs a small flow through aztables'
// production code path: https://devstoreaccount1.table.core.windows.net/
// resolved to the server, which serves Table over HTTPS with a
// certificate given as --cert/--key PEM files.
func TestProductionURLOverHTTPS(t *testing.T) {
	certFile, keyFile := testkit.TLSCertFiles(t, "*.table.core.windows.net")
	f := newFixture(t, servertest.WithStorageCert(certFile, keyFile))
	opts := clientOptions()
	opts.Transport = testkit.ResolvingClient(f.env.CertPool, map[string]string{prodTableHost: f.env.Server.TableAddr()})
	svc, err := aztables.NewServiceClientWithSharedKey("https://"+prodTableHost+"/", f.cred, opts)
	must(t, err, "production-style client")
	ctx := t.Context()
	name := testkit.Name("prod")
	_, err = svc.CreateTable(ctx, name, nil)
	must(t, err, "CreateTable over HTTPS")
	c := table{svc.NewClient(name), name}
	added, err := c.AddEntity(ctx, entity("p", "1", map[string]any{"V": int32(1)}), nil)
	must(t, err, "AddEntity over HTTPS")
	if got, _ := getEntity(t, c, "p", "1"); got.Properties["V"] != int32(1) {
		t.Errorf("GetEntity: %+v", got.Properties)
	}

	// Optimistic concurrency: the ETag of the insert updates once.
	_, err = c.UpdateEntity(ctx, entity("p", "1", map[string]any{"V": int32(2)}), &aztables.UpdateEntityOptions{IfMatch: &added.ETag, UpdateMode: aztables.UpdateModeReplace})
	must(t, err, "UpdateEntity If-Match the current ETag")
	_, err = c.UpdateEntity(ctx, entity("p", "1", map[string]any{"V": int32(3)}), &aztables.UpdateEntityOptions{IfMatch: &added.ETag, UpdateMode: aztables.UpdateModeReplace})
	wantCode(t, err, http.StatusPreconditionFailed, "UpdateConditionNotSatisfied")

	// A batch: its parts name entities by production-style URLs.
	actions := []aztables.TransactionAction{
		{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", "2", nil)},
		{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", "3", nil)},
	}
	_, err = c.SubmitTransaction(ctx, actions, nil)
	must(t, err, "SubmitTransaction over HTTPS")
	if got := listAll(t, c, nil); len(got) != 3 {
		t.Errorf("ListEntities: %d entities, want 3", len(got))
	}

	// A table SAS signed with spr=https works over HTTPS only.
	qs, err := aztables.SASSignatureValues{TableName: name, Protocol: aztables.SASProtocolHTTPS,
		Permissions: aztables.SASPermissions{Read: true}.String(), ExpiryTime: time.Now().Add(time.Hour).UTC()}.Sign(f.cred)
	must(t, err, "sign an HTTPS-only table SAS")
	reader, err := aztables.NewClientWithNoCredential("https://"+prodTableHost+"/"+name+"?"+qs, opts)
	must(t, err, "SAS client over HTTPS")
	_, err = reader.GetEntity(ctx, "p", "2", nil)
	must(t, err, "GetEntity with an spr=https SAS over HTTPS")

	plain := newFixture(t)
	_, err = plain.svc.CreateTable(ctx, name, nil)
	must(t, err, "CreateTable on the plain server")
	plainReader, err := aztables.NewClientWithNoCredential(plain.serviceURL()+"/"+name+"?"+qs, clientOptions())
	must(t, err, "SAS client over HTTP")
	_, err = plainReader.GetEntity(ctx, "p", "2", nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationProtocolMismatch")

	// The odata.metadata names the account URL as the client addressed it.
	resp, err := c.GetEntity(ctx, "p", "2", &aztables.GetEntityOptions{Format: ptr(aztables.MetadataFormatFull)})
	must(t, err, "GetEntity with full metadata")
	if !strings.Contains(string(resp.Value), `"https://`+prodTableHost+`/$metadata#`) {
		t.Errorf("entity %s: want odata.metadata under https://%s/", resp.Value, prodTableHost)
	}
}

func ptr[T any](v T) *T { return &v }
