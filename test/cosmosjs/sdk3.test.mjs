// The 3.x line of the JavaScript SDK (@azure/cosmos 3.17.3, installed as
// @azure/cosmos3), which many projects still run: the scenarios of its own
// functional tests (run against Azure) that the 4.x suites here do not
// reach the same way — containers created with the legacy indexing
// policy its query tests use, the script API's appendValue, an upsert
// conditioned on an ETag through its accessCondition option, and reads
// under session consistency (tokens kept and sent back, a token from the
// future refused 404/1002).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { CosmosClient, ConsistencyLevel, PluginOn } from "@azure/cosmos3";
import { endpoint, key, connectionPolicy } from "./emulator.mjs";

const client = new CosmosClient({ endpoint, key, connectionPolicy, consistencyLevel: ConsistencyLevel.Session });
let database;

before(async () => {
  assert.ok(endpoint, "CERULEAN_COSMOS_ENDPOINT must be set");
  ({ database } = await client.databases.create({ id: `sdk3-${randomUUID().slice(0, 8)}` }));
});

after(async () => {
  await database?.delete().catch(() => {});
});

// The container the 3.x SDK's query tests create (test/functional/query.spec.ts
// and the cross-partition suites): the root path "/" with explicit
// Range indexes, in the form Azure accepted before "/*".
test("a container with the legacy indexing policy of the 3.x query tests, and a query over it", async () => {
  const indexingPolicy = {
    includedPaths: [
      {
        path: "/",
        indexes: [
          { kind: "Range", dataType: "Number", precision: -1 },
          { kind: "Range", dataType: "String", precision: -1 },
        ],
      },
    ],
  };
  const { resource: def, statusCode } = await database.containers.create({
    id: "legacy",
    partitionKey: { paths: ["/pk"], kind: "Hash" },
    indexingPolicy,
  });
  assert.equal(statusCode, 201);
  assert.ok(def.indexingPolicy, "the policy is echoed");
  const container = database.container("legacy");
  for (let i = 0; i < 5; i++) {
    await container.items.create({ id: `i${i}`, pk: "p", n: 4 - i });
  }
  const { resources } = await container.items
    .query("SELECT c.id, c.n FROM c WHERE c.n >= 1 ORDER BY c.n", { partitionKey: "p" })
    .fetchAll();
  assert.deepEqual(resources.map((r) => r.n), [1, 2, 3, 4]);
});

// test/functional/sproc.spec.ts of the 3.x SDK: appending 0 to 9 to the
// response body gives "0123456789".
test("a stored procedure's response.appendValue through the 3.x SDK", async () => {
  const { container } = await database.containers.create({ id: "scripts", partitionKey: { paths: ["/pk"] } });
  await container.scripts.storedProcedures.create({
    id: "append",
    body: "function () { for (var i = 0; i < 10; i++) getContext().getResponse().appendValue('Body', i); }",
  });
  const { resource } = await container.scripts.storedProcedure("append").execute(undefined);
  assert.equal(resource, "0123456789");
  await assert.rejects(
    container.scripts.storedProcedures.create({ id: "broken", body: "function ( {" }),
    (err) => err.code === 400,
    "a stored procedure with a syntax error is refused when it is created",
  );
});

// An upsert with If-Match creates a missing item (Azure's "create
// semantics when the item does not exist") and is conditional on an
// existing one.
test("an upsert conditioned on an ETag through the 3.x accessCondition option", async () => {
  const { container } = await database.containers.create({ id: "upserts", partitionKey: { paths: ["/pk"] } });
  const stale = '"00000000-0000-0000-0000-000000000000"';
  const created = await container.items.upsert(
    { id: "a", pk: "p", v: 1 },
    { accessCondition: { type: "IfMatch", condition: stale } },
  );
  assert.equal(created.statusCode, 201);
  await assert.rejects(
    container.items.upsert({ id: "a", pk: "p", v: 2 }, { accessCondition: { type: "IfMatch", condition: stale } }),
    (err) => err.code === 412,
  );
  const replaced = await container.items.upsert(
    { id: "a", pk: "p", v: 3 },
    { accessCondition: { type: "IfMatch", condition: created.resource._etag } },
  );
  assert.equal(replaced.statusCode, 200);
  // Session consistency: the write's session token makes the next read
  // see it.
  const { resource } = await container.item("a", "p").read();
  assert.equal(resource.v, 3);
});

