// Conformance tests of cerulean's server-side JavaScript (stored procedures,
// pre/post triggers, user-defined functions) through @azure/cosmos. The
// scripts are the samples of Microsoft's "how to write stored procedures,
// triggers and UDFs" documentation, or close to them. The endpoint comes from
// CERULEAN_COSMOS_ENDPOINT (js_test.go starts a server and sets it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { TriggerOperation, TriggerType } from "@azure/cosmos";
import { endpoint, newClient } from "./emulator.mjs";

const client = newClient();

// Each test gets a database of its own with one container partitioned on
// /pk, deleted when the test ends.
async function freshContainer(t, name) {
  assert.ok(endpoint, "CERULEAN_COSMOS_ENDPOINT must be set");
  const dbId = `scripts-${name}-${randomUUID().slice(0, 8)}`;
  const { database } = await client.databases.create({ id: dbId });
  t.after(() => database.delete().catch(() => {}));
  const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
  return container;
}

async function expectStatus(promise, code) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.code, code, `want ${code}, got ${err.code}: ${err.message}`);
    return true;
  });
}

async function countIn(container, pk) {
  const { resources } = await container.items
    .query("SELECT VALUE COUNT(1) FROM c", { partitionKey: pk })
    .fetchAll();
  return resources[0];
}

function scriptLog(headers) {
  const raw = headers["x-ms-documentdb-script-log-results"];
  return raw === undefined ? undefined : decodeURIComponent(raw);
}

// ---- the scripts ----------------------------------------------------------

const helloWorld = `function helloWorld() {
    var context = getContext();
    var response = context.getResponse();
    response.setBody("Hello, World");
}`;

// The counter: read the counter item, add one, write it back.
const incrementCounter = `function incrementCounter(id) {
    var collection = getContext().getCollection();
    var accepted = collection.readDocument(collection.getAltLink() + "/docs/" + id, function (err, doc) {
        if (err) throw err;
        doc.n += 1;
        var ok = collection.replaceDocument(doc._self, doc, function (err2, updated) {
            if (err2) throw err2;
            getContext().getResponse().setBody(updated.n);
        });
        if (!ok) throw new Error("replace was not accepted");
    });
    if (!accepted) throw new Error("read was not accepted");
}`;

// Creates n items, then fails: the whole execution is one transaction.
const createThenThrow = `function createThenThrow(pk, n) {
    var collection = getContext().getCollection();
    var created = 0;
    function next() {
        if (created === n) throw new Error("giving up after " + created + " creates");
        var ok = collection.createDocument(collection.getSelfLink(), { id: "t" + created, pk: pk }, function (err) {
            if (err) throw err;
            created++;
            next();
        });
        if (!ok) throw new Error("create was not accepted");
    }
    next();
}`;

// Replaces an item with the etag given; reports what the callback saw.
const replaceWithEtagReport = `function replaceWithEtagReport(id, etag) {
    var collection = getContext().getCollection();
    var response = getContext().getResponse();
    collection.readDocument(collection.getAltLink() + "/docs/" + id, {}, function (err, doc) {
        if (err) throw err;
        doc.v = "from the sproc";
        var ok = collection.replaceDocument(doc._self, doc, { etag: etag }, function (err2, updated) {
            if (err2) {
                response.setBody({ failed: true, number: err2.number });
                return;
            }
            response.setBody({ failed: false, v: updated.v });
        });
        if (!ok) throw new Error("replace was not accepted");
    });
}`;

// Upserts {id, pk, v} with the etag given and reports what happened.
const upsertWithEtagReport = `function upsertWithEtagReport(id, pk, v, etag) {
    var collection = getContext().getCollection();
    var response = getContext().getResponse();
    var ok = collection.upsertDocument(collection.getSelfLink(), { id: id, pk: pk, v: v }, { etag: etag }, function (err, doc) {
        if (err) {
            response.setBody({ failed: true, number: err.number });
            return;
        }
        response.setBody({ failed: false, v: doc.v });
    });
    if (!ok) throw new Error("upsert was not accepted");
}`;

