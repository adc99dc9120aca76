package security

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/servertest"
)

// TestBlobSASScopes: a SAS for a snapshot (sr=bs) reaches that snapshot
// only, one for a version (sr=bv) that version only, and one for a
// directory (sr=d, sdd) the blobs under the directory only.
func TestBlobSASScopes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, servertest.WithBlobDataProtection(true, 0))
	c := f.name("scope")
	blobService.createContainer(t, f, c)
	put := func(name, content string) putResult {
		resp := f.withKey(t, "blob", call{method: http.MethodPut, path: c + "/" + name,
			header: map[string]string{"x-ms-blob-type": "BlockBlob"}, body: []byte(content)}, sharedKey)
		must2xx(t, resp, "put "+name)
		return putResult{resp.Header.Get("x-ms-version-id")}
	}
	first := put("b", "one")
	snap := f.withKey(t, "blob", call{method: http.MethodPut, path: c + "/b", query: q("comp", "snapshot")}, sharedKey)
	must2xx(t, snap, "snapshot")
	snapshot := snap.Header.Get("x-ms-snapshot")
	put("b", "two")
	put("dir/x", "under")
	put("dir/sub/y", "deeper")
	put("dirx/z", "beside")
	put("other/x", "elsewhere")

	sign := func(v sasValues) url.Values {
		v.permissions, v.expiry = "r", f.clock.Now().Add(time.Hour)
		return v.sign(f.env.Account, f.env.Key)
	}
	get := func(path string, query url.Values, sas url.Values) (int, string) {
		resp := f.withSAS(t, "blob", call{method: http.MethodGet, path: c + "/" + path, query: query}, sas)
		return resp.StatusCode, string(resp.Body)
	}
	expect := func(what string, status int, body string, wantStatus int, wantBody string) {
		t.Helper()
		if status != wantStatus || wantBody != "" && body != wantBody {
			t.Errorf("%s: got HTTP %d %.80q, want %d %q", what, status, body, wantStatus, wantBody)
		}
	}

	bs := sign(sasValues{service: "blob", resource: "/" + f.env.Account + "/" + c + "/b", sr: "bs", snapshot: snapshot})
	s, b := get("b", q("snapshot", snapshot), bs)
	expect("sr=bs on its snapshot", s, b, http.StatusOK, "one")
	s, b = get("b", nil, bs)
	expect("sr=bs on the base blob", s, b, http.StatusForbidden, "")
	s, b = get("b", q("snapshot", "2020-01-01T00:00:00.0000000Z"), bs)
	expect("sr=bs on another snapshot", s, b, http.StatusForbidden, "")

	if first.versionID == "" {
		t.Fatal("Put Blob with versioning on answered no x-ms-version-id")
	}
	bv := sign(sasValues{service: "blob", resource: "/" + f.env.Account + "/" + c + "/b", sr: "bv", snapshot: first.versionID})
	s, b = get("b", q("versionid", first.versionID), bv)
	expect("sr=bv on its version", s, b, http.StatusOK, "one")
	s, b = get("b", nil, bv)
	expect("sr=bv on the current blob", s, b, http.StatusForbidden, "")

	d := sign(sasValues{service: "blob", resource: "/" + f.env.Account + "/" + c + "/dir", sr: "d", extra: q("sdd", "1")})
	s, b = get("dir/x", nil, d)
	expect("sr=d on a blob of its directory", s, b, http.StatusOK, "under")
	s, b = get("dir/sub/y", nil, d)
	expect("sr=d on a blob of a subdirectory", s, b, http.StatusOK, "deeper")
	for _, outside := range []string{"dirx/z", "other/x", "b"} {
		s, b = get(outside, nil, d)
		expect("sr=d on "+outside, s, b, http.StatusForbidden, "")
	}
	wrongDepth := sign(sasValues{service: "blob", resource: "/" + f.env.Account + "/" + c + "/dir", sr: "d", extra: q("sdd", "2")})
	s, b = get("dir/x", nil, wrongDepth)
	expect("sr=d whose sdd does not match the directory", s, b, http.StatusForbidden, "")
}

// putResult is what a Put Blob answered that the scope tests need.
type putResult struct{ versionID string }

// TestTableSASKeyRange: a table SAS with partition and row key bounds
// reaches the entities between them (both inclusive) and no others, for
// reads and writes alike; a query is confined to the range.
func TestTableSASKeyRange(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	table := f.name("range")
	tableService.createContainer(t, f, table)
	for _, pk := range []string{"a", "b", "c"} {
		for _, rk := range []string{"1", "2"} {
			f.prepare(t, "table", call{method: http.MethodPost, path: table, header: jsonHeader,
				body: []byte(`{"PartitionKey":"` + pk + `","RowKey":"` + rk + `"}`)})
		}
	}
	v := sasValues{service: "table", resource: "/" + f.env.Account + "/" + table, tableName: table, permissions: "raud",
		startPK: "a", startRK: "2", endPK: "b", endRK: "1", expiry: f.clock.Now().Add(time.Hour)}
	sas := v.sign(f.env.Account, f.env.Key)
	entity := func(pk, rk string) string { return table + "(PartitionKey='" + pk + "',RowKey='" + rk + "')" }
	for _, e := range []struct {
		pk, rk string
		in     bool
	}{{"a", "1", false}, {"a", "2", true}, {"b", "1", true}, {"b", "2", false}, {"c", "1", false}} {
		resp := f.withSAS(t, "table", call{method: http.MethodGet, path: entity(e.pk, e.rk), header: map[string]string{"Accept": "application/json;odata=nometadata"}}, sas)
		what := "read (" + e.pk + "," + e.rk + ")"
		if e.in {
			wantOK(t, resp, what)
		} else {
			// Outside the range an entity is hidden, not refused
			// (Azure.Data.Tables' recording TableClientLiveTests
			// ValidateSasCredentialsWithRowKeyAndPartitionKeyRanges).
			resp.Check(t, http.StatusNotFound, "ResourceNotFound", what)
		}
		resp = f.withSAS(t, "table", call{method: http.MethodPut, path: entity(e.pk, e.rk), header: map[string]string{"Content-Type": "application/json", "If-Match": "*"},
			body: []byte(`{"PartitionKey":"` + e.pk + `","RowKey":"` + e.rk + `","v":1}`)}, sas)
		what = "update (" + e.pk + "," + e.rk + ")"
		if e.in {
			wantOK(t, resp, what)
		} else {
			refuses(t, resp, "AuthorizationFailure", what)
		}
	}
	resp := f.withSAS(t, "table", call{method: http.MethodGet, path: table + "()", header: map[string]string{"Accept": "application/json;odata=nometadata"}}, sas)
	must2xx(t, resp, "query")
	keys := regexp.MustCompile(`"PartitionKey":"(\w)","RowKey":"(\w)"`).FindAllStringSubmatch(string(resp.Body), -1)
	var got []string
	for _, k := range keys {
		got = append(got, k[1]+k[2])
	}
	if len(got) != 2 || got[0] != "a2" || got[1] != "b1" {
		t.Errorf("query under the range SAS returned %v, want [a2 b1]", got)
	}
}
