package tablesdk_test

import (
	"math"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// etagForm is Azure's entity ETag: the commit time with up to seven
// decimals (trailing zeros dropped), colons escaped.
var etagForm = regexp.MustCompile(`^W/"datetime'(\d{4}-\d\d-\d\dT\d\d%3A\d\d%3A\d\d(\.\d{0,6}[1-9])?Z)'"$`)

// etagTime reads the time inside an entity ETag.
func etagTime(t *testing.T, etag azcore.ETag) time.Time {
	t.Helper()
	m := etagForm.FindStringSubmatch(string(etag))
	if m == nil {
		t.Fatalf("ETag %s is not W/\"datetime'<time>'\"", etag)
	}
	at, err := time.Parse(time.RFC3339Nano, strings.ReplaceAll(m[1], "%3A", ":"))
	must(t, err, "ETag time %s", m[1])
	return at
}

// TestETagIsCommitTime: an entity's ETag carries its write's UTC time,
// the same instant as its Timestamp; every write moves it forward, even
// several within one clock tick; and an ETag whose date a client edited
// to be stale fails with 412.
func TestETagIsCommitTime(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	before := time.Now().UTC()
	resp, err := c.AddEntity(ctx, entity("p", "r", map[string]any{"V": int32(0)}), nil)
	must(t, err, "AddEntity")
	at := etagTime(t, resp.ETag)
	if at.Before(before.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) {
		t.Errorf("ETag time %v is not the commit time (around %v)", at, before)
	}
	e, etag := getEntity(t, c, "p", "r")
	if etag != resp.ETag || !time.Time(e.Timestamp).Equal(at) {
		t.Errorf("Timestamp %v / ETag %s, want the ETag's time %v", time.Time(e.Timestamp), etag, at)
	}

	last := at
	for i := range 20 {
		upd, err := c.UpsertEntity(ctx, entity("p", "r", map[string]any{"V": int32(i)}), nil)
		must(t, err, "UpsertEntity")
		now := etagTime(t, upd.ETag)
		if !now.After(last) {
			t.Fatalf("write %d: ETag time %v does not pass %v", i, now, last)
		}
		last = now
	}
	_, etag = getEntity(t, c, "p", "r")

	// A client edits the date to make the ETag stale: a second earlier,
	// or one tick earlier.
	for _, d := range []time.Duration{time.Second, 100 * time.Nanosecond} {
		stale := azcore.ETag(`W/"datetime'` + strings.ReplaceAll(etagTime(t, etag).Add(-d).Format("2006-01-02T15:04:05.9999999Z"), ":", "%3A") + `'"`)
		_, err = c.UpdateEntity(ctx, entity("p", "r", nil), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeReplace, IfMatch: &stale})
		wantCode(t, err, http.StatusPreconditionFailed, "UpdateConditionNotSatisfied")
		_, err = c.DeleteEntity(ctx, "p", "r", &aztables.DeleteEntityOptions{IfMatch: &stale})
		wantCode(t, err, http.StatusPreconditionFailed, "UpdateConditionNotSatisfied")
	}
	_, err = c.UpdateEntity(ctx, entity("p", "r", nil), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge, IfMatch: &etag})
	must(t, err, "merge with the current ETag")
}