// Writes two things, then replaces with the etag given and rethrows any error.
const replaceWithEtagRethrow = `function replaceWithEtagRethrow(id, etag, pk) {
    var collection = getContext().getCollection();
    collection.createDocument(collection.getSelfLink(), { id: "side-effect", pk: pk }, function (err) {
        if (err) throw err;
        collection.readDocument(collection.getAltLink() + "/docs/" + id, {}, function (err2, doc) {
            if (err2) throw err2;
            doc.v = "first write";
            collection.replaceDocument(doc._self, doc, function (err3, updated) {
                if (err3) throw err3;
                updated.v = "second write";
                collection.replaceDocument(updated._self, updated, { etag: etag }, function (err4) {
                    if (err4) throw err4;
                });
            });
        });
    });
}`;

// Microsoft's post-trigger sample: keep a metadata item up to date.
const updateMetadata = `function updateMetadata() {
    var context = getContext();
    var container = context.getCollection();
    var response = context.getResponse();

    // item that was created
    var createdItem = response.getBody();

    // query for metadata document
    var filterQuery = 'SELECT * FROM root r WHERE r.id = "_metadata"';
    var accept = container.queryDocuments(container.getSelfLink(), filterQuery, updateMetadataCallback);
    if (!accept) throw "Unable to update metadata, abort";

    function updateMetadataCallback(err, items, responseOptions) {
        if (err) throw new Error("Error" + err.message);
        if (items.length != 1) throw "Unable to find metadata document";

        var metadataItem = items[0];

        // update metadata
        metadataItem.createdItems += 1;
        metadataItem.createdNames += " " + createdItem.id;
        var accept = container.replaceDocument(metadataItem._self, metadataItem, function (err, itemReplaced) {
            if (err) throw "Unable to update metadata, abort";
        });
        if (!accept) throw "Unable to update metadata, abort";
        return;
    }
}`;

const rejectAfterCreate = `function rejectAfterCreate() {
    throw new Error("post-trigger says no");
}`;

// Counts the created item like updateMetadata, then fails: the count goes
// with the create.
const countThenReject = `function countThenReject() {
    var container = getContext().getCollection();
    container.queryDocuments(container.getSelfLink(), 'SELECT * FROM root r WHERE r.id = "_metadata"', function (err, items) {
        if (err) throw err;
        var meta = items[0];
        meta.createdItems += 1;
        container.replaceDocument(meta._self, meta, function (err2) {
            if (err2) throw err2;
            throw new Error("counted, but no");
        });
    });
}`;

// Microsoft's pre-trigger sample: stamp a timestamp when the item has none.
const validateToDoItemTimestamp = `function validateToDoItemTimestamp() {
    var context = getContext();
    var request = context.getRequest();

    // item to be created in the current operation
    var itemToCreate = request.getBody();

    // validate properties
    if (!("timestamp" in itemToCreate)) {
        var ts = new Date();
        itemToCreate["timestamp"] = ts.getTime();
    }

    // update the item that will be created
    request.setBody(itemToCreate);
}`;

const stampCreatedBy = `function stampCreatedBy() {
    var request = getContext().getRequest();
    var item = request.getBody();
    if (!item.name) throw new Error("an item needs a name");
    item.createdBy = "trigger";
    request.setBody(item);
}`;

// Microsoft's UDF sample.
const tax = `function tax(income) {
    if (income == undefined)
        throw 'no input';

    if (income < 1000)
        return income * 0.1;
    else if (income < 10000)
        return income * 0.2;
    else
        return income * 0.4;
}`;

const spin = `function spin() {
    while (true) {}
}`;

// Microsoft's bulk import sample: create items until the server stops
// accepting, then tell the client how far it got.
const bulkImport = `function bulkImport(items) {
    var container = getContext().getCollection();
    var containerLink = container.getSelfLink();

    // The count of imported items, also used as current item index.
    var count = 0;

    // Validate input.
    if (!items) throw new Error("The array is undefined or null.");

    var itemsLength = items.length;
    if (itemsLength == 0) {
        getContext().getResponse().setBody(0);
        return;
    }

    // Call the create API to create an item.
    tryCreate(items[count], callback);

    function tryCreate(item, callback) {
        var isAccepted = container.createDocument(containerLink, item, callback);
        if (!isAccepted) getContext().getResponse().setBody(count);
    }

    function callback(err, item, options) {
        if (err) throw err;
        count++;
        if (count >= itemsLength) {
            getContext().getResponse().setBody(count);
        } else {
            tryCreate(items[count], callback);
        }
    }
}`;

