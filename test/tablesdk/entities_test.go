package tablesdk_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/cerulean-db/cerulean/internal/servertest"
)

func TestAddEntity(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()

	var raw *http.Response
	resp, err := c.AddEntity(policy.WithCaptureResponse(ctx, &raw), entity("p", "r", map[string]any{"N": int32(1)}), nil)
	must(t, err, "AddEntity")
	if raw.StatusCode != http.StatusCreated || resp.ETag == "" || raw.Header.Get("ETag") != string(resp.ETag) {
		t.Fatalf("status %d, ETag %q / %q", raw.StatusCode, resp.ETag, raw.Header.Get("ETag"))
	}
	if loc := raw.Header.Get("Location"); !strings.HasSuffix(loc, "(PartitionKey='p',RowKey='r')") {
		t.Errorf("Location %q", loc)
	}
	var md struct {
		Metadata string `json:"odata.metadata"`
		ETag     string `json:"odata.etag"`
	}
	must(t, json.Unmarshal(resp.Value, &md), "decode response %s", resp.Value)
	if !strings.HasSuffix(md.Metadata, "/@Element") || md.ETag != string(resp.ETag) {
		t.Errorf("response metadata %+v", md)
	}

	_, err = c.AddEntity(ctx, entity("p", "r", nil), nil)
	wantCode(t, err, http.StatusConflict, "EntityAlreadyExists")

	_, err = f.svc.NewClient("nosuchtable").AddEntity(ctx, entity("p", "r", nil), nil)
	wantCode(t, err, http.StatusNotFound, "TableNotFound")

	// Timestamp in a request is ignored: the server sets it.
	body := `{"PartitionKey":"p","RowKey":"ts","Timestamp":"2001-01-01T00:00:00Z","Timestamp@odata.type":"Edm.DateTime"}`
	_, err = c.AddEntity(ctx, []byte(body), nil)
	must(t, err, "AddEntity with Timestamp")
	e, _ := getEntity(t, c, "p", "ts")
	if time.Since(time.Time(e.Timestamp)) > time.Minute {
		t.Errorf("Timestamp %v was taken from the request", time.Time(e.Timestamp))
	}

	// Prefer: return-no-content answers 204.
	resp2, body2 := f.rawRequest(http.MethodPost, "/"+c.name, map[string]string{
		"Content-Type": "application/json", "Accept": "application/json;odata=nometadata", "Prefer": "return-no-content",
	}, []byte(`{"PartitionKey":"p","RowKey":"nc"}`))
	if resp2.StatusCode != http.StatusNoContent || len(body2) != 0 || resp2.Header.Get("Preference-Applied") != "return-no-content" || resp2.Header.Get("ETag") == "" {
		t.Fatalf("Prefer return-no-content: %d %q %v", resp2.StatusCode, body2, resp2.Header)
	}
}

// TestDocumentedOptimisticFlow is Azure's documented scenario: read an
// entity, another client updates it, a replace with the old ETag fails
// with 412, a replace with * succeeds, and Insert Or Replace ignores
// ETags altogether.
func TestDocumentedOptimisticFlow(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	_, err := c.AddEntity(ctx, entity("p", "r", map[string]any{"V": "v0"}), nil)
	must(t, err, "AddEntity")
	_, oldETag := getEntity(t, c, "p", "r")

	other, err := aztables.NewServiceClientFromConnectionString(f.env.ConnectionString, clientOptions())
	must(t, err, "second client")
	upd, err := other.NewClient(c.name).UpdateEntity(ctx, entity("p", "r", map[string]any{"V": "other"}), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeReplace, IfMatch: &oldETag})
	must(t, err, "other client's update")
	if upd.ETag == oldETag {
		t.Fatal("the update kept the ETag")
	}

	_, err = c.UpdateEntity(ctx, entity("p", "r", map[string]any{"V": "stale"}), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeReplace, IfMatch: &oldETag})
	wantCode(t, err, http.StatusPreconditionFailed, "UpdateConditionNotSatisfied")
	_, err = c.UpdateEntity(ctx, entity("p", "r", map[string]any{"V": "stale"}), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge, IfMatch: &oldETag})
	wantCode(t, err, http.StatusPreconditionFailed, "UpdateConditionNotSatisfied")
	_, err = c.DeleteEntity(ctx, "p", "r", &aztables.DeleteEntityOptions{IfMatch: &oldETag})
	wantCode(t, err, http.StatusPreconditionFailed, "UpdateConditionNotSatisfied")
	if e, _ := getEntity(t, c, "p", "r"); e.Properties["V"] != "other" {
		t.Fatalf("a failed write changed the entity: %v", e.Properties)
	}

	star := azcore.ETagAny
	forced, err := c.UpdateEntity(ctx, entity("p", "r", map[string]any{"V": "forced"}), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeReplace, IfMatch: &star})
	must(t, err, "replace with *")

	_, err = c.UpsertEntity(ctx, entity("p", "r", map[string]any{"V": "upserted"}), &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeReplace, ETag: oldETag})
	must(t, err, "Insert Or Replace with a stale ETag in the options")
	e, etag := getEntity(t, c, "p", "r")
	if e.Properties["V"] != "upserted" || etag == forced.ETag {
		t.Fatalf("after upsert: %v %s", e.Properties, etag)
	}
}

