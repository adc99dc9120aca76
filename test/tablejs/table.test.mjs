// Tables through @azure/data-tables, which types entity values itself
// (numbers as Double or Int32, { value, type } objects as the type they
// name, Date as DateTime, Uint8Array as Binary; an Int64 comes back as a
// bigint) and parses the OData
// answers with its own reader. Every value must come back as it went in,
// typed alike; queries, paging, conditional writes, transactions and
// table listings must answer as the SDK expects. The connection string
// comes from CERULEAN_CONNECTION_STRING (js_test.go starts a server and
// sets it); the server speaks plain HTTP, which the SDK allows for it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TableClient, TableServiceClient, odata } from "@azure/data-tables";

const connectionString = process.env.CERULEAN_CONNECTION_STRING;
const options = { allowInsecureConnection: true };

function client(table) {
  assert.ok(connectionString, "CERULEAN_CONNECTION_STRING must be set");
  return TableClient.fromConnectionString(connectionString, table, options);
}

async function newTable(name) {
  const t = client(name);
  await t.createTable();
  return t;
}

test("typed values round-trip", async () => {
  const t = await newTable("jstyped");
  const when = new Date("2026-11-29T12:34:56.789Z");
  const entity = {
    partitionKey: "p",
    rowKey: "r1",
    text: "ünïcödé 🙂 <&>\"'",
    int32: 42,
    double: 1.5,
    wholeDouble: { value: "3", type: "Double" },
    int64: { value: "9007199254740993", type: "Int64" },
    flag: true,
    when,
    bytes: new Uint8Array([0, 1, 2, 254, 255]),
    id: { value: "1b4e28ba-2fa1-11d2-883f-0016d3cca427", type: "Guid" },
    negativeZero: -0,
  };
  await t.createEntity(entity);
  const got = await t.getEntity("p", "r1");
  assert.equal(got.text, entity.text);
  assert.equal(got.int32, 42);
  assert.equal(got.double, 1.5);
  assert.equal(got.wholeDouble, 3);
  assert.equal(got.int64, 9007199254740993n);
  assert.equal(got.flag, true);
  assert.ok(got.when instanceof Date, `when is ${typeof got.when}`);
  assert.equal(got.when.toISOString(), when.toISOString());
  assert.deepEqual(Array.from(got.bytes), [0, 1, 2, 254, 255]);
  assert.deepEqual(got.id, { value: "1b4e28ba-2fa1-11d2-883f-0016d3cca427", type: "Guid" });
  assert.ok(got.etag && got.timestamp, "etag and timestamp");
  await t.deleteTable();
});

test("update, merge, upsert and conditional writes", async () => {
  const t = await newTable("jswrites");
  await t.createEntity({ partitionKey: "p", rowKey: "r", a: 1, b: "x" });
  await assert.rejects(t.createEntity({ partitionKey: "p", rowKey: "r", a: 2 }), (e) => e.statusCode === 409);
  const first = await t.getEntity("p", "r");
  await t.updateEntity({ partitionKey: "p", rowKey: "r", c: true }, "Merge");
  let got = await t.getEntity("p", "r");
  assert.equal(got.a, 1);
  assert.equal(got.c, true);
  await t.updateEntity({ partitionKey: "p", rowKey: "r", d: 4 }, "Replace");
  got = await t.getEntity("p", "r");
  assert.equal(got.a, undefined);
  assert.equal(got.d, 4);
  // A stale ETag is refused; the current one is taken.
  await assert.rejects(
    t.updateEntity({ partitionKey: "p", rowKey: "r", e: 5 }, "Merge", { etag: first.etag }),
    (e) => e.statusCode === 412,
  );
  await t.updateEntity({ partitionKey: "p", rowKey: "r", e: 5 }, "Merge", { etag: got.etag });
  await t.upsertEntity({ partitionKey: "p", rowKey: "new", f: 6 }, "Replace");
  await t.upsertEntity({ partitionKey: "p", rowKey: "new", g: 7 }, "Merge");
  got = await t.getEntity("p", "new");
  assert.equal(got.f, 6);
  assert.equal(got.g, 7);
  await t.deleteEntity("p", "new");
  await assert.rejects(t.getEntity("p", "new"), (e) => e.statusCode === 404);
  await t.deleteTable();
});