const logging = `function logging(name) {
    console.log("hello from the sproc");
    console.log("name: " + name);
    getContext().getResponse().setBody("done");
}`;

// ---- the tests ------------------------------------------------------------

test("script resources: create, read, replace with If-Match, delete, read feed, query, 409, 400", async (t) => {
  const container = await freshContainer(t, "resources");
  const s = container.scripts;

  const kinds = [
    {
      name: "stored procedure",
      list: s.storedProcedures,
      one: (id) => s.storedProcedure(id),
      def: { id: "hello", body: helloWorld },
      changed: { id: "hello", body: helloWorld.replace("Hello, World", "Hello again") },
    },
    {
      name: "trigger",
      list: s.triggers,
      one: (id) => s.trigger(id),
      def: { id: "stamp", body: stampCreatedBy, triggerType: TriggerType.Pre, triggerOperation: TriggerOperation.Create },
      changed: { id: "stamp", body: validateToDoItemTimestamp, triggerType: TriggerType.Pre, triggerOperation: TriggerOperation.All },
    },
    {
      name: "user-defined function",
      list: s.userDefinedFunctions,
      one: (id) => s.userDefinedFunction(id),
      def: { id: "tax", body: tax },
      changed: { id: "tax", body: tax.replace("0.4", "0.5") },
    },
  ];

  for (const k of kinds) {
    const created = await k.list.create({ ...k.def });
    assert.equal(created.statusCode, 201, k.name);
    const r = created.resource;
    assert.equal(r.id, k.def.id, k.name);
    assert.equal(r.body, k.def.body, k.name);
    for (const f of ["_rid", "_self", "_etag", "_ts"]) assert.ok(r[f] !== undefined, `${k.name}: ${f}`);
    if (k.def.triggerType) {
      assert.equal(String(r.triggerType).toLowerCase(), k.def.triggerType);
      assert.equal(String(r.triggerOperation).toLowerCase(), k.def.triggerOperation);
    }

    await expectStatus(k.list.create({ ...k.def }), 409);

    const read = await k.one(k.def.id).read();
    assert.equal(read.statusCode, 200, k.name);
    assert.equal(read.resource.body, k.def.body, k.name);
    assert.equal(read.resource._etag, r._etag, k.name);

    const replaced = await k
      .one(k.def.id)
      .replace({ ...k.changed }, { accessCondition: { type: "IfMatch", condition: r._etag } });
    assert.equal(replaced.statusCode, 200, k.name);
    assert.equal(replaced.resource.body, k.changed.body, k.name);
    assert.notEqual(replaced.resource._etag, r._etag, k.name);
    await expectStatus(
      k.one(k.def.id).replace({ ...k.def }, { accessCondition: { type: "IfMatch", condition: r._etag } }),
      412,
    );
    const after = await k.one(k.def.id).read();
    assert.equal(after.resource.body, k.changed.body, `${k.name}: a stale replace must change nothing`);
    if (k.changed.triggerOperation) {
      assert.equal(String(after.resource.triggerOperation).toLowerCase(), k.changed.triggerOperation);
    }

    await k.list.create({ ...k.def, id: `${k.def.id}2` });
    const { resources: all } = await k.list.readAll().fetchAll();
    assert.deepEqual(all.map((x) => x.id).sort(), [k.def.id, `${k.def.id}2`], k.name);

    const { resources: found } = await k.list
      .query({ query: "SELECT * FROM root r WHERE r.id = @id", parameters: [{ name: "@id", value: `${k.def.id}2` }] })
      .fetchAll();
    assert.deepEqual(
      found.map((x) => x.id),
      [`${k.def.id}2`],
      k.name,
    );

    const del = await k.one(k.def.id).delete();
    assert.equal(del.statusCode, 204, k.name);
    await expectStatus(k.one(k.def.id).read(), 404);
    await expectStatus(k.one(k.def.id).delete(), 404);
    const { resources: left } = await k.list.readAll().fetchAll();
    assert.deepEqual(left.map((x) => x.id), [`${k.def.id}2`], k.name);
  }

  await expectStatus(
    s.triggers.create({ id: "badType", body: stampCreatedBy, triggerType: "Sideways", triggerOperation: "Create" }),
    400,
  );
  await expectStatus(
    s.triggers.create({ id: "badOp", body: stampCreatedBy, triggerType: "Pre", triggerOperation: "Explode" }),
    400,
  );
  await expectStatus(s.trigger("badType").read(), 404);
  await expectStatus(s.trigger("badOp").read(), 404);

  const { resource: hello } = await s.storedProcedure("hello2").execute("any");
  assert.equal(hello, "Hello, World");
});