// TestIfMatchForms: If-Match takes * or one weak ETag. A strong or
// malformed value is 400 InvalidInput, as Azure answers it; a weak ETag
// that was never issued is 412.
func TestIfMatchForms(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	resp, err := c.AddEntity(ctx, entity("p", "r", nil), nil)
	must(t, err, "AddEntity")
	strong := azcore.ETag(strings.TrimPrefix(string(resp.ETag), "W/"))
	for _, bad := range []azcore.ETag{strong, "garbage", `"0x8D"`, resp.ETag + ", " + resp.ETag, `W/"a"b"`} {
		_, err = c.UpdateEntity(ctx, entity("p", "r", nil), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge, IfMatch: &bad})
		wantCode(t, err, http.StatusBadRequest, "InvalidInput")
		_, err = c.DeleteEntity(ctx, "p", "r", &aztables.DeleteEntityOptions{IfMatch: &bad})
		wantCode(t, err, http.StatusBadRequest, "InvalidInput")
	}
	// A weak ETag that matches nothing fails the condition; Azure names
	// the failure by whether the ETag holds a datetime at all (recorded in
	// go-storage StorageEntitySuite TestMerge).
	for never, code := range map[azcore.ETag]string{
		`W/"datetime'2001-01-01T00%3A00%3A00.0000000Z'"`: "UpdateConditionNotSatisfied",
		`W/"wrong"`: "ConditionNotMet",
		`W/"datetime''2017-04-01T01%3A07%3A23.8881885Z''"`: "ConditionNotMet",
	} {
		_, err = c.UpdateEntity(ctx, entity("p", "r", nil), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeReplace, IfMatch: &never})
		wantCode(t, err, http.StatusPreconditionFailed, code)
	}
	// Inside a batch the operation fails the change set the same way.
	_, err = c.SubmitTransaction(ctx, []aztables.TransactionAction{
		{ActionType: aztables.TransactionTypeUpdateMerge, Entity: entity("p", "r", nil), IfMatch: &strong},
	}, nil)
	if index, code := batchFailure(t, err); index != 0 || code != "InvalidInput" {
		t.Errorf("batch with a strong If-Match: operation %d %s", index, code)
	}
	_, err = c.DeleteEntity(ctx, "p", "r", &aztables.DeleteEntityOptions{IfMatch: &resp.ETag})
	must(t, err, "delete with the weak ETag as sent")
}

// TestTableNameRules: every table and entity operation applies Azure's
// naming rules and codes, not only Create Table; names ignore case.
func TestTableNameRules(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	_, err := f.svc.CreateTable(ctx, "CaseTable", nil)
	must(t, err, "CreateTable")
	for _, dup := range []string{"casetable", "CASETABLE", "caseTable"} {
		_, err = f.svc.CreateTable(ctx, dup, nil)
		wantCode(t, err, http.StatusConflict, "TableAlreadyExists")
	}
	_, err = f.svc.NewClient("CASETABLE").AddEntity(ctx, entity("p", "r", nil), nil)
	must(t, err, "insert through another case")

	for name, code := range map[string]string{"1abc": "InvalidResourceName", "ab": "OutOfRangeInput", "tables": "InvalidResourceName", strings.Repeat("x", 64): "OutOfRangeInput"} {
		c := f.svc.NewClient(name)
		_, err = c.AddEntity(ctx, entity("p", "r", nil), nil)
		wantCode(t, err, http.StatusBadRequest, code)
		_, err = c.GetEntity(ctx, "p", "r", nil)
		wantCode(t, err, http.StatusBadRequest, code)
		_, err = f.svc.DeleteTable(ctx, name, nil)
		wantCode(t, err, http.StatusBadRequest, code)
	}
	resp, body := f.rawRequest(http.MethodPost, "/Tables", map[string]string{"Content-Type": "application/json", "Accept": "application/json"}, []byte(`{"TableName":"bad_name"}`))
	if resp.Code != "InvalidResourceName" || !strings.Contains(string(body), "The specifed resource name contains invalid characters.") {
		t.Errorf("invalid name: %d %s %s", resp.StatusCode, resp.Code, body)
	}
}

