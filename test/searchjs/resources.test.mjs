// Search resources through @azure/search-documents: Microsoft's access
// condition scenario for every resource kind, racing clients with
// If-Match, and what a query key, a bad key and a missing api-version get.
import { test } from "node:test";
import assert from "node:assert/strict";
import { AzureKeyCredential, SearchIndexClient, SearchIndexerClient } from "@azure/search-documents";

const endpoint = process.env.CERULEAN_SEARCH_ENDPOINT;
const adminKey = process.env.CERULEAN_SEARCH_ADMIN_KEY;
const queryKey = process.env.CERULEAN_SEARCH_QUERY_KEY;
const connectionString = process.env.CERULEAN_BLOB_CONNECTION_STRING;
if (!endpoint || !adminKey || !queryKey) {
  throw new Error("CERULEAN_SEARCH_ENDPOINT and the keys must be set (run through go test ./test/searchjs)");
}

// Plain HTTP needs the SDK's consent, as it would for any non-TLS endpoint.
const insecure = { allowInsecureConnection: true };
const indexClient = new SearchIndexClient(endpoint, new AzureKeyCredential(adminKey), insecure);
const indexerClient = new SearchIndexerClient(endpoint, new AzureKeyCredential(adminKey), insecure);
let counter = 0;
const unique = (prefix) => `${prefix}-${process.pid}-${++counter}`;

function hotelIndex(name) {
  return {
    name,
    fields: [
      { name: "id", type: "Edm.String", key: true },
      { name: "title", type: "Edm.String", searchable: true, analyzerName: "en.lucene" },
      { name: "rating", type: "Edm.Double", filterable: true, sortable: true },
    ],
  };
}

async function expectStatus(promise, status, what) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.statusCode, status, `${what}: got ${err.statusCode} ${err.message}`);
    return true;
  });
}

// ifExists is Microsoft's "update if exists" access condition.
const ifExists = { requestOptions: { customHeaders: { "If-Match": "*" } } };

// The kinds under test: how to create one, change it, read it and delete it.
async function dataSourceFor(name) {
  return indexerClient.createDataSourceConnection({
    name, type: "azureblob", connectionString, container: { name: "hotels" },
  });
}

const kinds = {
  index: {
    create: (name) => indexClient.createIndex(hotelIndex(name)),
    change: (r, n) => ({ ...r, fields: [...r.fields, { name: `extra${n}`, type: "Edm.String" }] }),
    update: (r, o) => indexClient.createOrUpdateIndex(r, o),
    get: (name) => indexClient.getIndex(name),
    del: (r, o) => indexClient.deleteIndex(r, o),
  },
  "synonym map": {
    create: (name) => indexClient.createSynonymMap({ name, synonyms: ["hotel, motel", "inn => hotel"] }),
    change: (r, n) => ({ ...r, synonyms: [...r.synonyms, `word${n}, term${n}`] }),
    update: (r, o) => indexClient.createOrUpdateSynonymMap(r, o),
    get: (name) => indexClient.getSynonymMap(name),
    del: (r, o) => indexClient.deleteSynonymMap(r, o),
  },
  "data source": {
    create: (name) => dataSourceFor(name),
    change: (r, n) => ({ ...r, description: `change ${n}`, connectionString: r.connectionString ?? connectionString }),
    update: (r, o) => indexerClient.createOrUpdateDataSourceConnection(r, o),
    get: (name) => indexerClient.getDataSourceConnection(name),
    del: (r, o) => indexerClient.deleteDataSourceConnection(r, o),
  },
  indexer: {
    create: async (name) => {
      await indexClient.createIndex(hotelIndex(`${name}-idx`));
      await dataSourceFor(`${name}-ds`);
      return indexerClient.createIndexer({ name, dataSourceName: `${name}-ds`, targetIndexName: `${name}-idx` });
    },
    change: (r, n) => ({ ...r, description: `change ${n}` }),
    update: (r, o) => indexerClient.createOrUpdateIndexer(r, o),
    get: (name) => indexerClient.getIndexer(name),
    del: (r, o) => indexerClient.deleteIndexer(r, o),
  },
  skillset: {
    create: (name) => indexerClient.createSkillset({
      name,
      skills: [{
        odatatype: "#Microsoft.Skills.Util.ShaperSkill",
        inputs: [{ name: "title", source: "/document/title" }],
        outputs: [{ name: "output", targetName: "shaped" }],
      }],
    }),
    change: (r, n) => ({ ...r, description: `change ${n}` }),
    update: (r, o) => indexerClient.createOrUpdateSkillset(r, o),
    get: (name) => indexerClient.getSkillset(name),
    del: (r, o) => indexerClient.deleteSkillset(r, o),
  },
};