test("counter sproc: 16 clients x 50 executions end at exactly 800", async (t) => {
  const container = await freshContainer(t, "counter");
  await container.scripts.storedProcedures.create({ id: "incrementCounter", body: incrementCounter });
  await container.items.create({ id: "counter", pk: "c", n: 0 });
  const { database } = container;

  const clients = Array.from({ length: 16 }, () => newClient());
  t.after(() => clients.forEach((c) => c.dispose()));
  const seen = [];
  await Promise.all(
    clients.map(async (c) => {
      const sproc = c.database(database.id).container(container.id).scripts.storedProcedure("incrementCounter");
      for (let i = 0; i < 50; i++) {
        const { resource } = await sproc.execute("c", ["counter"]);
        seen.push(resource);
      }
    }),
  );
  const { resource: counter } = await container.item("counter", "c").read();
  assert.equal(counter.n, 800);
  // Every execution saw its own value: none read a value another had
  // already written over.
  assert.deepEqual(
    seen.sort((a, b) => a - b),
    Array.from({ length: 800 }, (_, i) => i + 1),
  );
});

test("a sproc that creates 100 items and then throws leaves none of them (400)", async (t) => {
  const container = await freshContainer(t, "rollback");
  await container.scripts.storedProcedures.create({ id: "createThenThrow", body: createThenThrow });
  await container.items.create({ id: "before", pk: "r" });
  await expectStatus(container.scripts.storedProcedure("createThenThrow").execute("r", ["r", 100]), 400);
  const { resources } = await container.items.query("SELECT VALUE c.id FROM c", { partitionKey: "r" }).fetchAll();
  assert.deepEqual(resources, ["before"]);
  const first = await container.item("t0", "r").read();
  assert.equal(first.statusCode, 404);
});

test("a sproc's stale etag replace gets 412 in its callback; rethrown, nothing it wrote survives", async (t) => {
  const container = await freshContainer(t, "etag");
  const s = container.scripts;
  await s.storedProcedures.create({ id: "report", body: replaceWithEtagReport });
  await s.storedProcedures.create({ id: "rethrow", body: replaceWithEtagRethrow });
  const { resource: v1 } = await container.items.create({ id: "x", pk: "e", v: "v1" });
  const { resource: v2 } = await container.item("x", "e").replace({ id: "x", pk: "e", v: "v2" });

  const { resource: saw } = await s.storedProcedure("report").execute("e", ["x", v1._etag]);
  assert.deepEqual(saw, { failed: true, number: 412 });
  const { resource: unchanged } = await container.item("x", "e").read();
  assert.equal(unchanged.v, "v2");
  assert.equal(unchanged._etag, v2._etag);

  // With the current etag the same sproc succeeds.
  const { resource: ok } = await s.storedProcedure("report").execute("e", ["x", v2._etag]);
  assert.deepEqual(ok, { failed: false, v: "from the sproc" });
  const { resource: v3 } = await container.item("x", "e").read();
  assert.equal(v3.v, "from the sproc");

  await assert.rejects(s.storedProcedure("rethrow").execute("e", ["x", v1._etag, "e"]), (err) => {
    assert.ok(typeof err.code === "number" && err.code >= 400 && err.code < 500, `status ${err.code}: ${err.message}`);
    return true;
  });
  const { resource: after } = await container.item("x", "e").read();
  assert.equal(after.v, "from the sproc", "the sproc's first replace must be undone");
  assert.equal(after._etag, v3._etag);
  const side = await container.item("side-effect", "e").read();
  assert.equal(side.statusCode, 404, "the sproc's create must be undone");
});

