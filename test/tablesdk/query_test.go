package tablesdk_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// edmEntity holds every EDM type, edge values included, in the wire
// format: integral doubles carry Edm.Double explicitly (unannotated they
// would be Int32, in Azure as here).
const edmEntity = `{"PartitionKey":"p","RowKey":"all",
	"Str":"héllo 'quoted' \"double\" \\ ✓ 𝄞",
	"Int32Min":-2147483648,"Int32Max":2147483647,
	"Int64Min@odata.type":"Edm.Int64","Int64Min":"-9223372036854775808",
	"Int64Max@odata.type":"Edm.Int64","Int64Max":"9223372036854775807",
	"Dbl":-0.000123456789,"DblWhole@odata.type":"Edm.Double","DblWhole":42,"DblBig":1.5e300,
	"DblNaN@odata.type":"Edm.Double","DblNaN":"NaN",
	"DblInf@odata.type":"Edm.Double","DblInf":"Infinity",
	"Yes":true,"No":false,
	"When@odata.type":"Edm.DateTime","When":"2024-02-29T23:59:59.1234567Z",
	"Early@odata.type":"Edm.DateTime","Early":"1601-01-01T00:00:00Z",
	"Id@odata.type":"Edm.Guid","Id":"c9da6455-213d-42c9-9a79-3e9149a57833",
	"Bin@odata.type":"Edm.Binary","Bin":"AAEC/v8="}`

// TestEDMRoundTrip writes every EDM type and reads it back in each
// metadata format, through Get Entity and Query Entities.
func TestEDMRoundTrip(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	_, err := c.AddEntity(ctx, []byte(edmEntity), nil)
	must(t, err, "AddEntity")

	// The SDK's own types, written through EDMEntity.
	when := time.Date(2030, 5, 6, 7, 8, 9, 123456700, time.UTC)
	sdk := map[string]any{
		"S": "s", "I": int32(-7), "L": aztables.EDMInt64(1 << 40), "D": 2.25, "B": true,
		"T": aztables.EDMDateTime(when), "G": aztables.EDMGUID("0f8fad5b-d9cb-469f-a165-70867728950e"), "Bin": aztables.EDMBinary([]byte{9, 8, 7}),
	}
	_, err = c.AddEntity(ctx, entity("p", "sdk", sdk), nil)
	must(t, err, "AddEntity through EDMEntity")

	for _, format := range []aztables.MetadataFormat{aztables.MetadataFormatMinimal, aztables.MetadataFormatFull} {
		resp, err := c.GetEntity(ctx, "p", "sdk", &aztables.GetEntityOptions{Format: to.Ptr(format)})
		must(t, err, "GetEntity %s", format)
		got := decode(t, resp.Value).Properties
		for k, want := range sdk {
			if fmt.Sprint(got[k]) != fmt.Sprint(want) || fmt.Sprintf("%T", got[k]) != fmt.Sprintf("%T", want) {
				t.Errorf("%s: %s = %T %v, want %T %v", format, k, got[k], got[k], want, want)
			}
		}
		if format == aztables.MetadataFormatFull {
			var md struct{ Type, ID, EditLink string }
			var raw map[string]any
			must(t, json.Unmarshal(resp.Value, &raw), "decode")
			md.Type, _ = raw["odata.type"].(string)
			md.ID, _ = raw["odata.id"].(string)
			md.EditLink, _ = raw["odata.editLink"].(string)
			if md.Type != "devstoreaccount1."+c.name || !strings.HasSuffix(md.ID, md.EditLink) || md.EditLink != c.name+"(PartitionKey='p',RowKey='sdk')" {
				t.Errorf("full metadata %+v", md)
			}
		}
	}

	// Exact wire values of every type, per format.
	wantMinimal := map[string]string{
		"Str": `"héllo 'quoted' \"double\" \\ ✓ 𝄞"`, "Int32Min": "-2147483648", "Int32Max": "2147483647",
		"Int64Min": `"-9223372036854775808"`, "Int64Max": `"9223372036854775807"`,
		"Dbl": "-0.000123456789", "DblWhole": "42.0", "DblBig": "1.5e+300", "DblNaN": `"NaN"`, "DblInf": `"Infinity"`,
		"Yes": "true", "No": "false", "When": `"2024-02-29T23:59:59.1234567Z"`, "Early": `"1601-01-01T00:00:00Z"`,
		"Id": `"c9da6455-213d-42c9-9a79-3e9149a57833"`, "Bin": `"AAEC/v8="`,
	}
	annotated := map[string]string{"Int64Min": "Edm.Int64", "Int64Max": "Edm.Int64", "DblNaN": "Edm.Double", "DblInf": "Edm.Double", "When": "Edm.DateTime", "Early": "Edm.DateTime", "Id": "Edm.Guid", "Bin": "Edm.Binary"}
	for _, format := range []aztables.MetadataFormat{aztables.MetadataFormatNone, aztables.MetadataFormatMinimal, aztables.MetadataFormatFull} {
		check := func(how string, raw []byte) {
			var m map[string]json.RawMessage
			must(t, json.Unmarshal(raw, &m), "decode %s", raw)
			for k, want := range wantMinimal {
				if string(m[k]) != want {
					t.Errorf("%s %s: %s = %s, want %s", format, how, k, m[k], want)
				}
				ann := string(m[k+"@odata.type"])
				if format == aztables.MetadataFormatNone && ann != "" || format != aztables.MetadataFormatNone && ann != jsonString(annotated[k]) {
					t.Errorf("%s %s: %s annotation %s", format, how, k, ann)
				}
			}
			if _, ok := m["odata.etag"]; ok == (format == aztables.MetadataFormatNone) {
				t.Errorf("%s %s: odata.etag present = %v", format, how, ok)
			}
		}
		// The SDK re-marshals what it reads (42.0 becomes 42), so the
		// wire is read raw, in the format the SDK asks for.
		accept := map[string]string{"Accept": string(format)}
		resp, raw := f.rawRequest(http.MethodGet, "/"+c.name+"(PartitionKey='p',RowKey='all')", accept, nil)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), string(format)) {
			t.Fatalf("%s: %d %s", format, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		check("get", raw)
		resp, raw = f.rawRequest(http.MethodGet, "/"+c.name+"()?$filter=RowKey%20eq%20'all'", accept, nil)
		var list struct{ Value []json.RawMessage }
		must(t, json.Unmarshal(raw, &list), "decode %s", raw)
		if resp.StatusCode != http.StatusOK || len(list.Value) != 1 {
			t.Fatalf("%s: query %d %s", format, resp.StatusCode, raw)
		}
		check("query", list.Value[0])
		// Through the SDK, what JSON can carry survives its re-marshalling.
		got, err := c.GetEntity(ctx, "p", "all", &aztables.GetEntityOptions{Format: to.Ptr(format)})
		must(t, err, "GetEntity %s", format)
		props := decode(t, got.Value).Properties
		if props["Str"] != "héllo 'quoted' \"double\" \\ ✓ 𝄞" || props["Int32Min"] != int32(math.MinInt32) || props["Dbl"] != -0.000123456789 || props["Yes"] != true {
			t.Errorf("%s: SDK read %v", format, props)
		}
	}
}