func TestUpdateAndMerge(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	add, err := c.AddEntity(ctx, entity("p", "r", map[string]any{"A": "a", "B": int32(2)}), nil)
	must(t, err, "AddEntity")

	// Merge keeps what it does not name.
	m, err := c.UpdateEntity(ctx, entity("p", "r", map[string]any{"B": int32(3), "C": true}), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge, IfMatch: &add.ETag})
	must(t, err, "merge")
	e, etag := getEntity(t, c, "p", "r")
	if e.Properties["A"] != "a" || e.Properties["B"] != int32(3) || e.Properties["C"] != true || etag != m.ETag {
		t.Fatalf("after merge %v %s/%s", e.Properties, etag, m.ETag)
	}
	// Replace drops what it does not name.
	_, err = c.UpdateEntity(ctx, entity("p", "r", map[string]any{"D": "d"}), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeReplace, IfMatch: &etag})
	must(t, err, "replace")
	if e, _ := getEntity(t, c, "p", "r"); len(e.Properties) != 1 || e.Properties["D"] != "d" {
		t.Fatalf("after replace %v", e.Properties)
	}

	// Update and Merge of a missing entity: 404 ResourceNotFound.
	for _, mode := range []aztables.UpdateMode{aztables.UpdateModeReplace, aztables.UpdateModeMerge} {
		_, err = c.UpdateEntity(ctx, entity("p", "missing", nil), &aztables.UpdateEntityOptions{UpdateMode: mode})
		wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
		_, err = c.UpdateEntity(ctx, entity("p", "missing", nil), &aztables.UpdateEntityOptions{UpdateMode: mode, IfMatch: &etag})
		wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
	}

	// MERGE tunnelled through POST with X-HTTP-Method.
	_, etag = getEntity(t, c, "p", "r")
	resp, body := f.rawRequest(http.MethodPost, "/"+c.name+"(PartitionKey='p',RowKey='r')", map[string]string{
		"X-HTTP-Method": "MERGE", "If-Match": string(etag), "Content-Type": "application/json",
	}, []byte(`{"E":5}`))
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST + X-HTTP-Method MERGE: %d %s", resp.StatusCode, body)
	}
	if e, _ := getEntity(t, c, "p", "r"); e.Properties["D"] != "d" || e.Properties["E"] != int32(5) {
		t.Fatalf("after tunnelled merge %v", e.Properties)
	}
	// The MERGE verb itself.
	resp, body = f.rawRequest("MERGE", "/"+c.name+"(PartitionKey='p',RowKey='r')", map[string]string{"If-Match": "*", "Content-Type": "application/json"}, []byte(`{"F":6}`))
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("MERGE: %d %s", resp.StatusCode, body)
	}
	for _, tc := range []struct {
		method string
		header map[string]string
		code   string
	}{
		{http.MethodPut, map[string]string{"X-HTTP-Method": "MERGE"}, "XMethodNotUsingPost"},
		{http.MethodPost, map[string]string{"X-HTTP-Method": "PATCH"}, "XMethodIncorrectValue"},
		{http.MethodPost, map[string]string{"X-HTTP-Method": "MERGE,PUT"}, "XMethodIncorrectCount"},
	} {
		resp, body := f.rawRequest(tc.method, "/"+c.name+"(PartitionKey='p',RowKey='r')", tc.header, []byte(`{}`))
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("x-ms-error-code") != tc.code {
			t.Errorf("%s %v: %d %s", tc.method, tc.header, resp.StatusCode, body)
		}
	}
}