// upsertDocument follows the rule of an upsert request: with an etag it
// creates an item that does not exist and applies the etag to one that does
// (the .NET SDK documents IfMatchEtag as ignored when an upsert is
// "materialized as Create").
test("a sproc's upsertDocument with an etag creates a missing item; a stale etag on an existing one is 412", async (t) => {
  const container = await freshContainer(t, "upsert");
  const s = container.scripts;
  await s.storedProcedures.create({ id: "upsert", body: upsertWithEtagReport });
  const stale = '"00000000-0000-0000-0000-000000000000"';
  const { resource: created } = await s.storedProcedure("upsert").execute("u", ["y", "u", 1, stale]);
  assert.deepEqual(created, { failed: false, v: 1 });
  const { resource: v1 } = await container.item("y", "u").read();
  assert.equal(v1.v, 1);
  const { resource: refused } = await s.storedProcedure("upsert").execute("u", ["y", "u", 2, stale]);
  assert.deepEqual(refused, { failed: true, number: 412 });
  const { resource: replaced } = await s.storedProcedure("upsert").execute("u", ["y", "u", 3, v1._etag]);
  assert.deepEqual(replaced, { failed: false, v: 3 });
});

test("post-trigger keeps a per-partition count exact under 40 concurrent creates; a throwing one undoes the create", async (t) => {
  const container = await freshContainer(t, "post");
  await container.scripts.triggers.create({
    id: "updateMetadata",
    body: updateMetadata,
    // The REST API's spelling; the SDK's enums are lower case.
    triggerType: "Post",
    triggerOperation: "Create",
  });
  await container.scripts.triggers.create({
    id: "rejectAfterCreate",
    body: rejectAfterCreate,
    triggerType: TriggerType.Post,
    triggerOperation: TriggerOperation.All,
  });
  await container.scripts.triggers.create({
    id: "countThenReject",
    body: countThenReject,
    triggerType: TriggerType.Post,
    triggerOperation: TriggerOperation.Create,
  });
  await container.items.create({ id: "_metadata", pk: "m", createdItems: 0, createdNames: "" });
  await container.items.create({ id: "_metadata", pk: "other", createdItems: 0, createdNames: "" });

  const results = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      container.items.create({ id: `item${i}`, pk: "m" }, { postTriggerInclude: ["updateMetadata"] }),
    ),
  );
  for (const r of results) assert.equal(r.statusCode, 201);
  const { resource: meta } = await container.item("_metadata", "m").read();
  assert.equal(meta.createdItems, 40);
  const names = meta.createdNames.trim().split(" ").sort();
  assert.deepEqual(names, Array.from({ length: 40 }, (_, i) => `item${i}`).sort());
  const { resource: otherMeta } = await container.item("_metadata", "other").read();
  assert.equal(otherMeta.createdItems, 0, "the trigger only sees its own partition");

  // Triggers run only when asked for.
  await container.items.create({ id: "quiet", pk: "m" });
  const { resource: meta2 } = await container.item("_metadata", "m").read();
  assert.equal(meta2.createdItems, 40);

  await expectStatus(container.items.create({ id: "doomed", pk: "m" }, { postTriggerInclude: "rejectAfterCreate" }), 400);
  const doomed = await container.item("doomed", "m").read();
  assert.equal(doomed.statusCode, 404);
  await expectStatus(container.items.create({ id: "doomed2", pk: "m" }, { postTriggerInclude: "countThenReject" }), 400);
  const doomed2 = await container.item("doomed2", "m").read();
  assert.equal(doomed2.statusCode, 404);
  const { resource: meta3 } = await container.item("_metadata", "m").read();
  assert.equal(meta3.createdItems, 40, "the trigger's own write is undone with the create");
  assert.equal(meta3._etag, meta2._etag);
  assert.equal(await countIn(container, "m"), 42);
});

