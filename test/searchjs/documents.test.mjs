// Search documents and queries through @azure/search-documents: a batch
// with partial failures (207), lookup and count, searches in both
// syntaxes, filters (lambdas, geo), ordering, facets, highlights,
// synonyms, suggest/autocomplete, a vector and a hybrid query, paging.
// Results are compared by membership and order, never by score.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { AzureKeyCredential, SearchClient, SearchIndexClient } from "@azure/search-documents";

const endpoint = process.env.CERULEAN_SEARCH_ENDPOINT;
const adminKey = process.env.CERULEAN_SEARCH_ADMIN_KEY;
const queryKey = process.env.CERULEAN_SEARCH_QUERY_KEY;
if (!endpoint || !adminKey || !queryKey) {
  throw new Error("CERULEAN_SEARCH_ENDPOINT and the keys must be set (run through go test ./test/searchjs)");
}
const insecure = { allowInsecureConnection: true };
const indexClient = new SearchIndexClient(endpoint, new AzureKeyCredential(adminKey), insecure);
const indexName = `hotels-docs-${process.pid}`;
const synonymName = `hotel-syn-${process.pid}`;
const client = new SearchClient(endpoint, indexName, new AzureKeyCredential(adminKey), insecure);
const reader = new SearchClient(endpoint, indexName, new AzureKeyCredential(queryKey), insecure);

const point = (lon, lat) => ({ type: "Point", coordinates: [lon, lat] });
const hotels = [
  { id: "1", name: "Seaside Hotel", description: "A quiet hotel by the sea", category: "Resort", tags: ["pool", "view"], rating: 4.5,
    rooms: [{ type: "Suite", price: 300 }, { type: "Standard", price: 100 }], location: point(-122.1, 47.6), vec: [1, 0, 0] },
  { id: "2", name: "Mountain Inn", description: "Cozy inn in the mountains with wifi", category: "Budget", tags: ["wifi"], rating: 3,
    rooms: [{ type: "Standard", price: 80 }], location: point(-121.0, 46.0), vec: [0, 1, 0] },
  { id: "3", name: "City Lodge", description: "Modern lodge downtown with pool", category: "Budget", tags: ["pool", "wifi"], rating: 4,
    rooms: [], location: point(-122.3, 47.6), vec: [0.9, 0.1, 0] },
  { id: "4", name: "Old Motel", description: "Cheap motel", category: "Budget", rating: 2, vec: [0, 0, 1] },
];

before(async () => {
  await indexClient.createSynonymMap({ name: synonymName, synonyms: ["inn, hotel", "motel => lodge"] });
  await indexClient.createIndex({
    name: indexName,
    fields: [
      { name: "id", type: "Edm.String", key: true, filterable: true, sortable: true },
      { name: "name", type: "Edm.String", searchable: true, sortable: true },
      { name: "description", type: "Edm.String", searchable: true, synonymMapNames: [synonymName] },
      { name: "category", type: "Edm.String", filterable: true, facetable: true },
      { name: "tags", type: "Collection(Edm.String)", searchable: true, filterable: true, facetable: true },
      { name: "rating", type: "Edm.Double", filterable: true, sortable: true, facetable: true },
      { name: "rooms", type: "Collection(Edm.ComplexType)", fields: [
        { name: "type", type: "Edm.String", filterable: true },
        { name: "price", type: "Edm.Double", filterable: true },
      ] },
      { name: "location", type: "Edm.GeographyPoint", filterable: true, sortable: true },
      { name: "vec", type: "Collection(Edm.Single)", searchable: true, vectorSearchDimensions: 3, vectorSearchProfileName: "p" },
    ],
    suggesters: [{ name: "sg", sourceFields: ["name"] }],
    vectorSearch: {
      algorithms: [{ name: "a", kind: "exhaustiveKnn", parameters: { metric: "cosine" } }],
      profiles: [{ name: "p", algorithmConfigurationName: "a" }],
    },
  });
  const res = await client.indexDocuments({
    actions: [
      ...hotels.map((h) => ({ __actionType: "upload", ...h })),
      { __actionType: "upload", id: "bad key!", name: "x" },
      { __actionType: "merge", id: "9", name: "missing" },
    ],
  });
  const outcome = res.results.map((r) => `${r.key}:${r.statusCode}:${r.succeeded}`);
  assert.deepEqual(outcome, ["1:201:true", "2:201:true", "3:201:true", "4:201:true", "bad key!:400:false", "9:404:false"]);
});

async function keys(text, options = {}) {
  const res = await client.search(text, options);
  const out = [];
  for await (const r of res.results) out.push(r.document.id);
  return out;
}
const sorted = (a) => [...a].sort();

test("a batch with a failure is 207 and throws with throwOnAnyFailure", async () => {
  await assert.rejects(
    client.mergeDocuments([{ id: "nope", rating: 1 }], { throwOnAnyFailure: true }),
    (err) => {
      assert.equal(err.results[0].statusCode, 404);
      assert.equal(err.results[0].succeeded, false);
      return true;
    },
  );
});

test("lookup and count", async () => {
  assert.equal(await client.getDocumentsCount(), 4);
  assert.equal(await reader.getDocumentsCount(), 4);
  const doc = await reader.getDocument("2", { selectedFields: ["name", "rating"] });
  assert.deepEqual(doc, { name: "Mountain Inn", rating: 3 });
  const full = await client.getDocument("1");
  assert.deepEqual(full.tags, ["pool", "view"]);
  assert.deepEqual(full.rooms, hotels[0].rooms);
  await assert.rejects(client.getDocument("nope"), (err) => err.statusCode === 404);
});

