package search

import (
	"net/http"
	"slices"
	"testing"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// keyOrders are the keys of every object of a JSON document, in order, by
// the object's path ("$", "$.fields[0]", …).
func keyOrders(t *testing.T, b []byte) map[string][]string {
	t.Helper()
	out, err := testkit.JSONKeyOrders(b)
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return out
}

// rawCall sends one request with the admin key and returns the answer's
// body as sent.
func (w *wire) rawCall(method, path, body string) []byte {
	w.t.Helper()
	resp, b := w.send(method, path, body, nil)
	if resp.StatusCode >= 300 {
		w.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return b
}

func wantKeys(t *testing.T, got map[string][]string, path string, want ...string) {
	t.Helper()
	if !slices.Equal(got[path], want) {
		t.Errorf("%s keys\n got %q\nwant %q", path, got[path], want)
	}
}

// hotelsOrderIndex is a part of the Java SDK's hotels test index
// (HotelsTestsIndexData.json): like it, it lists Address (complex) before
// Location (a point).
const hotelsOrderIndex = `{"name":"hotels","fields":[
	{"name":"HotelId","type":"Edm.String","key":true},
	{"name":"HotelName","type":"Edm.String"},
	{"name":"Description","type":"Edm.String"},
	{"name":"Category","type":"Edm.String"},
	{"name":"Rating","type":"Edm.Int32"},
	{"name":"Address","type":"Edm.ComplexType","fields":[{"name":"StreetAddress","type":"Edm.String"},{"name":"City","type":"Edm.String"}]},
	{"name":"Location","type":"Edm.GeographyPoint"},
	{"name":"Rooms","type":"Collection(Edm.ComplexType)","fields":[{"name":"Description","type":"Edm.String"},{"name":"Type","type":"Edm.String"}]}],
	"scoringProfiles":[{"name":"nearby","text":{"weights":{"Category":2,"Description":1.5}}}],
	"semantic":{"configurations":[{"name":"c","prioritizedFields":{"titleField":{"fieldName":"HotelName"},"prioritizedContentFields":[{"fieldName":"Description"}],"prioritizedKeywordsFields":[{"fieldName":"Category"}]}}]},
	"vectorSearch":{"algorithms":[{"name":"a","kind":"hnsw"}],"profiles":[{"name":"p","algorithm":"a"}]}}`

// TestIndexKeyOrder: an index definition is answered with its properties
// in Azure's order at each api-version, as the recordings show it:
//   - 2023-10-01-preview: the Java SDK's recording
//     IndexManagementTests.canCreateAndListIndexesSyncAndAsync (the
//     hotels index: its text weights Description, Category, as its fields
//     have them, although given the other way round here);
//   - 2023-11-01: the .NET SDK's recording
//     SearchIndexClientTests/CreateIndex (c4345912), vectorSearch before
//     semantic;
//   - 2026-05-01-preview: the Java SDK's recording
//     IndexManagementTests.canCreateIndexWithProductScoringAggregationSync.
func TestIndexKeyOrder(t *testing.T) {
	w := newWire(t)
	w.rawCall(http.MethodPut, "/indexes('hotels')?api-version=2023-10-01-preview", hotelsOrderIndex)
	simpleField := []string{"name", "type", "searchable", "filterable", "retrievable", "sortable", "facetable", "key",
		"indexAnalyzer", "searchAnalyzer", "analyzer", "normalizer", "dimensions", "vectorSearchProfile", "synonymMaps"}

	got := keyOrders(t, w.rawCall(http.MethodGet, "/indexes('hotels')?api-version=2023-10-01-preview", ""))
	wantKeys(t, got, "$", "@odata.context", "@odata.etag", "name", "defaultScoringProfile", "fields", "scoringProfiles",
		"corsOptions", "suggesters", "analyzers", "normalizers", "tokenizers", "tokenFilters", "charFilters",
		"encryptionKey", "similarity", "semantic", "vectorSearch")
	wantKeys(t, got, "$.fields[0]", simpleField...)
	wantKeys(t, got, "$.fields[5]", "name", "type", "fields")
	wantKeys(t, got, "$.fields[5].fields[1]", simpleField...)
	wantKeys(t, got, "$.scoringProfiles[0]", "name", "functionAggregation", "text", "functions")
	wantKeys(t, got, "$.scoringProfiles[0].text.weights", "Description", "Category")
	wantKeys(t, got, "$.similarity", "@odata.type", "k1", "b")
	wantKeys(t, got, "$.semantic", "defaultConfiguration", "configurations")
	wantKeys(t, got, "$.semantic.configurations[0]", "name", "prioritizedFields")
	wantKeys(t, got, "$.semantic.configurations[0].prioritizedFields", "titleField", "prioritizedContentFields", "prioritizedKeywordsFields")
	wantKeys(t, got, "$.vectorSearch", "algorithms", "profiles", "vectorizers")
	wantKeys(t, got, "$.vectorSearch.algorithms[0]", "name", "kind", "hnswParameters", "exhaustiveKnnParameters")
	wantKeys(t, got, "$.vectorSearch.algorithms[0].hnswParameters", "metric", "m", "efConstruction", "efSearch")
	wantKeys(t, got, "$.vectorSearch.profiles[0]", "name", "algorithm", "vectorizer")

	got = keyOrders(t, w.rawCall(http.MethodGet, "/indexes('hotels')?api-version=2023-11-01", ""))
	wantKeys(t, got, "$", "@odata.context", "@odata.etag", "name", "defaultScoringProfile", "fields", "scoringProfiles",
		"corsOptions", "suggesters", "analyzers", "tokenizers", "tokenFilters", "charFilters",
		"encryptionKey", "similarity", "vectorSearch", "semantic")

	got = keyOrders(t, w.rawCall(http.MethodGet, "/indexes('hotels')?api-version=2026-05-01-preview", ""))
	wantKeys(t, got, "$", "@odata.context", "@odata.etag", "name", "description", "defaultScoringProfile",
		"permissionFilterOption", "purviewEnabled", "fields", "scoringProfiles", "corsOptions", "suggesters",
		"analyzers", "normalizers", "tokenizers", "tokenFilters", "charFilters", "encryptionKey", "similarity",
		"semantic", "vectorSearch", "sharePointConnectorAppRegistration")
	wantKeys(t, got, "$.fields[0]", "name", "type", "searchable", "filterable", "retrievable", "stored", "sortable",
		"facetable", "key", "indexAnalyzer", "searchAnalyzer", "analyzer", "normalizer", "dimensions",
		"vectorSearchProfile", "vectorEncoding", "permissionFilter", "sensitivityLabelId", "sensitivityLabelName",
		"sourceDocumentId", "sharepointSiteUrl", "synonymMaps")
	wantKeys(t, got, "$.semantic.configurations[0]", "name", "flightingOptIn", "rankingOrder", "prioritizedFields")
	wantKeys(t, got, "$.vectorSearch", "algorithms", "profiles", "vectorizers", "compressions")
	wantKeys(t, got, "$.vectorSearch.profiles[0]", "name", "algorithm", "vectorizer", "compression")
}

// TestDocumentKeyOrder: a search result is written @search.score first,
// then the values of simple fields in the index's order, then those of
// complex fields, whatever order the document was uploaded in: the Java
// SDK's recording SearchTests.canFilterSync (hotels index) answers
// …, Rating, Location, Address, Rooms for an index listing Address
// before Location, a point as type, coordinates, crs. A lookup writes the
// same order (LookupTests.canGetStaticallyTypedDocumentWithPascalCaseFieldsSync).
func TestDocumentKeyOrder(t *testing.T) {
	w := newWire(t)
	w.rawCall(http.MethodPut, "/indexes('hotels')?api-version=2023-10-01-preview", hotelsOrderIndex)
	w.rawCall(http.MethodPost, "/indexes('hotels')/docs/search.index?api-version=2023-10-01-preview", `{"value":[{
		"@search.action":"upload","Rooms":[{"Type":"Suite","Description":"big"}],
		"Location":{"type":"Point","coordinates":[-73.97,40.76]},"Rating":5,
		"Address":{"City":"New York","StreetAddress":"677 5th Ave"},"Category":"Luxury","HotelName":"Fancy","HotelId":"1"}]}`)
	hotel := []string{"HotelId", "HotelName", "Description", "Category", "Rating", "Location", "Address", "Rooms"}

	got := keyOrders(t, w.rawCall(http.MethodPost, "/indexes('hotels')/docs/search.post.search?api-version=2023-10-01-preview", `{"search":"*","count":true}`))
	wantKeys(t, got, "$", "@odata.context", "@odata.count", "value")
	wantKeys(t, got, "$.value[0]", append([]string{"@search.score"}, hotel...)...)
	wantKeys(t, got, "$.value[0].Address", "StreetAddress", "City")
	wantKeys(t, got, "$.value[0].Location", "type", "coordinates", "crs")
	wantKeys(t, got, "$.value[0].Location.crs", "type", "properties")
	wantKeys(t, got, "$.value[0].Rooms[0]", "Description", "Type")

	got = keyOrders(t, w.rawCall(http.MethodGet, "/indexes('hotels')/docs('1')?api-version=2023-10-01-preview", ""))
	wantKeys(t, got, "$", hotel...)

	// Selected in another order, written in the index's (the Java SDK's
	// recording LookupTests.getStaticallyTypedDocumentSetsUnselectedFieldsToNullSync).
	got = keyOrders(t, w.rawCall(http.MethodGet, "/indexes('hotels')/docs('1')?$select=Rooms/Type,Address/City,Rating,HotelName&api-version=2023-10-01-preview", ""))
	wantKeys(t, got, "$", "HotelName", "Rating", "Address", "Rooms")
}
