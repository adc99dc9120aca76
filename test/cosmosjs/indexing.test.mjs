// Indexing policies through @azure/cosmos in every form Azure accepts: the
// completions and echoes are those the SDK's own container tests
// (test/public/functional/container.spec.ts, run against Azure) assert;
// the legacy root path "/" with an "indexes" list is what the 3.x SDK's
// query tests create their containers with.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { DataType, IndexKind, IndexingMode, SpatialType, GeospatialType } from "@azure/cosmos";
import { endpoint, newClient } from "./emulator.mjs";

const client = newClient();
let database;

before(async () => {
  assert.ok(endpoint, "CERULEAN_COSMOS_ENDPOINT must be set");
  ({ database } = await client.databases.create({ id: `indexing-${randomUUID().slice(0, 8)}` }));
});

function checkDefaultPaths(policy) {
  assert.equal(policy.includedPaths.length, 1, JSON.stringify(policy));
  assert.equal(policy.includedPaths[0].path, "/*");
  assert.equal(policy.excludedPaths.length, 1, JSON.stringify(policy));
  assert.equal(policy.excludedPaths[0].path, '/"_etag"/?');
}

test("partial policies are completed with the defaults", async () => {
  const { resource: none } = await database.containers.create({ id: "p-none", partitionKey: { paths: ["/pk"] } });
  assert.equal(none.indexingPolicy.indexingMode, IndexingMode.consistent);
  assert.equal(none.indexingPolicy.automatic, true);
  checkDefaultPaths(none.indexingPolicy);

  const { resource: empty } = await database.containers.create({ id: "p-empty", partitionKey: { paths: ["/pk"] }, indexingPolicy: {} });
  assert.equal(empty.indexingPolicy.indexingMode, IndexingMode.consistent);
  checkDefaultPaths(empty.indexingPolicy);

  const { resource: included } = await database.containers.create({
    id: "p-included",
    partitionKey: { paths: ["/pk"] },
    indexingPolicy: { includedPaths: [{ path: "/*" }] },
  });
  checkDefaultPaths(included.indexingPolicy);

  const { resource: precisionless } = await database.containers.create({
    id: "p-indexes",
    partitionKey: { paths: ["/pk"] },
    indexingPolicy: {
      includedPaths: [{ path: "/*", indexes: [{ kind: IndexKind.Range, dataType: DataType.String }, { kind: IndexKind.Range, dataType: DataType.Number }] }],
    },
  });
  checkDefaultPaths(precisionless.indexingPolicy);

  // The excluded paths given come first, then Azure's _etag exclusion.
  const { resource: excluded } = await database.containers.create({
    id: "p-excluded",
    partitionKey: { paths: ["/pk"] },
    indexingPolicy: {
      automatic: true,
      indexingMode: IndexingMode.consistent,
      includedPaths: [{ path: "/*" }],
      excludedPaths: [{ path: '/"systemMetadata"/*' }],
    },
  });
  assert.equal(excluded.indexingPolicy.includedPaths.length, 1);
  assert.equal(excluded.indexingPolicy.includedPaths[0].path, "/*");
  assert.equal(excluded.indexingPolicy.excludedPaths.length, 2);
  assert.equal(excluded.indexingPolicy.excludedPaths[0].path, '/"systemMetadata"/*');

  // Read back, the completed policy is what was stored.
  const { resource: read } = await database.container("p-excluded").read();
  assert.deepEqual(read.indexingPolicy, excluded.indexingPolicy);
});

test("the legacy root path '/' with kind/dataType/precision indexes serves queries", async () => {
  const { resource: def } = await database.containers.create({
    id: "legacy-root",
    partitionKey: { paths: ["/id"] },
    indexingPolicy: {
      includedPaths: [
        {
          path: "/",
          indexes: [
            { kind: IndexKind.Range, dataType: DataType.Number, precision: -1 },
            { kind: IndexKind.Range, dataType: DataType.String, precision: -1 },
            { kind: IndexKind.Spatial, dataType: DataType.Point },
          ],
        },
      ],
    },
  });
  assert.equal(def.indexingPolicy.includedPaths.length, 1);
  assert.equal(def.indexingPolicy.includedPaths[0].path, "/");
  assert.equal(def.indexingPolicy.excludedPaths.length, 1);
  const container = database.container("legacy-root");
  for (let i = 0; i < 10; i++) await container.items.create({ id: `d${i}`, n: i, s: `s${9 - i}` });
  const { resources: byN } = await container.items.query("SELECT VALUE c.n FROM c WHERE c.n >= 5 ORDER BY c.n").fetchAll();
  assert.deepEqual(byN, [5, 6, 7, 8, 9]);
  const { resources: byS } = await container.items.query("SELECT TOP 3 VALUE c.s FROM c ORDER BY c.s DESC").fetchAll();
  assert.deepEqual(byS, ["s9", "s8", "s7"]);
});

test("spatial indexes and a Geometry config are accepted on replace", async () => {
  const { resource: def } = await database.containers.create({ id: "spatial", partitionKey: { paths: ["/pk"] } });
  def.indexingPolicy.spatialIndexes = [
    { path: "/region/?", types: [SpatialType.Polygon], boundingBox: { xmin: 0, ymin: 0, xmax: 10, ymax: 10 } },
  ];
  def.geospatialConfig = { type: GeospatialType.Geometry };
  const { resource: replaced } = await database.container("spatial").replace(def);
  assert.deepEqual(replaced.indexingPolicy.spatialIndexes, def.indexingPolicy.spatialIndexes);
  assert.equal(replaced.geospatialConfig.type, GeospatialType.Geometry);
  checkDefaultPaths(replaced.indexingPolicy);
});

test("a container read with quota info reports index transformation progress", async () => {
  await database.containers.create({ id: "progress", partitionKey: { paths: ["/pk"] } });
  const { headers } = await database.container("progress").read({ populateQuotaInfo: true });
  assert.notEqual(headers["x-ms-documentdb-collection-index-transformation-progress"], undefined);
  assert.equal(headers["x-ms-documentdb-collection-lazy-indexing-progress"], undefined);

  await database.containers.create({ id: "progress-none", partitionKey: { paths: ["/pk"] }, indexingPolicy: { indexingMode: IndexingMode.none, automatic: false } });
  const { headers: h2, resource } = await database.container("progress-none").read({ populateQuotaInfo: true });
  assert.notEqual(h2["x-ms-documentdb-collection-index-transformation-progress"], undefined);
  assert.deepEqual(resource.indexingPolicy.includedPaths, []);
  assert.deepEqual(resource.indexingPolicy.excludedPaths, []);
});