test("searches in the simple and the full syntax", async () => {
  assert.deepEqual(await keys("hotel", { searchFields: ["name"] }), ["1"]);
  assert.deepEqual(sorted(await keys("name:lodge OR name:motel", { queryType: "full" })), ["3", "4"]);
  assert.deepEqual(await keys("pool -lodge", { searchMode: "all" }), ["1"]);
  assert.deepEqual(await keys("mount*", { queryType: "full" }), ["2"]);
  assert.deepEqual(await keys("seasid~1", { queryType: "full" }), ["1"]);
  assert.deepEqual(await keys("\"quiet hotel\""), ["1"]);
  await assert.rejects(client.search("name:(", { queryType: "full" }), (err) => err.statusCode === 400);
});

test("synonyms apply to the fields that name the map", async () => {
  assert.deepEqual(sorted(await keys("hotel", { searchFields: ["description"] })), ["1", "2"]);
  assert.deepEqual(await keys("motel", { searchFields: ["description"] }), ["3"]);
  assert.deepEqual(await keys("inn", { searchFields: ["name"] }), ["2"]);
});

test("filters, lambdas, geo and ordering", async () => {
  assert.deepEqual(await keys("*", { filter: "rating ge 4", orderBy: ["rating desc"] }), ["1", "3"]);
  assert.deepEqual(sorted(await keys("*", { filter: "tags/any(t: t eq 'wifi')" })), ["2", "3"]);
  assert.deepEqual(sorted(await keys("*", { filter: "tags/all(t: t eq 'wifi')" })), ["2", "4"]);
  assert.deepEqual(await keys("*", { filter: "rooms/any(r: r/type eq 'Suite' and r/price gt 200)" }), ["1"]);
  assert.deepEqual(await keys("*", { filter: "rooms/any(r: r/type eq 'Standard' and r/price gt 200)" }), []);
  assert.deepEqual(sorted(await keys("*", { filter: "geo.distance(location, geography'POINT(-122.2 47.6)') le 20" })), ["1", "3"]);
  assert.deepEqual(await keys("*", { orderBy: ["geo.distance(location, geography'POINT(-122.3 47.6)')"] }), ["4", "3", "1", "2"]);
  assert.deepEqual(await keys("*", { orderBy: ["id desc"], top: 2 }), ["4", "3"]);
  assert.deepEqual(await keys("*", { orderBy: ["id"], skip: 1, top: 2 }), ["2", "3"]);
  await assert.rejects(client.search("*", { filter: "rating gt" }), (err) => err.statusCode === 400);
  await assert.rejects(client.search("*", { filter: "nope eq 1" }), (err) => err.statusCode === 400);
});

test("count, facets and highlights", async () => {
  const res = await client.search("pool", {
    includeTotalCount: true, facets: ["category", "rating,values:3|4"], highlightFields: "description",
    highlightPreTag: "[", highlightPostTag: "]",
  });
  assert.equal(res.count, 2);
  assert.deepEqual(res.facets.category, [{ count: 1, value: "Budget" }, { count: 1, value: "Resort" }]);
  assert.deepEqual(res.facets.rating, [{ count: 0, to: 3 }, { count: 0, from: 3, to: 4 }, { count: 2, from: 4 }]);
  const highlights = {};
  for await (const r of res.results) highlights[r.document.id] = r.highlights;
  assert.deepEqual(highlights["3"], { description: ["Modern lodge downtown with [pool]"] });
  const all = await client.search("*", { facets: ["category"], top: 0 });
  assert.deepEqual(all.facets.category, [{ count: 3, value: "Budget" }, { count: 1, value: "Resort" }]);
});

test("suggest and autocomplete", async () => {
  const s = await reader.suggest("sea", "sg");
  assert.deepEqual(s.results.map((r) => [r.text, r.document.id]), [["Seaside Hotel", "1"]]);
  const fuzzy = await reader.suggest("mountian", "sg", { useFuzzyMatching: true, select: ["name"] });
  assert.deepEqual(fuzzy.results.map((r) => r.document.name), ["Mountain Inn"]);
  const a = await reader.autocomplete("mou", "sg");
  assert.deepEqual(a.results, [{ text: "mountain", queryPlusText: "mountain" }]);
  const two = await reader.autocomplete("ci", "sg", { autocompleteMode: "twoTerms" });
  assert.deepEqual(two.results.map((r) => r.text), ["city lodge"]);
});

test("a vector query and a hybrid query", async () => {
  const vector = (k) => ({ vectorSearchOptions: { queries: [{ kind: "vector", vector: [1, 0, 0], fields: ["vec"], kNearestNeighborsCount: k }] } });
  assert.deepEqual(await keys("*", vector(2)), ["1", "3"]);
  assert.deepEqual(sorted(await keys("*", { ...vector(3), filter: "category eq 'Budget'" })), ["2", "3", "4"]);
  const hybrid = await keys("wifi", vector(2));
  assert.equal(hybrid[0], "3", `hybrid ranks the document both find first: ${hybrid}`);
  assert.deepEqual(sorted(hybrid), ["1", "2", "3"]);
});

test("paging past 50 results follows @search.nextPageParameters", async () => {
  const more = [];
  for (let i = 0; i < 60; i++) more.push({ id: `p${String(i).padStart(2, "0")}`, name: "page" });
  const res = await client.uploadDocuments(more);
  assert.ok(res.results.every((r) => r.succeeded));
  const all = await keys("page", { orderBy: ["id"] });
  assert.equal(all.length, 60);
  assert.deepEqual(all, more.map((d) => d.id));
  const pages = [];
  for await (const page of (await client.search("page", { orderBy: ["id"] })).results.byPage()) pages.push(page.results.length);
  assert.deepEqual(pages, [50, 10]);
  await client.deleteDocuments("id", more.map((d) => d.id));
  assert.equal(await client.getDocumentsCount(), 4);
});