for (const [kind, k] of Object.entries(kinds)) {
  test(`${kind}: Microsoft's access condition scenario`, async () => {
    const name = unique(kind.replace(" ", "").slice(0, 8));
    // Create: the resource has an ETag.
    const created = await k.create(name);
    assert.ok(created.etag, "created resource has an ETag");
    // Update if exists: a new ETag.
    const updated = await k.update(k.change(created, 1), ifExists);
    assert.ok(updated.etag && updated.etag !== created.etag, `update changed the ETag (${created.etag} -> ${updated.etag})`);
    const read = await k.get(name);
    assert.equal(read.etag, updated.etag, "a read returns the latest ETag");
    // Another client's update with the old ETag: 412.
    await expectStatus(k.update(k.change(created, 2), { onlyIfUnchanged: true }), 412, "stale update");
    // Delete if unchanged with the old ETag: 412, and the resource survives.
    await expectStatus(k.del(created, { onlyIfUnchanged: true }), 412, "stale delete");
    const survivor = await k.get(name);
    assert.equal(survivor.etag, updated.etag, "the resource survives a stale delete unchanged");
    // With the current ETag the delete succeeds, then the resource is gone.
    await k.del(survivor, { onlyIfUnchanged: true });
    await expectStatus(k.get(name), 404, "read after delete");
  });
}

test("index: two clients racing with If-Match, exactly one wins each round", async () => {
  const name = unique("race");
  await indexClient.createIndex(hotelIndex(name));
  const a = new SearchIndexClient(endpoint, new AzureKeyCredential(adminKey), insecure);
  const b = new SearchIndexClient(endpoint, new AzureKeyCredential(adminKey), insecure);
  const winners = [];
  for (let round = 0; round < 12; round++) {
    const [ia, ib] = await Promise.all([a.getIndex(name), b.getIndex(name)]);
    assert.equal(ia.etag, ib.etag);
    const attempt = (client, idx, who) =>
      client.createOrUpdateIndex({ ...idx, fields: [...idx.fields, { name: `r${round}${who}`, type: "Edm.String" }] }, { onlyIfUnchanged: true })
        .then(() => ({ who, ok: true }), (err) => ({ who, ok: false, status: err.statusCode }));
    const results = await Promise.all([attempt(a, ia, "a"), attempt(b, ib, "b")]);
    const won = results.filter((r) => r.ok);
    assert.equal(won.length, 1, `round ${round}: ${JSON.stringify(results)}`);
    assert.equal(results.find((r) => !r.ok).status, 412, `round ${round}: the loser gets 412`);
    winners.push(`r${round}${won[0].who}`);
  }
  const final = await indexClient.getIndex(name);
  const names = final.fields.map((f) => f.name);
  for (const w of winners) {
    assert.ok(names.includes(w), `the winning update ${w} is kept`);
  }
  assert.equal(names.length, 3 + winners.length, "no losing update was applied");
});