test("pre-trigger stamps and validates created items", async (t) => {
  const container = await freshContainer(t, "pre");
  await container.scripts.triggers.create({
    id: "validateToDoItemTimestamp",
    body: validateToDoItemTimestamp,
    triggerType: TriggerType.Pre,
    triggerOperation: TriggerOperation.Create,
  });
  await container.scripts.triggers.create({
    id: "stampCreatedBy",
    body: stampCreatedBy,
    triggerType: TriggerType.Pre,
    triggerOperation: TriggerOperation.All,
  });

  const start = Date.now();
  const { resource: a, statusCode } = await container.items.create(
    { id: "a", pk: "p", name: "a" },
    { preTriggerInclude: ["validateToDoItemTimestamp"] },
  );
  assert.equal(statusCode, 201);
  assert.equal(typeof a.timestamp, "number");
  assert.ok(Math.abs(a.timestamp - start) < 60_000, `timestamp ${a.timestamp} is not now (${start})`);
  const { resource: aRead } = await container.item("a", "p").read();
  assert.equal(aRead.timestamp, a.timestamp, "the stamp is stored, not only returned");

  // One trigger per operation, as Cosmos DB allows.
  const { resource: b } = await container.items.create(
    { id: "b", pk: "p", name: "b", timestamp: 7 },
    { preTriggerInclude: ["validateToDoItemTimestamp"] },
  );
  assert.equal(b.timestamp, 7);
  assert.equal(b.createdBy, undefined);

  const created = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      container.items.create({ id: `n${i}`, pk: "p", name: `n${i}` }, { preTriggerInclude: "stampCreatedBy" }),
    ),
  );
  for (const r of created) assert.equal(r.resource.createdBy, "trigger");
  const { resources: stamped } = await container.items
    .query("SELECT VALUE COUNT(1) FROM c WHERE c.createdBy = 'trigger'", { partitionKey: "p" })
    .fetchAll();
  assert.deepEqual(stamped, [10]);

  const { resource: plain } = await container.items.create({ id: "plain", pk: "p", name: "plain" });
  assert.equal(plain.createdBy, undefined, "triggers run only when asked for");
  assert.equal(plain.timestamp, undefined);

  await expectStatus(container.items.create({ id: "nameless", pk: "p" }, { preTriggerInclude: "stampCreatedBy" }), 400);
  const nameless = await container.item("nameless", "p").read();
  assert.equal(nameless.statusCode, 404);
});

test("UDF in SELECT and in WHERE", async (t) => {
  const container = await freshContainer(t, "udf");
  await container.scripts.userDefinedFunctions.create({ id: "tax", body: tax });
  const incomes = { low: 500, mid: 5000, high: 20000 };
  for (const [id, income] of Object.entries(incomes)) {
    await container.items.create({ id, pk: "u", income });
    await container.items.create({ id, pk: "v", income: income * 2 });
  }

  const { resources: selected } = await container.items
    .query("SELECT c.id, udf.tax(c.income) AS tax FROM c ORDER BY c.income", { partitionKey: "u" })
    .fetchAll();
  assert.deepEqual(selected, [
    { id: "low", tax: 50 },
    { id: "mid", tax: 1000 },
    { id: "high", tax: 8000 },
  ]);

  const { resources: filtered } = await container.items
    .query(
      { query: "SELECT VALUE c.id FROM c WHERE udf.tax(c.income) >= @min", parameters: [{ name: "@min", value: 1000 }] },
      { partitionKey: "u" },
    )
    .fetchAll();
  assert.deepEqual(filtered.sort(), ["high", "mid"]);

  const { resources: across } = await container.items
    .query("SELECT c.pk, c.id FROM c WHERE udf.tax(c.income) > 1000")
    .fetchAll();
  assert.deepEqual(across.map((r) => `${r.pk}/${r.id}`).sort(), ["u/high", "v/high", "v/mid"]);

  await assert.rejects(
    container.items.query("SELECT VALUE udf.nosuch(c.income) FROM c", { partitionKey: "u" }).fetchAll(),
    (err) => {
      assert.equal(err.code, 400, `status ${err.code}: ${err.message}`);
      return true;
    },
  );
});

