// Search indexers through @azure/search-documents over this server's own
// Blob and Cosmos DB data, which the Storage and Cosmos SDKs write: a
// run indexes the source, a second run indexes only what was added or
// changed since (the high-water mark: blob Last-Modified, Cosmos _ts),
// and a source item marked soft-deleted leaves the index.
import { test } from "node:test";
import assert from "node:assert/strict";
import { AzureKeyCredential, SearchClient, SearchIndexClient, SearchIndexerClient } from "@azure/search-documents";
import { BlobServiceClient } from "@azure/storage-blob";
import { CosmosClient } from "@azure/cosmos";

const endpoint = process.env.CERULEAN_SEARCH_ENDPOINT;
const adminKey = process.env.CERULEAN_SEARCH_ADMIN_KEY;
const blobConnectionString = process.env.CERULEAN_BLOB_CONNECTION_STRING;
const cosmosEndpoint = process.env.CERULEAN_COSMOS_ENDPOINT;
const cosmosKey = process.env.CERULEAN_COSMOS_KEY;
if (!endpoint || !adminKey || !blobConnectionString || !cosmosEndpoint || !cosmosKey) {
  throw new Error("CERULEAN_SEARCH_ENDPOINT, the keys, CERULEAN_BLOB_CONNECTION_STRING and CERULEAN_COSMOS_* must be set (run through go test ./test/searchjs)");
}

const insecure = { allowInsecureConnection: true };
const credential = new AzureKeyCredential(adminKey);
const indexClient = new SearchIndexClient(endpoint, credential, insecure);
const indexerClient = new SearchIndexerClient(endpoint, credential, insecure);
const blobService = BlobServiceClient.fromConnectionString(blobConnectionString);
// The gateway is this server's own endpoint; there are no other regions
// to discover.
const cosmos = new CosmosClient({ endpoint: cosmosEndpoint, key: cosmosKey, connectionPolicy: { enableEndpointDiscovery: false } });
let counter = 0;
const unique = (prefix) => `${prefix}-${process.pid}-${++counter}`;

const softDelete = {
  odatatype: "#Microsoft.Azure.Search.SoftDeleteColumnDeletionDetectionPolicy",
  softDeleteColumnName: "isDeleted",
  softDeleteMarkerValue: "true",
};

async function createHotelIndex(name) {
  await indexClient.createIndex({
    name,
    fields: [
      { name: "id", type: "Edm.String", key: true, filterable: true },
      { name: "title", type: "Edm.String", searchable: true },
      { name: "rating", type: "Edm.Int32", filterable: true, sortable: true },
    ],
  });
  return indexClient.getSearchClient(name);
}