func jsonString(s string) string {
	if s == "" {
		return ""
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// addMany inserts n entities, batch by batch, spread over partitions of
// per entities each: partition "p007", row "r0042".
func addMany(t *testing.T, c table, n, per int) {
	t.Helper()
	for start := 0; start < n; start += per {
		var actions []aztables.TransactionAction
		for i := start; i < min(n, start+per); i++ {
			actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd,
				Entity: entity(fmt.Sprintf("p%03d", i/per), fmt.Sprintf("r%04d", i), map[string]any{"I": int32(i)})})
		}
		_, err := c.SubmitTransaction(t.Context(), actions, nil)
		must(t, err, "SubmitTransaction at %d", start)
	}
}

// TestPaging2500 pages through 2,500 entities in several page sizes: each
// comes back exactly once, in key order.
func TestPaging2500(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	const n = 2500
	addMany(t, c, n, 100)
	for _, top := range []int32{0, 1000, 333, 7} {
		opts := &aztables.ListEntitiesOptions{Select: to.Ptr("RowKey,I")}
		if top > 0 {
			opts.Top = to.Ptr(top)
		}
		pages := 0
		var rows []string
		pager := c.NewListEntitiesPager(opts)
		for pager.More() {
			page, err := pager.NextPage(t.Context())
			must(t, err, "NextPage")
			pages++
			limit := int32(1000)
			if top > 0 {
				limit = top
			}
			if int32(len(page.Entities)) > limit {
				t.Fatalf("top %d: page of %d", top, len(page.Entities))
			}
			for _, raw := range page.Entities {
				rows = append(rows, decode(t, raw).RowKey)
			}
			if top == 7 && pages == 40 {
				break // enough to show small pages work; 2,500 at 7 is slow
			}
		}
		want := n
		if top == 7 {
			want = 280
		}
		if len(rows) != want || !slices.IsSorted(rows) || len(slices.Compact(slices.Clone(rows))) != want {
			t.Fatalf("top %d: %d rows in %d pages (sorted %v)", top, len(rows), pages, slices.IsSorted(rows))
		}
	}
	// A filter spanning partitions pages the same way.
	got := listAll(t, c, &aztables.ListEntitiesOptions{Filter: to.Ptr("I ge 100 and I lt 2100"), Top: to.Ptr(int32(450))})
	if len(got) != 2000 {
		t.Fatalf("filtered paging: %d entities", len(got))
	}
	// $top above 1000 is refused.
	_, err := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Top: to.Ptr(int32(1001))}).NextPage(t.Context())
	wantCode(t, err, http.StatusBadRequest, "InvalidInput")
	// A forged continuation token is refused.
	_, err = c.NewListEntitiesPager(&aztables.ListEntitiesOptions{NextPartitionKey: to.Ptr("bogus")}).NextPage(t.Context())
	wantCode(t, err, http.StatusBadRequest, "InvalidInput")
}