test("queries with filters, select, paging and the odata helper", async () => {
  const t = await newTable("jsquery");
  for (let i = 0; i < 25; i++) {
    await t.createEntity({ partitionKey: i % 2 ? "odd" : "even", rowKey: String(i).padStart(3, "0"), n: i, name: `it's ${i}` });
  }
  const odd = [];
  for await (const e of t.listEntities({ queryOptions: { filter: odata`PartitionKey eq ${"odd"} and n ge ${10}`, select: ["n"] } })) {
    odd.push(e.n);
    assert.equal(e.name, undefined, "select left name out");
  }
  assert.deepEqual(odd, [11, 13, 15, 17, 19, 21, 23]);
  const quoted = [];
  for await (const e of t.listEntities({ queryOptions: { filter: odata`name eq ${"it's 4"}` } })) {
    quoted.push(e.rowKey);
  }
  assert.deepEqual(quoted, ["004"]);
  const pages = [];
  for await (const page of t.listEntities().byPage({ maxPageSize: 10 })) {
    pages.push(page.length);
  }
  assert.deepEqual(pages, [10, 10, 5]);
  await t.deleteTable();
});

test("transactions apply together or not at all", async () => {
  const t = await newTable("jsbatch");
  await t.submitTransaction([
    ["create", { partitionKey: "p", rowKey: "1", v: 1 }],
    ["create", { partitionKey: "p", rowKey: "2", v: 2 }],
    ["upsert", { partitionKey: "p", rowKey: "3", v: 3 }],
  ]);
  const rows = [];
  for await (const e of t.listEntities()) {
    rows.push(`${e.rowKey}=${e.v}`);
  }
  assert.deepEqual(rows, ["1=1", "2=2", "3=3"]);
  await assert.rejects(
    t.submitTransaction([
      ["update", { partitionKey: "p", rowKey: "1", v: 10 }],
      ["create", { partitionKey: "p", rowKey: "2", v: 20 }],
    ]),
    (e) => e.statusCode === 409,
  );
  const one = await t.getEntity("p", "1");
  assert.equal(one.v, 1, "the failed transaction changed nothing");
  await t.submitTransaction([
    ["delete", { partitionKey: "p", rowKey: "1" }],
    ["update", { partitionKey: "p", rowKey: "2", w: 2 }, "Merge"],
  ]);
  await assert.rejects(t.getEntity("p", "1"), (e) => e.statusCode === 404);
  const two = await t.getEntity("p", "2");
  assert.equal(two.v, 2);
  assert.equal(two.w, 2);
  await t.deleteTable();
});

test("tables are listed, queried and their access policies kept", async () => {
  const service = TableServiceClient.fromConnectionString(connectionString, options);
  for (const name of ["jslistone", "jslisttwo", "otherjs"]) {
    await service.createTable(name);
  }
  const listed = [];
  for await (const table of service.listTables({ queryOptions: { filter: odata`TableName ge ${"jslist"} and TableName lt ${"jslisu"}` } })) {
    listed.push(table.name);
  }
  assert.deepEqual(listed, ["jslistone", "jslisttwo"]);
  const t = client("jslistone");
  const start = new Date("2026-01-01T00:00:00Z");
  const expiry = new Date("2027-01-01T00:00:00Z");
  await t.setAccessPolicy([{ id: "reader", accessPolicy: { permission: "r", start, expiry } }]);
  const acl = await t.getAccessPolicy();
  assert.equal(acl.length, 1);
  assert.equal(acl[0].id, "reader");
  assert.equal(acl[0].accessPolicy.permission, "r");
  assert.equal(new Date(acl[0].accessPolicy.start).toISOString(), start.toISOString());
  const props = await service.getProperties();
  assert.ok(props.hourMetrics && props.logging, "service properties answered");
  for (const name of ["jslistone", "jslisttwo", "otherjs"]) {
    await service.deleteTable(name);
  }
});