test("index: create conflicts, rebuild-needing updates are refused, stats count", async () => {
  const name = unique("rules");
  const created = await indexClient.createIndex(hotelIndex(name));
  await expectStatus(indexClient.createIndex(hotelIndex(name)), 409, "create of an existing name");
  const changed = { ...created, fields: created.fields.map((f) => (f.name === "rating" ? { ...f, sortable: false } : f)) };
  await assert.rejects(indexClient.createOrUpdateIndex(changed), (err) => {
    assert.equal(err.statusCode, 400);
    assert.equal(err.code, "OperationNotAllowed");
    assert.match(err.message, /Existing field 'rating' cannot be changed/);
    return true;
  });
  const withAnalyzer = {
    ...created,
    analyzers: [{ odatatype: "#Microsoft.Azure.Search.CustomAnalyzer", name: "folding", tokenizerName: "standard_v2", tokenFilters: ["lowercase"] }],
  };
  await assert.rejects(indexClient.createOrUpdateIndex(withAnalyzer), /allowIndexDowntime/);
  const allowed = await indexClient.createOrUpdateIndex(withAnalyzer, { allowIndexDowntime: true });
  assert.equal(allowed.analyzers.length, 1);
  const stats = await indexClient.getIndexStatistics(name);
  assert.equal(stats.documentCount, 0);
  assert.equal(stats.storageSize, 0);
  const service = await indexClient.getServiceStatistics();
  assert.ok(service.counters.indexCounter.usage >= 1);
  const names = [];
  for await (const n of indexClient.listIndexesNames()) names.push(n);
  assert.ok(names.includes(name), "listIndexesNames ($select=name) lists the index");
  await expectStatus(indexClient.createIndex({ name: unique("bad"), fields: [{ name: "id", type: "Edm.String", key: true, analyzerName: "nope.lucene" }] }), 400, "unknown analyzer");
  await expectStatus(indexClient.createIndex({ name: "Upper", fields: [{ name: "id", type: "Edm.String", key: true }] }), 400, "upper-case index name");
});

test("an indexer runs on request and reports its status", async () => {
  const name = unique("runner");
  await kinds.indexer.create(name);
  // Creating it ran it: a run while that one is in progress would be
  // 409, so wait for it to end.
  const deadline = Date.now() + 15000;
  let status = await indexerClient.getIndexerStatus(name);
  while (!status.lastResult || status.lastResult.status === "inProgress") {
    assert.ok(Date.now() < deadline, `the run on creation did not end: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    status = await indexerClient.getIndexerStatus(name);
  }
  await indexerClient.runIndexer(name);
  status = await indexerClient.getIndexerStatus(name);
  assert.equal(status.status, "running");
  assert.ok(status.executionHistory.length >= 2, "the run on creation and the requested run are in the history");
  await indexerClient.resetIndexer(name);
  await expectStatus(indexerClient.runIndexer(unique("missing")), 404, "run of a missing indexer");
});

test("a query key may not write", async () => {
  const readOnly = new SearchIndexClient(endpoint, new AzureKeyCredential(queryKey), insecure);
  await expectStatus(readOnly.createIndex(hotelIndex(unique("ro"))), 403, "create with a query key");
  await expectStatus(readOnly.getIndex("anything"), 403, "definition read with a query key");
  // A search is a query operation the key may make; a document batch is not.
  const name = unique("qk");
  await indexClient.createIndex(hotelIndex(name));
  const res = await fetch(`${endpoint}/indexes('${name}')/docs/search.post.search?api-version=2024-07-01`, {
    method: "POST", headers: { "api-key": queryKey, "Content-Type": "application/json" }, body: "{}",
  });
  assert.equal(res.status, 200);
  const batch = await fetch(`${endpoint}/indexes('${name}')/docs/search.index?api-version=2024-07-01`, {
    method: "POST", headers: { "api-key": queryKey, "Content-Type": "application/json" },
    body: JSON.stringify({ value: [{ "@search.action": "upload", id: "1" }] }),
  });
  assert.equal(batch.status, 403);
});

test("a bad api-key is 403", async () => {
  const bad = new SearchIndexClient(endpoint, new AzureKeyCredential("not-a-key"), insecure);
  await expectStatus(bad.getServiceStatistics(), 403, "bad key");
});

test("a missing api-version is 400", async () => {
  const res = await fetch(`${endpoint}/indexes`, { headers: { "api-key": adminKey } });
  assert.equal(res.status, 400);
  const body = await res.json();
  assert.equal(body.error.message, "Invalid or missing api-version query string parameter.");
});