test("an infinite loop in a sproc is stopped (408) while other requests are served", async (t) => {
  const container = await freshContainer(t, "loop");
  await container.scripts.storedProcedures.create({ id: "spin", body: spin });
  await container.items.create({ id: "same", pk: "l" });
  await container.items.create({ id: "elsewhere", pk: "other" });

  const start = Date.now();
  let finished = 0;
  const looping = container.scripts
    .storedProcedure("spin")
    .execute("l")
    .then(
      (r) => ({ ok: r }),
      (err) => ({ err }),
    )
    .finally(() => {
      finished = Date.now();
    });

  // While it spins, reads elsewhere and in the same partition, and a write
  // elsewhere, are answered.
  await new Promise((r) => setTimeout(r, 500));
  const timings = [];
  for (const [id, pk] of [
    ["elsewhere", "other"],
    ["same", "l"],
  ]) {
    const t0 = Date.now();
    const { statusCode } = await container.item(id, pk).read();
    timings.push({ what: `read ${pk}/${id}`, statusCode, took: Date.now() - t0, overlapped: finished === 0 });
  }
  {
    const t0 = Date.now();
    const { statusCode } = await container.items.create({ id: "written", pk: "other" });
    timings.push({ what: "create other/written", statusCode, took: Date.now() - t0, overlapped: finished === 0 });
  }

  const outcome = await looping;
  const elapsed = Date.now() - start;
  assert.ok(outcome.err, `the looping sproc must fail, it returned ${JSON.stringify(outcome.ok?.resource)}`);
  assert.equal(outcome.err.code, 408, `status ${outcome.err.code}: ${outcome.err.message}`);
  assert.ok(elapsed < 15_000, `stopped after ${elapsed} ms`);
  for (const x of timings) {
    assert.ok(x.statusCode === 200 || x.statusCode === 201, `${x.what}: ${x.statusCode}`);
    assert.ok(x.took < 2000, `${x.what} took ${x.took} ms during the loop`);
    assert.ok(x.overlapped, `the loop ended (after ${finished - start} ms) before ${x.what} finished`);
  }

  const { resource } = await container.item("same", "l").read();
  assert.equal(resource.id, "same");
});

test("bulk import sproc, resumed at the returned count, imports 10,000 items exactly once", async (t) => {
  const container = await freshContainer(t, "bulk");
  await container.scripts.storedProcedures.create({ id: "bulkImport", body: bulkImport });
  const total = 10_000;
  // Sent whole (well under the 2 MB request limit), 10,000 writes are more
  // than one execution's transaction may take: the server stops accepting
  // part-way and the import must resume.
  const items = Array.from({ length: total }, (_, i) => ({ id: `b${String(i).padStart(5, "0")}`, pk: "bulk", i }));

  let done = 0;
  let calls = 0;
  const sproc = container.scripts.storedProcedure("bulkImport");
  while (done < total) {
    // The whole rest each time: the server stops the import part-way and
    // the next call resumes where it stopped.
    const { resource: count } = await sproc.execute("bulk", [items.slice(done)]);
    calls++;
    assert.equal(typeof count, "number", `call ${calls} returned ${JSON.stringify(count)}`);
    assert.ok(count > 0, `call ${calls} made no progress`);
    done += count;
    assert.ok(calls < 1000, "too many calls");
  }
  assert.equal(done, total);
  assert.ok(calls > 1, "the server never stopped accepting, so resuming was not tested");

  assert.equal(await countIn(container, "bulk"), total);
  const { resources: stats } = await container.items
    .query("SELECT COUNT(1) AS n, MIN(c.i) AS lo, MAX(c.i) AS hi, SUM(c.i) AS s FROM c", { partitionKey: "bulk" })
    .fetchAll();
  assert.deepEqual(stats, [{ n: total, lo: 0, hi: total - 1, s: (total * (total - 1)) / 2 }]);

  // Importing an item that exists fails the call, and nothing of it stays.
  await assert.rejects(sproc.execute("bulk", [[{ id: "fresh", pk: "bulk" }, items[0]]]), (err) => {
    assert.ok(typeof err.code === "number" && err.code >= 400 && err.code < 500, `status ${err.code}: ${err.message}`);
    return true;
  });
  const fresh = await container.item("fresh", "bulk").read();
  assert.equal(fresh.statusCode, 404);
});

