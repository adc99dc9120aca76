package search

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestJSONContentType: a JSON answer names the metadata level the request
// asked for and odata.streaming=true; an error names neither. Source: the
// Python SDK's synonym map recording
// (test_search_index_client_synonym_map_live_async…test_synonym_map.json:
// "application/json; odata.metadata=minimal; odata.streaming=true;
// charset=utf-8" on every answer, "application/json; charset=utf-8" with
// Content-Language: en on its 412), and the service's answers to the
// Python SDK's document calls, which ask for odata.metadata=none
// ("application/json; odata.metadata=none; odata.streaming=true;
// charset=utf-8").
func TestJSONContentType(t *testing.T) {
	w := newWire(t)
	for _, c := range []struct{ accept, want string }{
		{"", "application/json; odata.metadata=minimal; odata.streaming=true; charset=utf-8"},
		{"application/json;odata.metadata=minimal", "application/json; odata.metadata=minimal; odata.streaming=true; charset=utf-8"},
		{"application/json; odata.metadata=none", "application/json; odata.metadata=none; odata.streaming=true; charset=utf-8"},
		{"application/json;odata.metadata=none", "application/json; odata.metadata=none; odata.streaming=true; charset=utf-8"},
	} {
		resp, _ := w.call("GET", "/indexes"+v, "", map[string]string{"Accept": c.accept})
		if got := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || got != c.want {
			t.Errorf("Accept %q: %d Content-Type %q, want %q", c.accept, resp.StatusCode, got, c.want)
		}
	}
	resp, body := w.call("DELETE", "/indexes('missing')"+v, "", map[string]string{"Accept": "application/json; odata.metadata=none"})
	if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" || resp.Header.Get("Content-Language") != "en" || body["error"] == nil {
		t.Errorf("error answer: %d %v %v", resp.StatusCode, resp.Header, body)
	}
	if got := resp.Header.Get("Preference-Applied"); got != "" {
		t.Errorf("error answer carries Preference-Applied %q", got)
	}
}

// TestPreferenceApplied: every successful answer says the service applies
// odata.include-annotations="*", also to a PUT that asked for
// return=representation and to a delete. Source: the synonym map
// recording (its list, create, update and delete answers).
func TestPreferenceApplied(t *testing.T) {
	w := newWire(t)
	for _, c := range []struct{ method, path, body, prefer string }{
		{"GET", "/synonymmaps", "", ""},
		{"POST", "/synonymmaps", `{"name":"s","format":"solr","synonyms":"a,b"}`, ""},
		{"PUT", "/synonymmaps('s')", `{"name":"s","format":"solr","synonyms":"a,c"}`, "return=representation"},
		{"DELETE", "/synonymmaps('s')", "", ""},
	} {
		resp, body := w.call(c.method, c.path+v, c.body, map[string]string{"Prefer": c.prefer})
		if got := resp.Header.Get("Preference-Applied"); resp.StatusCode >= 300 || got != `odata.include-annotations="*"` {
			t.Errorf("%s %s: %d Preference-Applied %q %v", c.method, c.path, resp.StatusCode, got, body)
		}
	}
}