func TestUpsert(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	// Both upserts create a missing entity and need no ETag.
	_, err := c.UpsertEntity(ctx, entity("p", "a", map[string]any{"X": "1", "Y": "1"}), &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeReplace})
	must(t, err, "Insert Or Replace (insert)")
	_, err = c.UpsertEntity(ctx, entity("p", "b", map[string]any{"X": "1", "Y": "1"}), &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeMerge})
	must(t, err, "Insert Or Merge (insert)")
	_, err = c.UpsertEntity(ctx, entity("p", "a", map[string]any{"X": "2"}), &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeReplace})
	must(t, err, "Insert Or Replace (replace)")
	_, err = c.UpsertEntity(ctx, entity("p", "b", map[string]any{"X": "2"}), &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeMerge})
	must(t, err, "Insert Or Merge (merge)")
	if a, _ := getEntity(t, c, "p", "a"); len(a.Properties) != 1 || a.Properties["X"] != "2" {
		t.Errorf("replaced entity %v", a.Properties)
	}
	if b, _ := getEntity(t, c, "p", "b"); len(b.Properties) != 2 || b.Properties["X"] != "2" || b.Properties["Y"] != "1" {
		t.Errorf("merged entity %v", b.Properties)
	}
}

func TestDeleteEntity(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	add, err := c.AddEntity(ctx, entity("p", "r", nil), nil)
	must(t, err, "AddEntity")
	_, err = c.AddEntity(ctx, entity("p", "r2", nil), nil)
	must(t, err, "AddEntity")

	// Delete Entity requires If-Match.
	resp, body := f.rawRequest(http.MethodDelete, "/"+c.name+"(PartitionKey='p',RowKey='r')", nil, nil)
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("x-ms-error-code") != "MissingRequiredHeader" {
		t.Fatalf("DELETE without If-Match: %d %s", resp.StatusCode, body)
	}
	_, err = c.DeleteEntity(ctx, "p", "r", &aztables.DeleteEntityOptions{IfMatch: &add.ETag})
	must(t, err, "delete with ETag")
	_, err = c.GetEntity(ctx, "p", "r", nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
	_, err = c.DeleteEntity(ctx, "p", "r", nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
	_, err = c.DeleteEntity(ctx, "p", "r2", nil) // the SDK sends If-Match: *
	must(t, err, "delete with *")

	// A re-inserted entity has a new ETag: the old one does not match it.
	_, err = c.AddEntity(ctx, entity("p", "r", nil), nil)
	must(t, err, "re-insert")
	_, err = c.DeleteEntity(ctx, "p", "r", &aztables.DeleteEntityOptions{IfMatch: &add.ETag})
	wantCode(t, err, http.StatusPreconditionFailed, "UpdateConditionNotSatisfied")
}

// TestETagsAreVersions: with the server's clock frozen, every write still
// gets a new ETag, and Timestamp still increases with every write.
func TestETagsAreVersions(t *testing.T) {
	frozen := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f := newFixture(t, servertest.WithClock(func() time.Time { return frozen }))
	c := f.newTable()
	ctx := t.Context()
	_, err := c.AddEntity(ctx, entity("p", "r", nil), nil)
	must(t, err, "AddEntity")
	seen := map[azcore.ETag]bool{}
	var last time.Time
	for i := range 50 {
		resp, err := c.UpsertEntity(ctx, entity("p", "r", map[string]any{"I": int32(i)}), nil)
		must(t, err, "upsert %d", i)
		if seen[resp.ETag] {
			t.Fatalf("write %d repeated ETag %s", i, resp.ETag)
		}
		seen[resp.ETag] = true
		e, etag := getEntity(t, c, "p", "r")
		ts := time.Time(e.Timestamp)
		if etag != resp.ETag || !ts.After(last) {
			t.Fatalf("write %d: ETag %s/%s, Timestamp %v after %v", i, etag, resp.ETag, ts, last)
		}
		last = ts
		if !strings.HasPrefix(string(etag), `W/"datetime'`) {
			t.Fatalf("ETag %s is not in Azure's form", etag)
		}
	}
}

func TestEntityValidation(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	props := func(n int) map[string]any {
		m := map[string]any{}
		for i := range n {
			m[fmt.Sprintf("P%03d", i)] = int32(i)
		}
		return m
	}
	big := func(n int) map[string]any {
		m := map[string]any{}
		for i := range n {
			m[fmt.Sprintf("S%02d", i)] = strings.Repeat("x", 32<<10)
		}
		return m
	}
	tests := []struct {
		name   string
		body   []byte
		status int
		code   string
	}{
		{"slash in PartitionKey", entity("a/b", "r", nil), 400, "OutOfRangeInput"},
		{"backslash in RowKey", entity("p", `a\b`, nil), 400, "OutOfRangeInput"},
		{"hash in RowKey", entity("p", "a#b", nil), 400, "OutOfRangeInput"},
		{"question mark in PartitionKey", entity("a?b", "r", nil), 400, "OutOfRangeInput"},
		{"control character in RowKey", entity("p", "a\u0007b", nil), 400, "OutOfRangeInput"},
		{"PartitionKey over 1 KiB", entity(strings.Repeat("k", 513), "r", nil), 400, "KeyValueTooLarge"},
		{"252 properties", entity("p", "many", props(252)), 201, ""},
		{"253 properties", entity("p", "toomany", props(253)), 400, "TooManyProperties"},
		{"property name of 256 characters", entity("p", "long", map[string]any{strings.Repeat("n", 256): 1}), 400, "PropertyNameTooLong"},
		{"property name with a dash", entity("p", "dash", map[string]any{"a-b": 1}), 400, "PropertyNameInvalid"},
		{"string over 64 KiB", entity("p", "str", map[string]any{"S": strings.Repeat("x", 32<<10+1)}), 400, "PropertyValueTooLarge"},
		{"binary over 64 KiB", entity("p", "bin", map[string]any{"B": aztables.EDMBinary(make([]byte, 64<<10+1))}), 400, "PropertyValueTooLarge"},
		{"entity just under 1 MiB", entity("p", "big", big(15)), 201, ""},
		{"entity over 1 MiB", entity("p", "huge", big(16)), 400, "EntityTooLarge"},
		{"unknown EDM type", []byte(`{"PartitionKey":"p","RowKey":"t","A@odata.type":"Edm.Decimal","A":"1"}`), 400, "InvalidInput"},
		{"malformed Int64", []byte(`{"PartitionKey":"p","RowKey":"t","A@odata.type":"Edm.Int64","A":"12x"}`), 400, "InvalidInput"},
		{"nested object", []byte(`{"PartitionKey":"p","RowKey":"t","A":{"b":1}}`), 400, "InvalidInput"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var raw *http.Response
			_, err := c.AddEntity(policy.WithCaptureResponse(ctx, &raw), tc.body, nil)
			if tc.code == "" {
				must(t, err, "AddEntity")
				return
			}
			wantCode(t, err, tc.status, tc.code)
		})
	}
	// The SDK would collapse a duplicate property; send one raw.
	resp, body := f.rawRequest(http.MethodPost, "/"+c.name, map[string]string{"Content-Type": "application/json"}, []byte(`{"PartitionKey":"p","RowKey":"dup","A":1,"A":2}`))
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("x-ms-error-code") != "DuplicatePropertiesSpecified" {
		t.Errorf("duplicate property: %d %s", resp.StatusCode, body)
	}
	// Nothing that was refused was stored.
	all := listAll(t, c, &aztables.ListEntitiesOptions{Select: to.Ptr("RowKey")})
	if len(all) != 2 {
		t.Fatalf("%d entities stored, want the 2 valid ones", len(all))
	}
	// A 1 MiB entity comes back whole.
	e, _ := getEntity(t, c, "p", "big")
	if len(e.Properties) != 15 || e.Properties["S07"] != strings.Repeat("x", 32<<10) {
		t.Fatalf("big entity came back with %d properties", len(e.Properties))
	}
}

// TestKeyCharacters: keys with quotes, spaces, percent signs, plus signs,
// parentheses and non-ASCII characters survive every operation's URL.
func TestKeyCharacters(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	keys := []string{"it's", "a b", "100%", "a+b", "(x,y)", "=;&", "ü✓𝄞", "''", " "}
	// aztables' EDMEntity doubles quotes in the keys it marshals (it
	// prepares them for URLs), so bodies are marshalled from maps here.
	plain := func(k string, props map[string]any) []byte {
		m := map[string]any{"PartitionKey": k, "RowKey": k}
		for n, v := range props {
			m[n] = v
		}
		b, err := json.Marshal(m)
		must(t, err, "marshal")
		return b
	}
	for _, k := range keys {
		_, err := c.AddEntity(ctx, plain(k, map[string]any{"K": k}), nil)
		must(t, err, "AddEntity %q", k)
		e, etag := getEntity(t, c, k, k)
		if e.PartitionKey != k || e.RowKey != k || e.Properties["K"] != k {
			t.Fatalf("key %q came back as %q/%q", k, e.PartitionKey, e.RowKey)
		}
		_, err = c.UpdateEntity(ctx, plain(k, map[string]any{"K": k, "U": true}), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge, IfMatch: &etag})
		must(t, err, "merge %q", k)
		got := listAll(t, c, &aztables.ListEntitiesOptions{Filter: to.Ptr("PartitionKey eq '" + strings.ReplaceAll(k, "'", "''") + "'")})
		if len(got) != 1 || got[0].RowKey != k || got[0].Properties["U"] != true {
			t.Fatalf("query for %q: %+v", k, got)
		}
	}
	for _, k := range keys {
		_, err := c.DeleteEntity(ctx, k, k, nil)
		must(t, err, "delete %q", k)
	}
	if got := listAll(t, c, nil); len(got) != 0 {
		t.Fatalf("%d entities left", len(got))
	}
}
