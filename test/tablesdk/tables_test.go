package tablesdk_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

func TestCreateTable(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	var raw *http.Response
	resp, err := f.svc.CreateTable(policy.WithCaptureResponse(ctx, &raw), "Orders2026", nil)
	must(t, err, "CreateTable")
	if raw.StatusCode != http.StatusCreated || resp.TableName == nil || *resp.TableName != "Orders2026" {
		t.Fatalf("CreateTable: %d %+v", raw.StatusCode, resp)
	}
	// Table names ignore case.
	_, err = f.svc.CreateTable(ctx, "orders2026", nil)
	wantCode(t, err, http.StatusConflict, "TableAlreadyExists")
	_, err = f.svc.NewClient("Orders2026").CreateTable(ctx, nil)
	wantCode(t, err, http.StatusConflict, "TableAlreadyExists")

	// Prefer: return-no-content answers 204 without a body.
	resp2, body := f.rawRequest(http.MethodPost, "/Tables", map[string]string{
		"Content-Type": "application/json", "Accept": "application/json;odata=minimalmetadata", "Prefer": "return-no-content",
	}, []byte(`{"TableName":"Quiet"}`))
	if resp2.StatusCode != http.StatusNoContent || len(body) != 0 || resp2.Header.Get("Preference-Applied") != "return-no-content" {
		t.Fatalf("Prefer return-no-content: %d %q", resp2.StatusCode, body)
	}

	// Azure's answers: a length outside 3..63 is OutOfRangeInput, any
	// other breach (a leading digit, a character that is not a letter or
	// digit, the reserved name) InvalidResourceName.
	for _, bad := range []string{"ab", strings.Repeat("a", 64)} {
		_, err := f.svc.CreateTable(ctx, bad, nil)
		wantCode(t, err, http.StatusBadRequest, "OutOfRangeInput")
	}
	for _, bad := range []string{"1abc", "has-dash", "tables", "Tables", "ümlaut"} {
		_, err := f.svc.CreateTable(ctx, bad, nil)
		wantCode(t, err, http.StatusBadRequest, "InvalidResourceName")
	}
	_, err = f.svc.CreateTable(ctx, strings.Repeat("a", 63), nil)
	must(t, err, "63-character name")
}

func TestDeleteTable(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	c := f.newTable()
	_, err := c.AddEntity(ctx, entity("p", "r", nil), nil)
	must(t, err, "AddEntity")
	_, err = f.svc.DeleteTable(ctx, strings.ToUpper(c.name), nil)
	must(t, err, "DeleteTable")
	_, err = c.GetEntity(ctx, "p", "r", nil)
	wantCode(t, err, http.StatusNotFound, "TableNotFound")
	// Deleting it again: Azure names the missing table ResourceNotFound
	// here (recorded in go-storage StorageClientSuite
	// TestReturnsStorageServiceError).
	_, err = c.Delete(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
	// A table created again under the name starts empty.
	_, err = c.CreateTable(ctx, nil)
	must(t, err, "re-create")
	if got := listAll(t, c, nil); len(got) != 0 {
		t.Fatalf("re-created table holds %d entities", len(got))
	}
}

func TestListTables(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	var names []string
	for i := range 25 {
		name := fmt.Sprintf("Tbl%02d", i)
		if i%2 == 1 {
			name = fmt.Sprintf("other%02d", i)
		}
		_, err := f.svc.CreateTable(ctx, name, nil)
		must(t, err, "CreateTable")
		names = append(names, name)
	}
	list := func(opts *aztables.ListTablesOptions) ([]string, int) {
		var got []string
		pages := 0
		pager := f.svc.NewListTablesPager(opts)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			must(t, err, "ListTables")
			pages++
			for _, tp := range page.Tables {
				got = append(got, *tp.Name)
			}
		}
		return got, pages
	}
	all, _ := list(nil)
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	if !slices.Equal(all, names) {
		t.Fatalf("tables %v, want %v", all, names)
	}
	paged, pages := list(&aztables.ListTablesOptions{Top: to.Ptr(int32(4))})
	if !slices.Equal(paged, names) || pages != 7 {
		t.Fatalf("paged by 4: %d pages %v", pages, paged)
	}
	filtered, _ := list(&aztables.ListTablesOptions{Filter: to.Ptr("TableName ge 'Tbl' and TableName lt 'Tbm'")})
	if len(filtered) != 13 || !strings.HasPrefix(filtered[0], "Tbl") {
		t.Fatalf("filtered %v", filtered)
	}
	full, err := f.svc.NewListTablesPager(&aztables.ListTablesOptions{Format: to.Ptr(aztables.MetadataFormatFull), Top: to.Ptr(int32(1))}).NextPage(ctx)
	must(t, err, "full metadata")
	var md map[string]string
	must(t, json.Unmarshal(full.Tables[0].Value, &md), "decode")
	if md["odata.type"] != "devstoreaccount1.Tables" || md["odata.editLink"] != "Tables('"+names[0]+"')" {
		t.Fatalf("full metadata %v", md)
	}
	_, err = f.svc.NewListTablesPager(&aztables.ListTablesOptions{Filter: to.Ptr("TableName eq")}).NextPage(ctx)
	wantCode(t, err, http.StatusBadRequest, "InvalidInput")
}

