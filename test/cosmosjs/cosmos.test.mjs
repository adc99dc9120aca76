// Conformance tests of cerulean's Cosmos DB gateway through @azure/cosmos.
// The endpoint comes from CERULEAN_COSMOS_ENDPOINT (js_test.go starts a
// server and sets it); the key is the emulator's well-known key.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { endpoint, newClient } from "./emulator.mjs";

const client = newClient();
let container;

before(async () => {
  assert.ok(endpoint, "CERULEAN_COSMOS_ENDPOINT must be set");
  const { database } = await client.databases.createIfNotExists({ id: "jsdb" });
  ({ container } = await database.containers.createIfNotExists({
    id: "items",
    partitionKey: { paths: ["/pk"] },
  }));
});

async function expectStatus(promise, code) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.code, code, `want ${code}, got ${err.code}: ${err.message}`);
    return true;
  });
}

test("CRUD, upsert, read feed and same id in two partitions", async () => {
  const { resource: created, statusCode } = await container.items.create({ id: "a", pk: "p1", n: 1 });
  assert.equal(statusCode, 201);
  for (const k of ["_rid", "_self", "_etag", "_ts", "_attachments"]) assert.ok(created[k] !== undefined, k);
  await container.items.create({ id: "a", pk: "p2", n: 2 });
  await expectStatus(container.items.create({ id: "a", pk: "p1" }), 409);

  const { resource: r1 } = await container.item("a", "p1").read();
  const { resource: r2 } = await container.item("a", "p2").read();
  assert.equal(r1.n, 1);
  assert.equal(r2.n, 2);

  const { resource: replaced } = await container.item("a", "p1").replace({ id: "a", pk: "p1", n: 10 });
  assert.equal(replaced.n, 10);
  assert.notEqual(replaced._etag, created._etag);
  const up = await container.items.upsert({ id: "b", pk: "p1", n: 3 });
  assert.equal(up.statusCode, 201);

  const { resources: all } = await container.items.readAll().fetchAll();
  assert.equal(all.length, 3);
  const { resources: dbs } = await client.databases.readAll().fetchAll();
  assert.ok(dbs.some((d) => d.id === "jsdb"));

  const del = await container.item("b", "p1").delete();
  assert.equal(del.statusCode, 204);
  const missing = await container.item("b", "p1").read();
  assert.equal(missing.statusCode, 404);
});

test("stale _etag: no lost update, no lost delete (412); 304 on If-None-Match", async () => {
  const { resource: v1 } = await container.items.create({ id: "c", pk: "p1", v: 1 });
  const { resource: v2 } = await container
    .item("c", "p1")
    .replace({ id: "c", pk: "p1", v: 2 }, { accessCondition: { type: "IfMatch", condition: v1._etag } });
  await expectStatus(
    container.item("c", "p1").replace({ id: "c", pk: "p1", v: 3 }, { accessCondition: { type: "IfMatch", condition: v1._etag } }),
    412,
  );
  await expectStatus(container.item("c", "p1").delete({ accessCondition: { type: "IfMatch", condition: v1._etag } }), 412);
  await expectStatus(
    container.item("c", "p1").patch([{ op: "set", path: "/v", value: 9 }], { accessCondition: { type: "IfMatch", condition: v1._etag } }),
    412,
  );
  const notModified = await container.item("c", "p1").read({ accessCondition: { type: "IfNoneMatch", condition: v2._etag } });
  assert.equal(notModified.statusCode, 304);
  const { resource: now, statusCode } = await container.item("c", "p1").read();
  assert.equal(statusCode, 200);
  assert.equal(now.v, 2);
  assert.equal(now._etag, v2._etag);
});

test("patch operations and conditional patch", async () => {
  await container.items.create({ id: "d", pk: "p1", count: 1, tags: ["x"], old: true, from: "moved" });
  const { resource } = await container.item("d", "p1").patch([
    { op: "incr", path: "/count", value: 2 },
    { op: "add", path: "/tags/-", value: "y" },
    { op: "remove", path: "/old" },
    { op: "set", path: "/name", value: "n" },
    { op: "replace", path: "/count", value: 5 },
    { op: "move", from: "/from", path: "/to" },
  ]);
  assert.equal(resource.count, 5);
  assert.deepEqual(resource.tags, ["x", "y"]);
  assert.equal(resource.old, undefined);
  assert.equal(resource.to, "moved");
  await expectStatus(
    container.item("d", "p1").patch({ condition: "from c where c.count = 1", operations: [{ op: "set", path: "/name", value: "z" }] }),
    412,
  );
  const { resource: ok } = await container
    .item("d", "p1")
    .patch({ condition: "from c where c.count = 5", operations: [{ op: "set", path: "/name", value: "z" }] });
  assert.equal(ok.name, "z");
});

test("cross-partition query with ORDER BY through the query plan", async () => {
  for (let i = 0; i < 6; i++) await container.items.upsert({ id: `q${i}`, pk: `qp${i % 3}`, rank: 5 - i });
  const { resources } = await container.items
    .query({ query: "SELECT c.id, c.rank FROM c WHERE STARTSWITH(c.id, @p) ORDER BY c.rank", parameters: [{ name: "@p", value: "q" }] }, { maxItemCount: 2 })
    .fetchAll();
  assert.deepEqual(
    resources.map((r) => r.rank),
    [0, 1, 2, 3, 4, 5],
  );
  const { resources: forced } = await container.items
    .query("SELECT VALUE COUNT(1) FROM c WHERE STARTSWITH(c.id, 'q')", { forceQueryPlan: true })
    .fetchAll();
  assert.deepEqual(forced, [6]);
});