// The 3.x SDK plans a cross-partition query through the gateway's query
// plan and then merges the partitions' pages itself (ORDER BY, TOP,
// OFFSET/LIMIT, DISTINCT, aggregates), as its cross-partition tests do.
test("cross-partition queries through the 3.x query-plan flow", async () => {
  const { container } = await database.containers.create({ id: "xp", partitionKey: { paths: ["/pk"] } });
  for (let i = 0; i < 20; i++) {
    await container.items.create({ id: `d${i}`, pk: `p${i % 4}`, n: i, g: i % 3 });
  }
  const all = async (query, options = {}) => (await container.items.query(query, options).fetchAll()).resources;
  const descending = Array.from({ length: 20 }, (_, i) => 19 - i);
  assert.deepEqual(await all("SELECT VALUE c.n FROM c ORDER BY c.n DESC", { maxItemCount: 3 }), descending);
  // Page by page: no page over the size asked for, every item once, in order.
  const pages = container.items.query("SELECT VALUE c.n FROM c ORDER BY c.n DESC", { maxItemCount: 3 });
  const paged = [];
  while (pages.hasMoreResults()) {
    const { resources } = await pages.fetchNext();
    assert.ok(resources.length <= 3, `page of ${resources.length}`);
    paged.push(...resources);
  }
  assert.deepEqual(paged, descending);
  assert.deepEqual((await all("SELECT VALUE c.n FROM c WHERE c.n >= 10", { maxItemCount: 4 })).sort((a, b) => a - b), descending.slice(0, 10).reverse());
  assert.deepEqual(await all("SELECT TOP 3 VALUE c.n FROM c ORDER BY c.n"), [0, 1, 2]);
  assert.deepEqual(await all("SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 5 LIMIT 3"), [5, 6, 7]);
  assert.deepEqual((await all("SELECT DISTINCT VALUE c.g FROM c")).sort(), [0, 1, 2]);
  assert.deepEqual(await all("SELECT VALUE COUNT(1) FROM c"), [20]);
  assert.deepEqual(await all("SELECT VALUE SUM(c.n) FROM c"), [190]);
  assert.deepEqual(await all("SELECT VALUE MAX(c.n) FROM c"), [19]);
});

// Session consistency as the 3.x SDK keeps it (its test/functional/session.spec.ts,
// "preserves tokens"): the token a write answers with is the one the SDK
// sends with the next read of that container, which it can only do when
// x-ms-content-path names the container's _rid; every write and read
// answers with a token. A token from the future is Azure's
// ReadSessionNotAvailable, 404 with substatus 1002, the error the SDK's
// SessionRetryPolicy retries on (its "retries session not found
// successfully" test forces such a token); endpoint discovery is off
// here, so the SDK hands the 404 back instead of retrying.
test("session tokens through the 3.x SDK: kept, sent back, and 404/1002 from the future", async () => {
  const sent = [];
  const plugins = [
    {
      on: PluginOn.request,
      plugin: async (context, next) => {
        if (context.resourceType === "docs") sent.push({ op: context.operationType, token: context.headers["x-ms-session-token"] });
        return next(context);
      },
    },
  ];
  const sessionClient = new CosmosClient({ endpoint, key, connectionPolicy, consistencyLevel: ConsistencyLevel.Session, plugins });
  const { container } = await sessionClient.database(database.id).containers.create({ id: "sessions", partitionKey: { paths: ["/pk"] } });
  const created = await container.items.create({ id: "s", pk: "p" });
  const token = created.headers["x-ms-session-token"];
  assert.match(token, /^0:/, "a write answers with the token of range 0");
  const read = await container.item("s", "p").read();
  assert.equal(read.statusCode, 200);
  assert.match(read.headers["x-ms-session-token"], /^0:/, "a read answers with a token too");
  assert.equal(sent.at(-1).op, "read");
  assert.equal(sent.at(-1).token, token, "the SDK sends back the token the write answered with");
  const replaced = await container.item("s", "p").replace({ id: "s", pk: "p", v: 2 });
  assert.notEqual(replaced.headers["x-ms-session-token"], token, "a later write advances the token");
  // The 3.x SDK answers a 404 read with the response, not an error.
  const future = await container.item("s", "p").read({ sessionToken: "0:-1#4611686018427387904" });
  assert.equal(future.statusCode, 404);
  assert.equal(future.substatus, 1002);
  assert.equal(future.resource, undefined);
});