// finishedRun waits for the indexer's run number `runs` (counted in its
// execution history, newest first) to end, and returns the status with
// that run as lastResult. Runs answer 202 and go on in the background.
async function finishedRun(name, runs) {
  const deadline = Date.now() + 15000;
  for (;;) {
    const status = await indexerClient.getIndexerStatus(name);
    const last = status.lastResult;
    if (status.executionHistory.length >= runs && last && last.status !== "inProgress") {
      assert.equal(status.executionHistory.length, runs, `indexer ${name}: one history entry per run`);
      return status;
    }
    if (Date.now() > deadline) {
      throw new Error(`indexer ${name}: run ${runs} did not finish: ${JSON.stringify(status)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// successfulRun checks a finished run's result shape and counts.
function assertRun(status, processed, what) {
  const last = status.lastResult;
  assert.equal(status.status, "running", `${what}: the indexer's own status`);
  assert.equal(last.status, "success", `${what}: ${last.errorMessage} ${JSON.stringify(last.errors)}`);
  assert.equal(last.itemCount, processed, `${what}: items processed`);
  assert.equal(last.failedItemCount, 0, `${what}: items failed`);
  assert.deepEqual(last.errors, []);
  assert.ok(last.startTime instanceof Date && last.endTime instanceof Date && last.endTime >= last.startTime, `${what}: start and end times`);
  assert.deepEqual(status.executionHistory[0], last, `${what}: lastResult is the newest history entry`);
  assert.ok(status.limits && status.limits.maxRunTime, `${what}: limits`);
}

async function documents(search) {
  const out = {};
  for await (const r of (await search.search("*")).results) {
    out[r.document.id] = { title: r.document.title, rating: r.document.rating };
  }
  return out;
}

// documentsEventually waits for the near-real-time index to show what
// the indexer wrote.
async function documentsEventually(search, want) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const got = await documents(search);
    try {
      assert.deepEqual(got, want);
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// A second run must not rewrite unchanged items: a document changed in
// the index directly keeps that change unless its source item changed.
async function touchDirectly(search, id) {
  await search.mergeDocuments([{ id, title: "changed in the index" }]);
}

test("an indexer over a blob container of JSON files indexes only changes and drops soft-deleted blobs", async () => {
  const name = unique("blobs");
  const container = blobService.getContainerClient(name);
  await container.create();
  const put = (id, doc, metadata = {}) => {
    const body = JSON.stringify({ id, ...doc });
    return container.getBlockBlobClient(`${id}.json`).upload(body, Buffer.byteLength(body), {
      blobHTTPHeaders: { blobContentType: "application/json" }, metadata,
    });
  };
  await put("a", { title: "Alpine Lodge", rating: 4 });
  await put("b", { title: "Beach Hut", rating: 3 });
  await put("c", { title: "City Inn", rating: 2 });

  const search = await createHotelIndex(`${name}-idx`);
  await indexerClient.createDataSourceConnection({
    name: `${name}-ds`, type: "azureblob", connectionString: blobConnectionString, container: { name },
    dataDeletionDetectionPolicy: softDelete,
  });
  // Creating an indexer runs it, as Azure does.
  await indexerClient.createIndexer({
    name, dataSourceName: `${name}-ds`, targetIndexName: `${name}-idx`,
    parameters: { configuration: { parsingMode: "json" } },
  });
  let status = await finishedRun(name, 1);
  assertRun(status, 3, "first run");
  assert.ok(status.lastResult.finalTrackingState, "the first run records a high-water mark");
  await documentsEventually(search, {
    a: { title: "Alpine Lodge", rating: 4 }, b: { title: "Beach Hut", rating: 3 }, c: { title: "City Inn", rating: 2 },
  });
  assert.deepEqual(await search.getDocument("b"), { id: "b", title: "Beach Hut", rating: 3 });

  await touchDirectly(search, "a");
  await put("b", { title: "Beach House", rating: 5 });
  await put("d", { title: "Desert Camp", rating: 1 });
  await container.getBlockBlobClient("c.json").setMetadata({ isDeleted: "true" });
  await indexerClient.runIndexer(name);
  status = await finishedRun(name, 2);
  assertRun(status, 3, "second run (b changed, c soft-deleted, d added)");
  assert.equal(status.lastResult.initialTrackingState, status.executionHistory[1].finalTrackingState,
    "the second run starts from the first run's mark");
  await documentsEventually(search, {
    a: { title: "changed in the index", rating: 4 }, b: { title: "Beach House", rating: 5 }, d: { title: "Desert Camp", rating: 1 },
  });

  await indexerClient.runIndexer(name);
  status = await finishedRun(name, 3);
  assertRun(status, 0, "third run (nothing changed)");

  // Reset forgets the mark: everything is read again, the soft-deleted
  // blob as a delete.
  await indexerClient.resetIndexer(name);
  status = await indexerClient.getIndexerStatus(name);
  assert.equal(status.executionHistory.length, 4);
  assert.equal(status.lastResult.status, "reset");
  await indexerClient.runIndexer(name);
  status = await finishedRun(name, 5);
  assertRun(status, 4, "run after reset");
  await documentsEventually(search, {
    a: { title: "Alpine Lodge", rating: 4 }, b: { title: "Beach House", rating: 5 }, d: { title: "Desert Camp", rating: 1 },
  });
});

test("an indexer over a Cosmos DB container indexes only changes (_ts) and drops soft-deleted items", async () => {
  const name = unique("cosmos");
  const { database } = await cosmos.databases.createIfNotExists({ id: name });
  const { container } = await database.containers.createIfNotExists({ id: "hotels", partitionKey: { paths: ["/id"] } });
  await container.items.create({ id: "a", title: "Alpine Lodge", rating: 4, isDeleted: false });
  await container.items.create({ id: "b", title: "Beach Hut", rating: 3, isDeleted: false });
  await container.items.create({ id: "c", title: "City Inn", rating: 2, isDeleted: false });

  const search = await createHotelIndex(`${name}-idx`);
  await indexerClient.createDataSourceConnection({
    name: `${name}-ds`, type: "cosmosdb",
    connectionString: `AccountEndpoint=${cosmosEndpoint};AccountKey=${cosmosKey};Database=${name}`,
    container: { name: "hotels" },
    dataChangeDetectionPolicy: { odatatype: "#Microsoft.Azure.Search.HighWaterMarkChangeDetectionPolicy", highWaterMarkColumnName: "_ts" },
    dataDeletionDetectionPolicy: softDelete,
  });
  await indexerClient.createIndexer({ name, dataSourceName: `${name}-ds`, targetIndexName: `${name}-idx` });
  let status = await finishedRun(name, 1);
  assertRun(status, 3, "first run");
  await documentsEventually(search, {
    a: { title: "Alpine Lodge", rating: 4 }, b: { title: "Beach Hut", rating: 3 }, c: { title: "City Inn", rating: 2 },
  });

  // _ts has whole seconds: change the source in a later second than the
  // first run's items, so the second and third runs read from a mark the
  // unchanged items are below (the third run rereads the mark's own
  // second, and must skip what it already indexed there).
  const { resource: first } = await container.item("a", "a").read();
  while (Math.floor(Date.now() / 1000) <= first._ts) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await touchDirectly(search, "a");
  await container.item("b", "b").replace({ id: "b", title: "Beach House", rating: 5, isDeleted: false });
  await container.items.create({ id: "d", title: "Desert Camp", rating: 1, isDeleted: false });
  await container.item("c", "c").patch([{ op: "set", path: "/isDeleted", value: true }]);
  await indexerClient.runIndexer(name);
  status = await finishedRun(name, 2);
  assertRun(status, 3, "second run (b replaced, c soft-deleted, d created)");
  await documentsEventually(search, {
    a: { title: "changed in the index", rating: 4 }, b: { title: "Beach House", rating: 5 }, d: { title: "Desert Camp", rating: 1 },
  });
  assert.equal(await search.getDocumentsCount(), 3);

  await indexerClient.runIndexer(name);
  status = await finishedRun(name, 3);
  assertRun(status, 0, "third run (nothing changed)");

  // The status of a missing indexer is 404.
  await assert.rejects(indexerClient.getIndexerStatus(unique("missing")), (err) => err.statusCode === 404);
});