func TestSelect(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	_, err := c.AddEntity(t.Context(), entity("p", "r", map[string]any{"A": "a", "B": int32(2), "C": true}), nil)
	must(t, err, "AddEntity")
	page, err := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Select: to.Ptr("A, RowKey,Missing")}).NextPage(t.Context())
	must(t, err, "ListEntities")
	var m map[string]any
	must(t, json.Unmarshal(page.Entities[0], &m), "decode")
	delete(m, "odata.etag")
	want := map[string]any{"A": "a", "RowKey": "r", "Missing": nil}
	if fmt.Sprint(m) != fmt.Sprint(want) {
		t.Fatalf("selected %v, want %v", m, want)
	}
}

// TestFilterGolden runs the golden $filter table of internal/table
// through the SDK against a table holding its dataset.
func TestFilterGolden(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	data, err := os.ReadFile("../../internal/table/testdata/filter_entities.jsonl")
	must(t, err, "read dataset")
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		_, err := c.AddEntity(ctx, line, nil)
		must(t, err, "AddEntity %s", line)
	}
	file, err := os.Open("../../internal/table/testdata/filter.golden")
	must(t, err, "open golden file")
	defer func() { _ = file.Close() }() // read-only
	sc := bufio.NewScanner(file)
	cases := 0
	var filter string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "filter: "):
			filter = strings.TrimPrefix(line, "filter: ")
			cases++
		case strings.HasPrefix(line, "match: "):
			want := strings.Fields(strings.TrimPrefix(line, "match: "))
			var got []string
			for _, e := range listAll(t, c, &aztables.ListEntitiesOptions{Filter: to.Ptr(filter), Select: to.Ptr("RowKey")}) {
				got = append(got, e.RowKey)
			}
			if !slices.Equal(got, want) {
				t.Errorf("filter %q: got %q, want %q", filter, got, want)
			}
		case strings.HasPrefix(line, "error: "):
			_, err := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: to.Ptr(filter)}).NextPage(ctx)
			wantCode(t, err, http.StatusBadRequest, strings.TrimPrefix(line, "error: "))
		}
	}
	must(t, sc.Err(), "read golden file")
	if cases < 60 {
		t.Fatalf("only %d golden cases", cases)
	}
}

// TestSpecialDoubles checks NaN and infinities, which the Go SDK cannot
// send itself, on the wire.
func TestSpecialDoubles(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	body := `{"PartitionKey":"p","RowKey":"d","N@odata.type":"Edm.Double","N":"NaN","P@odata.type":"Edm.Double","P":"INF","M@odata.type":"Edm.Double","M":"-Infinity"}`
	_, err := c.AddEntity(t.Context(), []byte(body), nil)
	must(t, err, "AddEntity")
	_, raw := f.rawRequest(http.MethodGet, "/"+c.name+"(PartitionKey='p',RowKey='d')", map[string]string{"Accept": "application/json;odata=minimalmetadata"}, nil)
	for _, want := range []string{`"N":"NaN"`, `"P":"Infinity"`, `"M":"-Infinity"`, `"N@odata.type":"Edm.Double"`} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("response lacks %s: %s", want, raw)
		}
	}
	page, err := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: to.Ptr("N ne 1.0 and P gt 1e308 and M lt -1e308")}).NextPage(t.Context())
	must(t, err, "query special doubles")
	if len(page.Entities) != 1 {
		t.Fatalf("filter on special doubles matched %d", len(page.Entities))
	}
}