// TestCreateTablePlainREST: Create Table from a plain REST client, with
// the header variants Azure accepts.
func TestCreateTablePlainREST(t *testing.T) {
	f := newFixture(t)
	for i, h := range []map[string]string{
		{"Content-Type": "application/json", "Accept": "application/json;odata=nometadata"},
		{"Content-Type": "application/json;odata=nometadata", "Accept": "application/json;odata=minimalmetadata", "DataServiceVersion": "3.0;NetFx", "MaxDataServiceVersion": "3.0;NetFx"},
		{"Content-Type": "application/json; charset=utf-8", "Accept": "application/json;odata=fullmetadata", "DataServiceVersion": "3.0"},
		{"Content-Type": "application/json", "Accept": "application/json", "Prefer": "return-content"},
		{"Content-Type": "application/json"},
		{"Content-Type": "application/json", "Accept": "*/*", "Prefer": "return-no-content"},
	} {
		name := "Plain" + string(rune('A'+i)) + "x"
		resp, body := f.rawRequest(http.MethodPost, "/Tables", h, []byte(`{"TableName":"`+name+`"}`))
		want := http.StatusCreated
		if h["Prefer"] == "return-no-content" {
			want = http.StatusNoContent
		}
		if resp.StatusCode != want || want == http.StatusCreated && !strings.Contains(string(body), `"TableName":"`+name+`"`) {
			t.Errorf("variant %d %v: %d %s", i, h, resp.StatusCode, body)
		}
		if !strings.HasSuffix(resp.Header.Get("Location"), "Tables('"+name+"')") {
			t.Errorf("variant %d: Location %q", i, resp.Header.Get("Location"))
		}
	}
	// A body carrying OData annotations besides TableName is accepted.
	resp, body := f.rawRequest(http.MethodPost, "/Tables", map[string]string{"Content-Type": "application/json", "Accept": "application/json;odata=nometadata"},
		[]byte(`{"odata.type":"devstoreaccount1.Tables","TableName":"Annotated"}`))
	if resp.StatusCode != http.StatusCreated || string(body) != `{"TableName":"Annotated"}` {
		t.Errorf("annotated body: %d %s", resp.StatusCode, body)
	}
}

// TestFilterLiterals: $filter literals as Azure reads them.
func TestFilterLiterals(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	_, err := c.AddEntity(ctx, []byte(`{"PartitionKey":"p","RowKey":"a","On":true,"D":15000000000.0,"D@odata.type":"Edm.Double","Z":-0.0,"Z@odata.type":"Edm.Double"}`), nil)
	must(t, err, "AddEntity")
	_, err = c.AddEntity(ctx, []byte(`{"PartitionKey":"p","RowKey":"b","On":false,"D":2.0,"D@odata.type":"Edm.Double"}`), nil)
	must(t, err, "AddEntity")
	for filter, want := range map[string]string{
		"On eq True": "a", "On eq FALSE": "b", "On eq true and D gt 2D": "a",
		"D eq 1.5E+10": "a", "D eq 1.5e10": "a", "D eq 15000000000.0": "a", "D eq 2D": "b", "D eq 2.0": "b", "D lt 2.5d": "b",
		"Z eq -0.0": "a", "Z eq 0.0": "a",
	} {
		var got []string
		for _, e := range listAll(t, c, &aztables.ListEntitiesOptions{Filter: to.Ptr(filter)}) {
			got = append(got, e.RowKey)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("$filter %s matched %v, want %s", filter, got, want)
		}
	}
	pager := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: to.Ptr("On eq Yes")})
	_, err = pager.NextPage(ctx)
	wantCode(t, err, http.StatusBadRequest, "InvalidInput")
}

// TestInvalidDateTimeRefused: an Edm.DateTime value that is no date is
// refused on insert, never stored.
func TestInvalidDateTimeRefused(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	for _, v := range []string{"2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "yesterday", "2026-01-01T25:00:00Z", "", "0000-01-01T00:00:00Z", "1600-12-31T23:59:59Z"} {
		_, err := c.AddEntity(ctx, []byte(`{"PartitionKey":"p","RowKey":"r","T@odata.type":"Edm.DateTime","T":"`+v+`"}`), nil)
		wantCode(t, err, http.StatusBadRequest, "InvalidInput")
		_, err = c.UpsertEntity(ctx, []byte(`{"PartitionKey":"p","RowKey":"r","T@odata.type":"Edm.DateTime","T":"`+v+`"}`), nil)
		wantCode(t, err, http.StatusBadRequest, "InvalidInput")
	}
	if got := listAll(t, c, nil); len(got) != 0 {
		t.Fatalf("%d entities stored from refused writes", len(got))
	}
	_, err := c.AddEntity(ctx, []byte(`{"PartitionKey":"p","RowKey":"r","T@odata.type":"Edm.DateTime","T":"1601-01-01T00:00:00Z"}`), nil)
	must(t, err, "the earliest DateTime")
}