func TestTableACL(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	expiry := start.Add(48 * time.Hour)
	acl := []*aztables.SignedIdentifier{
		{ID: to.Ptr("readers"), AccessPolicy: &aztables.AccessPolicy{Start: &start, Expiry: &expiry, Permission: to.Ptr("r")}},
		{ID: to.Ptr("writers"), AccessPolicy: &aztables.AccessPolicy{Expiry: &expiry, Permission: to.Ptr("raud")}},
	}
	_, err := c.SetAccessPolicy(ctx, &aztables.SetAccessPolicyOptions{TableACL: acl})
	must(t, err, "SetAccessPolicy")
	got, err := c.GetAccessPolicy(ctx, nil)
	must(t, err, "GetAccessPolicy")
	if len(got.SignedIdentifiers) != 2 || *got.SignedIdentifiers[0].ID != "readers" || !got.SignedIdentifiers[0].AccessPolicy.Start.Equal(start) ||
		*got.SignedIdentifiers[1].AccessPolicy.Permission != "raud" || got.SignedIdentifiers[1].AccessPolicy.Start != nil {
		t.Fatalf("ACL %+v", got.SignedIdentifiers)
	}
	six := append(slices.Clone(acl), acl[0], acl[0], acl[0], acl[0])
	_, err = c.SetAccessPolicy(ctx, &aztables.SetAccessPolicyOptions{TableACL: six})
	if err == nil {
		t.Fatal("six stored access policies accepted")
	}
	_, err = c.SetAccessPolicy(ctx, nil)
	must(t, err, "clear ACL")
	if got, _ := c.GetAccessPolicy(ctx, nil); len(got.SignedIdentifiers) != 0 {
		t.Fatalf("ACL not cleared: %+v", got.SignedIdentifiers)
	}
	_, err = f.svc.NewClient("nosuchtable").GetAccessPolicy(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "TableNotFound")
}

func TestServiceProperties(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	props, err := f.svc.GetProperties(ctx, nil)
	must(t, err, "GetProperties")
	if props.Logging == nil || props.HourMetrics == nil || len(props.Cors) != 0 {
		t.Fatalf("defaults %+v", props.ServiceProperties)
	}
	_, err = f.svc.SetProperties(ctx, aztables.ServiceProperties{Cors: []*aztables.CorsRule{{
		AllowedOrigins: to.Ptr("https://app.example"), AllowedMethods: to.Ptr("GET,MERGE"),
		AllowedHeaders: to.Ptr("x-ms-*"), ExposedHeaders: to.Ptr("x-ms-request-id"), MaxAgeInSeconds: to.Ptr(int32(60)),
	}}}, nil)
	must(t, err, "SetProperties")
	props, err = f.svc.GetProperties(ctx, nil)
	must(t, err, "GetProperties")
	if len(props.Cors) != 1 || *props.Cors[0].AllowedMethods != "GET,MERGE" || props.Logging == nil {
		t.Fatalf("after set %+v", props.ServiceProperties)
	}

	stats, err := f.svc.GetStatistics(ctx, nil)
	must(t, err, "GetStatistics")
	if stats.GeoReplication == nil || *stats.GeoReplication.Status != aztables.GeoReplicationStatusLive || stats.GeoReplication.LastSyncTime == nil {
		t.Fatalf("stats %+v", stats.GeoReplication)
	}

	// The rules apply on the table port: a preflight from the origin passes.
	req, err := http.NewRequestWithContext(ctx, http.MethodOptions, f.env.TableURL+"Tables", nil)
	must(t, err, "preflight request")
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "GET")
	req.Header.Set("Access-Control-Request-Headers", "x-ms-date")
	resp, err := http.DefaultClient.Do(req)
	must(t, err, "preflight")
	_ = resp.Body.Close() // only the status mattered
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Fatalf("preflight %d %v", resp.StatusCode, resp.Header)
	}
	req.Header.Set("Origin", "https://evil.example")
	resp, err = http.DefaultClient.Do(req)
	must(t, err, "preflight")
	_ = resp.Body.Close() // only the status mattered
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("preflight from another origin: %d", resp.StatusCode)
	}
}

