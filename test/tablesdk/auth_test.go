package tablesdk_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// TestSharedKey signs requests with the Table service's full Shared Key
// form (the SDK itself uses Shared Key Lite, which every other test
// exercises).
func TestSharedKey(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	key, err := base64.StdEncoding.DecodeString(f.env.Key)
	must(t, err, "key")
	send := func(method, path, contentType, body string, sigKey []byte) *http.Response {
		req, err := http.NewRequestWithContext(t.Context(), method, f.serviceURL()+path, strings.NewReader(body))
		must(t, err, "request")
		date := time.Now().UTC().Format(http.TimeFormat)
		req.Header.Set("x-ms-date", date)
		req.Header.Set("x-ms-version", "2019-02-02")
		req.Header.Set("Accept", "application/json;odata=nometadata")
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		toSign := method + "\n\n" + contentType + "\n" + date + "\n/" + f.env.Account + req.URL.EscapedPath()
		mac := hmac.New(sha256.New, sigKey)
		mac.Write([]byte(toSign))
		req.Header.Set("Authorization", "SharedKey "+f.env.Account+":"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
		resp, err := http.DefaultClient.Do(req)
		must(t, err, "send")
		_ = resp.Body.Close() // fully read; a close error changes nothing
		return resp
	}
	if resp := send(http.MethodPost, "/"+c.name, "application/json", `{"PartitionKey":"p","RowKey":"sk"}`, key); resp.StatusCode != http.StatusCreated {
		t.Fatalf("Shared Key insert: %d", resp.StatusCode)
	}
	if resp := send(http.MethodGet, "/"+c.name+"(PartitionKey='p',RowKey='sk')", "", "", key); resp.StatusCode != http.StatusOK {
		t.Fatalf("Shared Key get: %d", resp.StatusCode)
	}
	if resp := send(http.MethodGet, "/Tables", "", "", []byte("wrong key, wrong key, wrong key!")); resp.StatusCode != http.StatusForbidden || resp.Header.Get("x-ms-error-code") != "AuthenticationFailed" {
		t.Fatalf("bad signature: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
	// No credentials at all.
	resp, err := http.Get(f.serviceURL() + "/Tables")
	must(t, err, "anonymous")
	_ = resp.Body.Close() // fully read; a close error changes nothing
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("anonymous request: %d", resp.StatusCode)
	}
	// A Shared Key client with the wrong key.
	bad, err := aztables.NewSharedKeyCredential(f.env.Account, base64.StdEncoding.EncodeToString([]byte("not the account key at all......")))
	must(t, err, "credential")
	svc, err := aztables.NewServiceClientWithSharedKey(f.serviceURL(), bad, clientOptions())
	must(t, err, "client")
	_, err = svc.CreateTable(t.Context(), "Nope", nil)
	wantCode(t, err, http.StatusForbidden, "AuthenticationFailed")
}

// accountSAS signs an account SAS for the Table service; the SDK's own
// GetAccountSASURL insists on HTTPS, which the emulator does not serve.
func (f *fixture) accountSAS(resourceTypes aztables.AccountSASResourceTypes, perms aztables.AccountSASPermissions) *aztables.ServiceClient {
	f.t.Helper()
	qps, err := aztables.AccountSASSignatureValues{
		Protocol:      aztables.SASProtocolHTTPSandHTTP,
		ExpiryTime:    time.Now().Add(time.Hour).UTC(),
		Permissions:   perms.String(),
		Services:      "t",
		ResourceTypes: resourceTypes.String(),
	}.Sign(f.cred)
	must(f.t, err, "sign account SAS")
	svc, err := aztables.NewServiceClientWithNoCredential(f.serviceURL()+"/?"+qps.Encode(), clientOptions())
	must(f.t, err, "SAS client")
	return svc
}

func TestAccountSAS(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	all := aztables.AccountSASResourceTypes{Service: true, Container: true, Object: true}
	admin := f.accountSAS(all, aztables.AccountSASPermissions{Read: true, Write: true, Delete: true, List: true, Add: true, Update: true})
	_, err := admin.CreateTable(ctx, "ViaSas", nil)
	must(t, err, "create table with an account SAS")
	tc := admin.NewClient("ViaSas")
	_, err = tc.AddEntity(ctx, entity("p", "r", map[string]any{"V": int32(1)}), nil)
	must(t, err, "insert")
	_, err = tc.UpsertEntity(ctx, entity("p", "r", map[string]any{"V": int32(2)}), nil)
	must(t, err, "upsert")
	_, err = tc.SubmitTransaction(ctx, []aztables.TransactionAction{{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", "b", nil)}}, nil)
	must(t, err, "batch")
	if got := listAll(t, table{tc, "ViaSas"}, nil); len(got) != 2 {
		t.Fatalf("%d entities", len(got))
	}
	_, err = admin.GetProperties(ctx, nil)
	must(t, err, "service properties")
	pager := admin.NewListTablesPager(nil)
	_, err = pager.NextPage(ctx)
	must(t, err, "list tables")

	readOnly := f.accountSAS(all, aztables.AccountSASPermissions{Read: true, List: true})
	ro := readOnly.NewClient("ViaSas")
	_, err = ro.GetEntity(ctx, "p", "r", nil)
	must(t, err, "read with r")
	_, err = ro.AddEntity(ctx, entity("p", "x", nil), nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	_, err = ro.DeleteEntity(ctx, "p", "r", nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	_, err = ro.SubmitTransaction(ctx, []aztables.TransactionAction{{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", "x", nil)}}, nil)
	if index, code := batchFailure(t, err); index != 0 || code != "AuthorizationPermissionMismatch" {
		t.Fatalf("read-only batch: operation %d %s", index, code)
	}
	_, err = readOnly.CreateTable(ctx, "Denied", nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")

	objectsOnly := f.accountSAS(aztables.AccountSASResourceTypes{Object: true}, aztables.AccountSASPermissions{Read: true, List: true, Write: true})
	_, err = objectsOnly.NewListTablesPager(nil).NextPage(ctx)
	wantCode(t, err, http.StatusForbidden, "AuthorizationResourceTypeMismatch")
	// Stored access policies are for the account owner.
	_, err = tc.GetAccessPolicy(ctx, nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationFailure")
}

// tableSAS returns a client for c authorized by a table SAS.
func (f *fixture) tableSAS(c table, v aztables.SASSignatureValues) *aztables.Client {
	f.t.Helper()
	client, err := aztables.NewClientWithNoCredential(f.serviceURL()+"/"+c.name+"?"+f.tableSASQuery(c, v), clientOptions())
	must(f.t, err, "table SAS client")
	return client
}

// tableSASQuery signs a table SAS for c. The SDK's SASSignatureValues
// signs the key range but leaves it out of the query string it returns,
// so the range is appended here.
func (f *fixture) tableSASQuery(c table, v aztables.SASSignatureValues) string {
	f.t.Helper()
	v.TableName, v.Protocol = c.name, aztables.SASProtocolHTTPSandHTTP
	if v.ExpiryTime.IsZero() && v.Identifier == "" {
		v.ExpiryTime = time.Now().Add(time.Hour).UTC()
	}
	qs, err := v.Sign(f.cred)
	must(f.t, err, "sign table SAS")
	q, err := url.ParseQuery(qs)
	must(f.t, err, "parse SAS")
	for k, val := range map[string]string{"spk": v.StartPartitionKey, "srk": v.StartRowKey, "epk": v.EndPartitionKey, "erk": v.EndRowKey} {
		if val != "" {
			q.Set(k, val)
		}
	}
	return q.Encode()
}

func TestTableSAS(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	c := f.newTable()
	other := f.newTable()
	for _, pk := range []string{"a", "b", "c", "d"} {
		for _, rk := range []string{"1", "2", "3"} {
			_, err := c.AddEntity(ctx, entity(pk, rk, nil), nil)
			must(t, err, "AddEntity")
		}
	}

	// Permissions.
	reader := f.tableSAS(c, aztables.SASSignatureValues{Permissions: aztables.SASPermissions{Read: true}.String()})
	_, err := reader.GetEntity(ctx, "a", "1", nil)
	must(t, err, "read with r")
	if got := listAll(t, table{reader, c.name}, nil); len(got) != 12 {
		t.Fatalf("reader sees %d entities", len(got))
	}
	_, err = reader.AddEntity(ctx, entity("z", "z", nil), nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	adder := f.tableSAS(c, aztables.SASSignatureValues{Permissions: aztables.SASPermissions{Add: true}.String()})
	_, err = adder.AddEntity(ctx, entity("z", "z", nil), nil)
	must(t, err, "insert with a")
	_, err = adder.UpsertEntity(ctx, entity("z", "z", nil), nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch") // upserts need a and u
	_, err = adder.DeleteEntity(ctx, "z", "z", nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	full := f.tableSAS(c, aztables.SASSignatureValues{Permissions: "raud"})
	_, err = full.UpsertEntity(ctx, entity("z", "z", map[string]any{"U": true}), nil)
	must(t, err, "upsert with au")
	_, err = full.DeleteEntity(ctx, "z", "z", nil)
	must(t, err, "delete with d")
	_, err = full.SubmitTransaction(ctx, []aztables.TransactionAction{{ActionType: aztables.TransactionTypeAdd, Entity: entity("z", "y", nil)}}, nil)
	must(t, err, "batch with a table SAS")

	// A table SAS reaches its own table only, and no table-level operation.
	_, err = f.svc.NewClient(other.name).GetEntity(ctx, "a", "1", nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
	wrongTable, err := aztables.NewClientWithNoCredential(f.serviceURL()+"/"+other.name+"?"+f.tableSASQuery(c, aztables.SASSignatureValues{Permissions: "raud"}), clientOptions())
	must(t, err, "client")
	_, err = wrongTable.GetEntity(ctx, "a", "1", nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationFailure")
	_, err = full.Delete(ctx, nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationFailure")

	// Key ranges: (b,2) to (c,2) inclusive.
	ranged := f.tableSAS(c, aztables.SASSignatureValues{Permissions: "raud", StartPartitionKey: "b", StartRowKey: "2", EndPartitionKey: "c", EndRowKey: "2"})
	var keys []string
	for _, e := range listAll(t, table{ranged, c.name}, nil) {
		keys = append(keys, e.PartitionKey+e.RowKey)
	}
	if got := strings.Join(keys, " "); got != "b2 b3 c1 c2" {
		t.Fatalf("ranged query returned %s", got)
	}
	filtered := listAll(t, table{ranged, c.name}, &aztables.ListEntitiesOptions{Filter: to.Ptr("PartitionKey eq 'c' or PartitionKey eq 'd'")})
	if len(filtered) != 2 {
		t.Fatalf("ranged filtered query returned %d", len(filtered))
	}
	_, err = ranged.GetEntity(ctx, "b", "2", nil)
	must(t, err, "get inside the range")
	// An entity outside the range is not found through it, though it
	// exists (recorded in Azure.Data.Tables' TableClientLiveTests
	// ValidateSasCredentialsWithRowKeyAndPartitionKeyRanges).
	for _, k := range [][2]string{{"b", "1"}, {"c", "3"}, {"a", "9"}, {"d", "1"}} {
		_, err = ranged.GetEntity(ctx, k[0], k[1], nil)
		wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
	}
	_, err = ranged.AddEntity(ctx, entity("c", "0", nil), nil)
	must(t, err, "insert inside the range")
	_, err = ranged.AddEntity(ctx, entity("d", "0", nil), nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationFailure")
	_, err = ranged.SubmitTransaction(ctx, []aztables.TransactionAction{
		{ActionType: aztables.TransactionTypeAdd, Entity: entity("b", "4", nil)},
		{ActionType: aztables.TransactionTypeAdd, Entity: entity("b", "0", nil)},
	}, nil)
	if index, code := batchFailure(t, err); index != 1 || code != "AuthorizationFailure" {
		t.Fatalf("batch leaving the range: operation %d %s", index, code)
	}

	// A SAS naming a stored access policy takes its permissions and expiry.
	expiry := time.Now().Add(time.Hour).UTC()
	_, err = c.SetAccessPolicy(ctx, &aztables.SetAccessPolicyOptions{TableACL: []*aztables.SignedIdentifier{
		{ID: to.Ptr("ro"), AccessPolicy: &aztables.AccessPolicy{Expiry: &expiry, Permission: to.Ptr("r")}},
	}})
	must(t, err, "SetAccessPolicy")
	viaPolicy := f.tableSAS(c, aztables.SASSignatureValues{Identifier: "ro"})
	_, err = viaPolicy.GetEntity(ctx, "a", "1", nil)
	must(t, err, "read via stored policy")
	_, err = viaPolicy.AddEntity(ctx, entity("p", "x", nil), nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	// The policy decides at every request: once it stops allowing reads,
	// or is gone, the same SAS stops working at once.
	_, err = c.SetAccessPolicy(ctx, &aztables.SetAccessPolicyOptions{TableACL: []*aztables.SignedIdentifier{
		{ID: to.Ptr("ro"), AccessPolicy: &aztables.AccessPolicy{Expiry: &expiry, Permission: to.Ptr("a")}},
	}})
	must(t, err, "SetAccessPolicy: add only")
	_, err = viaPolicy.GetEntity(ctx, "a", "1", nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	_, err = viaPolicy.AddEntity(ctx, entity("p", "x", nil), nil)
	must(t, err, "insert via the changed policy")
	_, err = c.SetAccessPolicy(ctx, &aztables.SetAccessPolicyOptions{})
	must(t, err, "SetAccessPolicy: none")
	_, err = viaPolicy.GetEntity(ctx, "a", "1", nil)
	wantCode(t, err, http.StatusForbidden, "AuthenticationFailed")

	// Expired.
	expired := f.tableSAS(c, aztables.SASSignatureValues{Permissions: "r", ExpiryTime: time.Now().Add(-time.Minute).UTC()})
	_, err = expired.GetEntity(ctx, "a", "1", nil)
	wantCode(t, err, http.StatusForbidden, "AuthenticationFailed")
}

// TestStoredPolicyTakesEffect: a SAS bound to a stored access policy
// (si) follows the policy as it is now, not as it was when the SAS was
// issued: narrowing its permissions, moving its expiry into the past or
// deleting it stops the SAS at once, and restoring it brings the SAS
// back. Source: the REST reference's "Define a stored access policy"
// (modify or revoke a policy to change or revoke its signatures; a
// revoked signature fails 403).
func TestStoredPolicyTakesEffect(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	_, err := c.AddEntity(ctx, entity("p", "r", nil), nil)
	must(t, err, "AddEntity")
	setPolicy := func(perm string, expiry time.Time) {
		t.Helper()
		_, err := c.SetAccessPolicy(ctx, &aztables.SetAccessPolicyOptions{TableACL: []*aztables.SignedIdentifier{
			{ID: to.Ptr("live"), AccessPolicy: &aztables.AccessPolicy{Expiry: &expiry, Permission: to.Ptr(perm)}},
		}})
		must(t, err, "SetAccessPolicy %s", perm)
	}
	later := time.Now().Add(time.Hour).UTC()
	setPolicy("ra", later)
	sas := f.tableSAS(c, aztables.SASSignatureValues{Identifier: "live"})
	_, err = sas.GetEntity(ctx, "p", "r", nil)
	must(t, err, "read under a policy granting r")
	_, err = sas.AddEntity(ctx, entity("p", "a1", nil), nil)
	must(t, err, "insert under a policy granting a")

	setPolicy("a", later)
	_, err = sas.GetEntity(ctx, "p", "r", nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	_, err = sas.NewListEntitiesPager(nil).NextPage(ctx)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	_, err = sas.AddEntity(ctx, entity("p", "a2", nil), nil)
	must(t, err, "insert after r was taken away")

	setPolicy("ra", time.Now().Add(-time.Minute).UTC())
	_, err = sas.GetEntity(ctx, "p", "r", nil)
	wantStatus(t, err, http.StatusForbidden, "read under an expired policy")

	_, err = c.SetAccessPolicy(ctx, nil)
	must(t, err, "delete the policies")
	_, err = sas.GetEntity(ctx, "p", "r", nil)
	wantStatus(t, err, http.StatusForbidden, "read under a deleted policy")

	setPolicy("r", later)
	_, err = sas.GetEntity(ctx, "p", "r", nil)
	must(t, err, "read after the policy was restored")
}

// TestTableSASNameField: the tn field names the table in any case — the
// JavaScript SDK sends it as the caller wrote it, aztables lowercased,
// and both sign the lowercased name (@azure/data-tables
// generateTableSasQueryParameters and getCanonicalName; aztables
// SASSignatureValues.Sign) — and the SAS reaches that table whatever
// case the request addresses it in, in single operations and in a batch.
// A SAS for another table, or without tn, reaches nothing.
func TestTableSASNameField(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	_, err := f.svc.CreateTable(ctx, "MixedCase", nil)
	must(t, err, "CreateTable")
	c := table{f.svc.NewClient("MixedCase"), "MixedCase"}
	_, err = c.AddEntity(ctx, entity("p", "r", nil), nil)
	must(t, err, "AddEntity")
	signed, err := url.ParseQuery(f.tableSASQuery(c, aztables.SASSignatureValues{Permissions: aztables.SASPermissions{Read: true, Add: true}.String()}))
	must(t, err, "parse SAS")
	if signed.Get("tn") != "mixedcase" {
		t.Fatalf("aztables wrote tn=%q", signed.Get("tn"))
	}
	for _, tn := range []string{"mixedcase", "MixedCase", "MIXEDCASE"} {
		q := maps.Clone(signed)
		q.Set("tn", tn)
		for _, addressed := range []string{"MixedCase", "mixedcase"} {
			client, err := aztables.NewClientWithNoCredential(f.serviceURL()+"/"+addressed+"?"+q.Encode(), clientOptions())
			must(t, err, "SAS client")
			_, err = client.GetEntity(ctx, "p", "r", nil)
			must(t, err, "GetEntity with tn=%s on %s", tn, addressed)
			_, err = client.SubmitTransaction(ctx, []aztables.TransactionAction{
				{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", tn+addressed, nil)},
			}, nil)
			must(t, err, "batch with tn=%s on %s", tn, addressed)
		}
	}
	_, err = f.svc.CreateTable(ctx, "Other", nil)
	must(t, err, "CreateTable Other")
	other, err := aztables.NewClientWithNoCredential(f.serviceURL()+"/Other?"+signed.Encode(), clientOptions())
	must(t, err, "SAS client for another table")
	_, err = other.GetEntity(ctx, "p", "r", nil)
	wantStatus(t, err, http.StatusForbidden, "a SAS for MixedCase on Other")
	q := maps.Clone(signed)
	q.Del("tn")
	untargeted, err := aztables.NewClientWithNoCredential(f.serviceURL()+"/MixedCase?"+q.Encode(), clientOptions())
	must(t, err, "SAS client without tn")
	_, err = untargeted.GetEntity(ctx, "p", "r", nil)
	wantStatus(t, err, http.StatusForbidden, "a table SAS without tn")
}