// TestTableSASUpdateLetters: with u alone a table SAS updates and merges
// (the SDKs send If-Match: * when no ETag is given); an upsert, which may
// insert, needs a and u.
func TestTableSASUpdateLetters(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	_, err := c.AddEntity(ctx, entity("p", "r", nil), nil)
	must(t, err, "AddEntity")
	updater := f.tableSAS(c, aztables.SASSignatureValues{Permissions: aztables.SASPermissions{Update: true}.String()})
	_, err = updater.UpdateEntity(ctx, entity("p", "r", map[string]any{"V": int32(1)}), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeReplace})
	must(t, err, "replace with u")
	_, err = updater.UpdateEntity(ctx, entity("p", "r", map[string]any{"W": int32(2)}), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge})
	must(t, err, "merge with u")
	_, err = updater.UpsertEntity(ctx, entity("p", "new", nil), nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	_, err = updater.AddEntity(ctx, entity("p", "new", nil), nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	upserter := f.tableSAS(c, aztables.SASSignatureValues{Permissions: aztables.SASPermissions{Add: true, Update: true}.String()})
	_, err = upserter.UpsertEntity(ctx, entity("p", "new", nil), &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeMerge})
	must(t, err, "upsert with au")

	// A SAS naming a stored access policy with u only behaves the same.
	expiry := time.Now().Add(time.Hour).UTC()
	_, err = c.SetAccessPolicy(ctx, &aztables.SetAccessPolicyOptions{TableACL: []*aztables.SignedIdentifier{
		{ID: to.Ptr("upd"), AccessPolicy: &aztables.AccessPolicy{Expiry: &expiry, Permission: to.Ptr("u")}},
	}})
	must(t, err, "SetAccessPolicy")
	viaPolicy := f.tableSAS(c, aztables.SASSignatureValues{Identifier: "upd"})
	_, err = viaPolicy.UpdateEntity(ctx, entity("p", "r", nil), nil)
	must(t, err, "update via a stored policy granting u")
	_, err = viaPolicy.UpsertEntity(ctx, entity("p", "other", nil), nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	_, err = viaPolicy.GetEntity(ctx, "p", "r", nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	// A policy that does not exist is an authentication failure.
	missing := f.tableSAS(c, aztables.SASSignatureValues{Identifier: "nope"})
	_, err = missing.GetEntity(ctx, "p", "r", nil)
	wantCode(t, err, http.StatusForbidden, "AuthenticationFailed")
}

// TestDoubleRange: an Edm.Double beyond the double range is refused, 400
// InvalidInput, whether sent as a JSON number or as a string, and never
// stored; the largest double is accepted and read back. Source: Azurite's
// EdmDouble, whose comment records the boundary as tested against Azure
// ("1.797693134862315e308" passes, "1.797693134862316e308" fails). Sent
// raw: aztables will not send a JSON number it cannot decode itself.
func TestDoubleRange(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	rest := newREST(t, f)
	for _, v := range []string{`1.797693134862316e308`, `"1.797693134862316e308"`, `-1.797693134862316e308`, `"-1.8E+308"`, `1e309`, `"1e400"`} {
		body := `{"PartitionKey":"p","RowKey":"r","D@odata.type":"Edm.Double","D":` + v + `}`
		rest.do(http.MethodPost, "/"+c.name, body, "Content-Type", "application/json", "Accept", jsonNoMetadata).
			want(t, "insert D="+v, http.StatusBadRequest, "InvalidInput")
		rest.do(http.MethodPut, "/"+c.name+"(PartitionKey='p',RowKey='r')", body, "Content-Type", "application/json").
			want(t, "upsert D="+v, http.StatusBadRequest, "InvalidInput")
	}
	if got := listAll(t, c, nil); len(got) != 0 {
		t.Fatalf("%d entities stored from refused writes", len(got))
	}
	_, err := c.AddEntity(t.Context(), []byte(`{"PartitionKey":"p","RowKey":"max","D@odata.type":"Edm.Double","D":"1.797693134862315e308","M@odata.type":"Edm.Double","M":-1.7976931348623157e308}`), nil)
	must(t, err, "AddEntity with the largest doubles")
	e, _ := getEntity(t, c, "p", "max")
	if e.Properties["D"] != 1.797693134862315e308 || e.Properties["M"] != -math.MaxFloat64 {
		t.Errorf("read back %v", e.Properties)
	}
}