test("transactional batch is atomic (207 / 424)", async () => {
  await container.items.create({ id: "e1", pk: "bp" });
  const ok = await container.items.batch(
    [
      { operationType: "Create", resourceBody: { id: "e2", pk: "bp" } },
      { operationType: "Read", id: "e1" },
    ],
    "bp",
  );
  assert.equal(ok.result[0].statusCode, 201);
  assert.equal(ok.result[1].statusCode, 200);
  const failed = await container.items.batch(
    [
      { operationType: "Create", resourceBody: { id: "e3", pk: "bp" } },
      { operationType: "Upsert", resourceBody: { id: "e4", pk: "bp" } },
      { operationType: "Create", resourceBody: { id: "e1", pk: "bp" } },
      { operationType: "Delete", id: "e2" },
      { operationType: "Replace", id: "e1", resourceBody: { id: "e1", pk: "bp", x: 1 } },
    ],
    "bp",
  );
  assert.equal(failed.code, 207);
  assert.deepEqual(
    failed.result.map((r) => r.statusCode),
    [424, 424, 409, 424, 424],
  );
  const { resources } = await container.items.query("SELECT * FROM c WHERE c.pk = 'bp'").fetchAll();
  assert.deepEqual(resources.map((r) => r.id).sort(), ["e1", "e2"]);
});

// An upsert with If-Match creates an item that does not exist and applies
// the condition to one that does, in bulk as in a single request (the .NET
// SDK documents IfMatchEtag as ignored when an upsert is "materialized as
// Create").
test("bulk upsert with If-Match creates a missing item and refuses a stale one", async () => {
  const { resource: v1 } = await container.items.create({ id: "bup1", pk: "bu", v: 1 });
  await container.item("bup1", "bu").replace({ id: "bup1", pk: "bu", v: 2 });
  const results = await container.items.executeBulkOperations([
    { operationType: "Upsert", partitionKey: "bu", ifMatch: v1._etag, resourceBody: { id: "bup2", pk: "bu", v: 1 } },
    { operationType: "Upsert", partitionKey: "bu", ifMatch: v1._etag, resourceBody: { id: "bup1", pk: "bu", v: 3 } },
  ]);
  const codes = results.map((r) => r.response?.statusCode ?? r.error?.code);
  assert.deepEqual(codes, [201, 412], JSON.stringify(results.map((r) => r.error?.message)));
  const { resource } = await container.item("bup1", "bu").read();
  assert.equal(resource.v, 2);
  const { resource: created } = await container.item("bup2", "bu").read();
  assert.equal(created.v, 1);
});

// The same rule inside a transactional batch.
test("transactional batch upsert with If-Match creates a missing item and refuses a stale one", async () => {
  const { resource: v1 } = await container.items.create({ id: "tup1", pk: "tu", v: 1 });
  await container.item("tup1", "tu").replace({ id: "tup1", pk: "tu", v: 2 });
  const created = await container.items.batch([{ operationType: "Upsert", ifMatch: v1._etag, resourceBody: { id: "tup2", pk: "tu", v: 1 } }], "tu");
  assert.equal(created.result[0].statusCode, 201);
  const refused = await container.items.batch([{ operationType: "Upsert", ifMatch: v1._etag, resourceBody: { id: "tup1", pk: "tu", v: 3 } }], "tu");
  assert.equal(refused.result[0].statusCode, 412);
  const { resource } = await container.item("tup1", "tu").read();
  assert.equal(resource.v, 2);
  const { resource: made } = await container.item("tup2", "tu").read();
  assert.equal(made.v, 1);
});

test("upsert with If-Match creates a missing item (201) and refuses a stale one (412)", async () => {
  const stale = '"00000000-0000-0000-0000-000000000000"';
  const { statusCode, resource } = await container.items.upsert({ id: "uim", pk: "ui", v: 1 }, { accessCondition: { type: "IfMatch", condition: stale } });
  assert.equal(statusCode, 201);
  await assert.rejects(
    container.items.upsert({ id: "uim", pk: "ui", v: 2 }, { accessCondition: { type: "IfMatch", condition: stale } }),
    (err) => err.code === 412,
  );
  const { statusCode: replaced } = await container.items.upsert({ id: "uim", pk: "ui", v: 3 }, { accessCondition: { type: "IfMatch", condition: resource._etag } });
  assert.equal(replaced, 200);
});

test("bulk honours If-Match per operation (the Linux emulator ignores it)", async () => {
  const { resource: v1 } = await container.items.create({ id: "bulk1", pk: "bk", v: 1 });
  await container.item("bulk1", "bk").replace({ id: "bulk1", pk: "bk", v: 2 });
  const results = await container.items.executeBulkOperations([
    { operationType: "Create", partitionKey: "bk2", resourceBody: { id: "bulk2", pk: "bk2" } },
    { operationType: "Replace", partitionKey: "bk", id: "bulk1", ifMatch: v1._etag, resourceBody: { id: "bulk1", pk: "bk", v: 3 } },
    { operationType: "Read", partitionKey: "bk", id: "bulk1" },
  ]);
  const codes = results.map((r) => r.response?.statusCode ?? r.error?.code);
  assert.deepEqual(codes, [201, 412, 200], JSON.stringify(results.map((r) => r.error?.message)));
  const { resource } = await container.item("bulk1", "bk").read();
  assert.equal(resource.v, 2);
});