// TestErrorFormat: the Table service answers errors in OData JSON with
// x-ms-error-code, which is what aztables reads.
func TestErrorFormat(t *testing.T) {
	f := newFixture(t)
	resp, body := f.rawRequest(http.MethodGet, "/nosuchtable(PartitionKey='p',RowKey='r')", map[string]string{"Accept": "application/json;odata=minimalmetadata"}, nil)
	var doc struct {
		Err struct {
			Code    string
			Message struct{ Lang, Value string }
		} `json:"odata.error"`
	}
	must(t, json.Unmarshal(body, &doc), "decode %s", body)
	if resp.StatusCode != 404 || resp.Header.Get("x-ms-error-code") != "TableNotFound" || doc.Err.Code != "TableNotFound" ||
		doc.Err.Message.Lang != "en-US" || !strings.Contains(doc.Err.Message.Value, "RequestId:") ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("%d %v %s", resp.StatusCode, resp.Header, body)
	}
	resp, _ = f.rawRequest(http.MethodGet, "/Tables", map[string]string{"Accept": "application/atom+xml"}, nil)
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("Atom request: %d", resp.StatusCode)
	}
	resp, _ = f.rawRequest(http.MethodGet, "/tbl(PartitionKey='p')", nil, nil)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("malformed entity address: %d", resp.StatusCode)
	}
}

// TestTableNamesIgnoreCaseOnly: names are unique ignoring case and keep
// the case they were created with; a name that is a prefix, suffix or
// substring of another is a different table. Source: the REST
// reference's "Understanding the Table service data model" (table names
// are unique within an account and case-insensitive; the case given at
// creation is preserved).
func TestTableNamesIgnoreCaseOnly(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	names := []string{"Abc", "abcd", "xabc", "xAbCx", "abcabc", "ab1"}
	for _, name := range names {
		_, err := f.svc.CreateTable(ctx, name, nil)
		must(t, err, "CreateTable %s", name)
	}
	for _, dup := range []string{"ABC", "abc", "ABCD", "XABC", "xabcx", "ABCABC", "AB1"} {
		_, err := f.svc.CreateTable(ctx, dup, nil)
		wantCode(t, err, http.StatusConflict, "TableAlreadyExists")
	}
	// Each table holds its own entities, whatever case addresses it.
	for _, name := range names {
		_, err := f.svc.NewClient(strings.ToUpper(name)).AddEntity(ctx, entity("p", name, nil), nil)
		must(t, err, "AddEntity via %s", strings.ToUpper(name))
	}
	for _, name := range names {
		got := listAll(t, table{f.svc.NewClient(strings.ToLower(name)), name}, nil)
		if len(got) != 1 || got[0].RowKey != name {
			t.Errorf("table %s holds %v", name, got)
		}
	}
	// Query Tables answers each as created; an eq filter matches one.
	var listed []string
	for pager := f.svc.NewListTablesPager(nil); pager.More(); {
		page, err := pager.NextPage(ctx)
		must(t, err, "ListTables")
		for _, tp := range page.Tables {
			listed = append(listed, *tp.Name)
		}
	}
	want := slices.Clone(names)
	slices.SortFunc(want, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	if !slices.Equal(listed, want) {
		t.Errorf("tables %v, want %v", listed, want)
	}
	// Deleting one leaves those its name is part of.
	_, err := f.svc.DeleteTable(ctx, "ABC", nil)
	must(t, err, "DeleteTable ABC")
	for _, name := range names[1:] {
		_, err := f.svc.NewClient(name).GetAccessPolicy(ctx, nil)
		must(t, err, "table %s after deleting Abc", name)
	}
	_, err = f.svc.NewClient("abc").GetAccessPolicy(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "TableNotFound")
}

// TestQueryTablesRangePages is aztables' TestQueryTable: four tables in a
// TableName range and one past it, listed two to a page, come in exactly
// two pages (recorded in go-aztables TestQueryTable: the second page
// carries no continuation, though a table past the range exists).
func TestQueryTablesRangePages(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	for _, name := range []string{"zzza0", "zzza1", "zzza2", "zzza3", "zzzb4"} {
		_, err := f.svc.CreateTable(ctx, name, nil)
		must(t, err, "CreateTable %s", name)
	}
	filter := "TableName ge 'zzza' and TableName lt 'zzzb'"
	pager := f.svc.NewListTablesPager(&aztables.ListTablesOptions{Filter: &filter, Top: to.Ptr(int32(2))})
	count, pages := 0, 0
	for pager.More() {
		page, err := pager.NextPage(ctx)
		must(t, err, "ListTables")
		pages++
		count += len(page.Tables)
		if len(page.Tables) != 2 {
			t.Errorf("page %d holds %d tables", pages, len(page.Tables))
		}
		for _, tp := range page.Tables {
			if tp.Value != nil {
				t.Errorf("minimal metadata table %s carries %s", *tp.Name, tp.Value)
			}
		}
	}
	if count != 4 || pages != 2 {
		t.Errorf("%d tables in %d pages, want 4 in 2", count, pages)
	}
}
