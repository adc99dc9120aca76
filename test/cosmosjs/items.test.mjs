// Item rules of @azure/cosmos against cerulean that Azure enforces on the
// service side: time to live values, which ids a create through the
// gateway accepts, and the non-partitioned containers of old API
// versions. js_test.go starts the server and sets the endpoint.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { CosmosClient, StatusCodes } from "@azure/cosmos";
import { endpoint, key, connectionPolicy, newClient } from "./emulator.mjs";

const client = newClient();
let database;

before(async () => {
  assert.ok(endpoint, "CERULEAN_COSMOS_ENDPOINT must be set");
  ({ database } = await client.databases.create({ id: `items-${randomUUID().slice(0, 8)}` }));
});

after(async () => {
  await database?.delete().catch(() => {});
});

const badRequest = (err) => {
  assert.equal(err.code, StatusCodes.BadRequest, err.message);
  return true;
};

// The SDK's own TTL test (test/public/functional/ttl.spec.ts, run against
// Azure): a defaultTtl of 0 or -10 is refused at create and replace, and
// so is an item ttl of 0, null or -10; so is any ttl that is not a whole
// number of seconds (the .NET SDK documents "a nonzero positive integer,
// '-1', or null"); -1 and whole positive seconds are accepted. Without a
// defaultTtl an item's ttl expires nothing (the time-to-live article).
test("time to live values Azure refuses (400) and accepts", async () => {
  for (const defaultTtl of [0, -10]) {
    await assert.rejects(
      database.containers.create({ id: `ttl-bad-${-defaultTtl}`, partitionKey: { paths: ["/pk"] }, defaultTtl }),
      badRequest,
      `defaultTtl ${defaultTtl}`,
    );
  }
  const { container, resource: def } = await database.containers.create({ id: "ttl", partitionKey: { paths: ["/pk"] }, defaultTtl: 100 });
  assert.equal(def.defaultTtl, 100);
  await assert.rejects(container.replace({ ...def, defaultTtl: 0 }), badRequest, "replace with defaultTtl 0");
  for (const [i, ttl] of [0, null, -10, 1.5, "5"].entries()) {
    await assert.rejects(container.items.create({ id: `bad${i}`, pk: "p", ttl }), badRequest, `item ttl ${ttl}`);
    await assert.rejects(container.items.upsert({ id: `bad${i}`, pk: "p", ttl }), badRequest, `upsert with item ttl ${ttl}`);
  }
  for (const [i, ttl] of [-1, 1, 2147483647].entries()) {
    const { statusCode } = await container.items.create({ id: `good${i}`, pk: "p", ttl });
    assert.equal(statusCode, 201, `item ttl ${ttl}`);
  }
  const { container: plain } = await database.containers.create({ id: "ttl-off", partitionKey: { paths: ["/pk"] } });
  await plain.items.create({ id: "kept", pk: "p", ttl: 1 });
  await new Promise((resolve) => setTimeout(resolve, 2100));
  const { statusCode, resource } = await plain.item("kept", "p").read();
  assert.equal(statusCode, 200);
  assert.equal(resource.ttl, 1);
});

// Which ids a create through the gateway accepts: '?', tabs, line
// breaks, percent signs and leading or trailing spaces are created (the
// Java SDK's CosmosItemIdEncodingTest and this SDK's
// test/public/functional/itemIdEncoding.spec.ts, run against Azure). This
// SDK refuses '/', '#' and '\\' itself before sending; the service's 400
// for a backslash is test/cosmossdk's TestItemIDCharactersOnCreate.
test("item ids on create: the characters Azure accepts", async () => {
  const { container } = await database.containers.create({ id: "ids", partitionKey: { paths: ["/pk"] } });
  const ids = ["q?mark", "tab\tin", "line\nfeed", "trailing ", "trailing   ", " leading", "pct%20in"];
  for (const id of ids) {
    const { statusCode } = await container.items.create({ id, pk: "p" });
    assert.equal(statusCode, 201, `create id ${JSON.stringify(id)}`);
  }
  const { resources } = await container.items.query("SELECT VALUE c.id FROM c", { partitionKey: "p" }).fetchAll();
  assert.deepEqual(resources.sort(), [...ids].sort());
});

// The SDK's own non-partitioned container test
// (test/public/functional/npcontainer.spec.ts, run against Azure): a
// container created without a partition key under x-ms-version
// 2018-06-18 has Azure's system partition key, and its items are
// created, read, upserted, replaced, listed, queried and deleted with no
// partition key given.
test("a non-partitioned container of an old API version: system key and item CRUD", async () => {
  const legacy = new CosmosClient({
    endpoint,
    key,
    connectionPolicy,
    plugins: [
      {
        on: "request",
        plugin: (context, diagnosticNode, next) => {
          if (context.resourceType === "colls" && context.method === "POST") {
            context.body = JSON.stringify({ id: JSON.parse(context.body).id });
          }
          context.headers["x-ms-version"] = "2018-06-18";
          return next(context);
        },
      },
    ],
  });
  await legacy.database(database.id).containers.create({ id: "np" });
  const container = database.container("np");
  const { resource: def } = await container.read();
  assert.deepEqual(def.partitionKey.paths, ["/_partitionKey"]);
  assert.equal(def.partitionKey.systemKey, true);
  const { resource: a } = await container.items.create({ id: "a", name: "sample", foo: "bar" });
  assert.equal(a.name, "sample");
  const { resource: read } = await container.item("a", undefined).read();
  assert.equal(read.id, "a");
  await container.items.upsert({ id: "b", name: "sample" });
  const { resource: replaced } = await container.item("a", undefined).replace({ id: "a", newProp: "baz" });
  assert.equal(replaced.newProp, "baz");
  const { resources: all } = await container.items.readAll().fetchAll();
  assert.equal(all.length, 2);
  const { resources: queried } = await container.items.query("SELECT * FROM root r").fetchAll();
  assert.equal(queried.length, 2);
  await container.item("a", undefined).delete();
  const gone = await container.item("a", undefined).read();
  assert.equal(gone.statusCode, StatusCodes.NotFound);
  legacy.dispose();
});