// TestCreatedLocation: 201 Created names the new resource in Location,
// on POST and on PUT, for every kind of resource, with the scheme and
// host the client used. Source: the synonym map recording (Location on
// each POST's 201) and the REST tutorial's Create Data Source answer
// ("Location: https://<service>/datasources('name')?api-version=…").
func TestCreatedLocation(t *testing.T) {
	w := newWire(t)
	base := w.srv.URL
	for _, c := range []struct {
		method, path, body string
		kind               Kind
		name               string
	}{
		{"POST", "/indexes", smallIndex, Indexes, "hotels"},
		{"PUT", "/indexes('motels')", strings.Replace(smallIndex, "hotels", "motels", 1), Indexes, "motels"},
		{"POST", "/synonymmaps", `{"name":"syn","format":"solr","synonyms":"a,b"}`, SynonymMaps, "syn"},
		{"PUT", "/synonymmaps('syn2')", `{"name":"syn2","format":"solr","synonyms":"a,b"}`, SynonymMaps, "syn2"},
		{"POST", "/datasources", `{"name":"ds","type":"azureblob","credentials":{"connectionString":"UseDevelopmentStorage=true"},"container":{"name":"c"}}`, DataSources, "ds"},
		{"PUT", "/datasources('ds2')", `{"name":"ds2","type":"azureblob","credentials":{"connectionString":"UseDevelopmentStorage=true"},"container":{"name":"c"}}`, DataSources, "ds2"},
		{"POST", "/skillsets", `{"name":"sk","skills":[{"@odata.type":"#Microsoft.Skills.Util.ShaperSkill","inputs":[{"name":"a","source":"/document/a"}],"outputs":[{"name":"b","targetName":"bb"}]}]}`, Skillsets, "sk"},
		{"PUT", "/skillsets('sk2')", `{"name":"sk2","skills":[{"@odata.type":"#Microsoft.Skills.Util.ShaperSkill","inputs":[{"name":"a","source":"/document/a"}],"outputs":[{"name":"b","targetName":"bb"}]}]}`, Skillsets, "sk2"},
		{"POST", "/indexers", `{"name":"ixr","dataSourceName":"ds","targetIndexName":"hotels","disabled":true}`, Indexers, "ixr"},
		{"PUT", "/indexers('ixr2')", `{"name":"ixr2","dataSourceName":"ds","targetIndexName":"hotels","disabled":true}`, Indexers, "ixr2"},
		{"POST", "/aliases", `{"name":"al","indexes":["hotels"]}`, Aliases, "al"},
		{"PUT", "/aliases('al2')", `{"name":"al2","indexes":["hotels"]}`, Aliases, "al2"},
	} {
		resp, body := w.call(c.method, c.path+v, c.body, nil)
		want := base + "/" + string(c.kind) + "('" + c.name + "')" + v
		if got := resp.Header.Get("Location"); resp.StatusCode != 201 || got != want {
			t.Errorf("%s %s: %d Location %q, want %q (%v)", c.method, c.path, resp.StatusCode, got, want, body)
		}
	}
	// An update is no creation: no Location.
	if resp, _ := w.call("PUT", "/synonymmaps('syn')"+v, `{"name":"syn","format":"solr","synonyms":"a,c"}`, map[string]string{"Prefer": "return=representation"}); resp.StatusCode != 200 || resp.Header.Get("Location") != "" {
		t.Errorf("update: %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestODataContextMetadata: Accept odata.metadata=none (what the Java and
// .NET SDKs send) leaves @odata.context out; minimal keeps it. Source:
// the REST reference's common request headers ("Accept … Default is
// application/json;odata.metadata=minimal … application/json;
// odata.metadata=none") and the synonym map recording (@odata.context on
// every minimal answer).
func TestODataContextMetadata(t *testing.T) {
	w := newWire(t)
	w.call("POST", "/indexes"+v, smallIndex, nil)
	none := map[string]string{"Accept": "application/json; odata.metadata=none"}
	minimal := map[string]string{"Accept": "application/json;odata.metadata=minimal"}
	for _, path := range []string{"/indexes", "/indexes('hotels')", "/indexes('hotels')/docs", "/indexes('hotels')/search.stats", "/servicestats"} {
		_, body := w.call("GET", path+v, "", none)
		if _, ok := body["@odata.context"]; ok || body == nil {
			t.Errorf("%s with none: %v", path, body)
		}
		_, body = w.call("GET", path+v, "", minimal)
		if ctx, _ := body["@odata.context"].(string); !strings.HasPrefix(ctx, w.srv.URL+"/") {
			t.Errorf("%s with minimal: @odata.context %q", path, ctx)
		}
	}
	_, body := w.call("GET", "/indexes('hotels')/docs"+v, "", minimal)
	if ctx := body["@odata.context"]; ctx != w.srv.URL+"/indexes('hotels')/$metadata#docs(*)" {
		t.Errorf("docs @odata.context %q", ctx)
	}
}

// TestURLsUnderHTTPS: @odata.context, @odata.nextLink and Location name
// the scheme the client used, https under TLS (Azure serves Search only
// over HTTPS; the recordings' URLs are all https://).
func TestURLsUnderHTTPS(t *testing.T) {
	srv := httptest.NewTLSServer(NewHandler(newService(t)))
	t.Cleanup(srv.Close)
	w := &wire{t: t, srv: srv, client: srv.Client()}
	resp, body := w.call("POST", "/indexes"+v, smallIndex, nil)
	if !strings.HasPrefix(srv.URL, "https://") || resp.Header.Get("Location") != srv.URL+"/indexes('hotels')"+v {
		t.Errorf("Location %q", resp.Header.Get("Location"))
	}
	if ctx, _ := body["@odata.context"].(string); !strings.HasPrefix(ctx, srv.URL+"/$metadata#") {
		t.Errorf("@odata.context %q", ctx)
	}
	var batch strings.Builder
	batch.WriteString(`{"value":[`)
	for i := range 60 {
		if i > 0 {
			batch.WriteString(",")
		}
		batch.WriteString(`{"@search.action":"upload","id":"` + strings.Repeat("k", i+1) + `"}`)
	}
	batch.WriteString("]}")
	if resp, body := w.call("POST", "/indexes('hotels')/docs/search.index"+v, batch.String(), nil); resp.StatusCode != 200 {
		t.Fatalf("upload: %d %v", resp.StatusCode, body)
	}
	_, body = w.call("POST", "/indexes('hotels')/docs/search.post.search"+v, `{"search":"*"}`, nil)
	if next, _ := body["@odata.nextLink"].(string); !strings.HasPrefix(next, srv.URL+"/indexes('hotels')/docs/search.post.search?") {
		t.Errorf("@odata.nextLink %q (%v)", next, body["@search.nextPageParameters"])
	}
}