test("script logging: console.log output in x-ms-documentdb-script-log-results", async (t) => {
  const container = await freshContainer(t, "log");
  await container.scripts.storedProcedures.create({ id: "logging", body: logging });
  const sproc = container.scripts.storedProcedure("logging");

  const withLog = await sproc.execute("g", ["Ada Lovelace"], { enableScriptLogging: true });
  assert.equal(withLog.resource, "done");
  const log = scriptLog(withLog.headers);
  assert.ok(log !== undefined, `no script log header in ${JSON.stringify(Object.keys(withLog.headers))}`);
  assert.ok(log.includes("hello from the sproc"), log);
  assert.ok(log.includes("name: Ada Lovelace"), log);
  assert.ok(log.indexOf("hello from the sproc") < log.indexOf("name: Ada Lovelace"), log);

  const withoutLog = await sproc.execute("g", ["Ada Lovelace"]);
  assert.equal(withoutLog.resource, "done");
  assert.equal(scriptLog(withoutLog.headers), undefined, "no log unless asked for");
});

// The script API members the SDK's own stored procedure tests
// (test/public/functional/sproc.spec.ts, run against Azure) use, with the
// results they check there.
test("the SDK's sproc tests: getBody/setBody, appendValue, parameters, queries by partition key value", async (t) => {
  const container = await freshContainer(t, "sdkapi");
  const s = container.scripts;
  await s.storedProcedures.create({
    id: "sproc1",
    body: function () {
      for (let i = 0; i < 1000; i++) {
        const item = getContext().getResponse().getBody();
        if (i > 0 && item !== i - 1) throw "body mismatch";
        getContext().getResponse().setBody(i);
      }
    },
  });
  assert.equal((await s.storedProcedure("sproc1").execute(undefined)).resource, 999);
  await s.storedProcedures.create({
    id: "sproc2",
    body: function () {
      for (let i = 0; i < 10; i++) getContext().getResponse().appendValue("Body", i);
    },
  });
  const { resource: appended } = await s.storedProcedure("sproc2").execute(undefined);
  assert.equal(appended, "0123456789");
  await s.storedProcedures.create({
    id: "sproc3",
    body: function (input) {
      getContext().getResponse().setBody("a" + input.temp);
    },
  });
  assert.equal((await s.storedProcedure("sproc3").execute(undefined, [{ temp: "so" }])).resource, "aso");

  // A container partitioned on /key, items with partition key values of
  // every kind; the query sproc sees only its partition's.
  const { container: keyed } = await container.database.containers.create({ id: "coll1", partitionKey: { paths: ["/key"] } });
  const documents = [
    { id: "document1" },
    { id: "document2", key: null, prop: 1 },
    { id: "document3", key: false, prop: 1 },
    { id: "document4", key: true, prop: 1 },
    { id: "document5", key: 1, prop: 1 },
    { id: "document6", key: "A", prop: 1 },
  ];
  for (const d of documents) await keyed.items.create(d);
  await keyed.scripts.storedProcedures.create({
    id: "querySproc",
    body: function () {
      const context = getContext();
      const container2 = context.getCollection();
      const response = context.getResponse();
      const accept = container2.queryDocuments(container2.getSelfLink(), "SELECT r.id, r.key, r.prop FROM r", {}, function (err, docs) {
        if (err) throw new Error("Error" + err.message);
        response.setBody(docs);
      });
      if (!accept) throw "Unable to read player details, abort ";
    },
  });
  const { resource: nullKey } = await keyed.scripts.storedProcedure("querySproc").execute(null, []);
  assert.deepEqual(nullKey, [documents[1]]);
  const { resource: oneKey } = await keyed.scripts.storedProcedure("querySproc").execute(1, null);
  assert.deepEqual(oneKey, [documents[4]]);
});

test("a script with a syntax error is refused when created or replaced (400)", async (t) => {
  const container = await freshContainer(t, "syntax");
  const s = container.scripts;
  await expectStatus(s.storedProcedures.create({ id: "bad", body: "function bad( { getContext()" }), 400);
  await expectStatus(s.userDefinedFunctions.create({ id: "bad", body: "function (x) { return x +; }" }), 400);
  await expectStatus(
    s.triggers.create({ id: "bad", body: "function () { var }", triggerType: TriggerType.Pre, triggerOperation: TriggerOperation.All }),
    400,
  );
  const { resource: good } = await s.storedProcedures.create({ id: "good", body: "function () { const x = 10; }" });
  await expectStatus(s.storedProcedure("good").replace({ ...good, body: "function () { const x = ; }" }), 400);
  const { resource: still } = await s.storedProcedure("good").read();
  assert.equal(still.body, "function () { const x = 10; }");
});
