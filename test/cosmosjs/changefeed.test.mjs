// The change feed pull model of @azure/cosmos against cerulean: from the
// beginning, now, a point in time and a continuation token; per feed
// range and per partition key; latest version and all versions and
// deletes. js_test.go starts the server and sets the endpoint.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { ChangeFeedStartFrom, ChangeFeedMode, ChangeFeedPolicy, ChangeFeedRetentionTimeSpan, StatusCodes } from "@azure/cosmos";
import { endpoint, newClient } from "./emulator.mjs";

const client = newClient();
let database;

before(async () => {
  assert.ok(endpoint, "CERULEAN_COSMOS_ENDPOINT must be set");
  ({ database } = await client.databases.createIfNotExists({ id: "cfdb" }));
});

async function newContainer(id, extra = {}) {
  const { container } = await database.containers.createIfNotExists({ id, partitionKey: { paths: ["/pk"] }, ...extra });
  return container;
}

// drain reads an iterator until it reports 304 and returns the items and
// the last continuation token.
async function drain(iterator, maxItemCount) {
  const items = [];
  let token;
  for (let i = 0; i < 100; i++) {
    const res = await iterator.readNext();
    token = res.continuationToken;
    assert.ok(token, "every page carries a continuation token");
    if (res.statusCode === StatusCodes.NotModified) {
      assert.equal(res.result.length, 0);
      return { items, token };
    }
    assert.equal(res.statusCode, StatusCodes.Ok);
    if (maxItemCount) assert.ok(res.result.length <= maxItemCount, `page of ${res.result.length}`);
    items.push(...res.result);
  }
  assert.fail("change feed never drained");
}

test("latest version from the beginning, paged, then resumed from the continuation", async () => {
  const c = await newContainer("cf-latest");
  for (let i = 0; i < 5; i++) await c.items.upsert({ id: `a${i}`, pk: `p${i % 2}`, n: i });
  await c.items.upsert({ id: "a1", pk: "p1", n: 10 });
  await c.item("a4", "p0").delete();

  const it = c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(), maxItemCount: 2 });
  const first = await drain(it, 2);
  assert.deepEqual(first.items.map((d) => d.id), ["a0", "a2", "a3", "a1"]);
  assert.equal(first.items[3].n, 10, "only the latest version");
  assert.ok(first.items.every((d) => d._lsn > 0 && d._etag));

  await c.items.upsert({ id: "b0", pk: "p0", n: 20 });
  const resumed = c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Continuation(first.token) });
  const next = await drain(resumed);
  assert.deepEqual(next.items.map((d) => d.id), ["b0"]);
});

test("per partition key, per feed range, from now and from a time", async () => {
  const c = await newContainer("cf-scope");
  for (let i = 0; i < 6; i++) await c.items.upsert({ id: `x${i}`, pk: `p${i % 3}`, n: i });

  const byKey = await drain(c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning("p1") }));
  assert.deepEqual(byKey.items.map((d) => d.id), ["x1", "x4"]);

  const ranges = await c.getFeedRanges();
  assert.equal(ranges.length, 1);
  const byRange = await drain(c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(ranges[0]) }));
  assert.equal(byRange.items.length, 6);

  const nowIt = c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Now() });
  const empty = await drain(nowIt);
  assert.equal(empty.items.length, 0);
  await c.items.upsert({ id: "y", pk: "p2", n: 1 });
  const after = await drain(nowIt);
  assert.deepEqual(after.items.map((d) => d.id), ["y"]);

  const future = new Date(Date.now() + 60_000);
  const fromFuture = await drain(c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Time(future) }));
  assert.equal(fromFuture.items.length, 0);
  const past = new Date(Date.now() - 60_000);
  const fromPast = await drain(c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Time(past) }));
  assert.equal(fromPast.items.length, 7);
});

// All versions and deletes are kept for a container whose change feed
// policy sets a retention, as the SDK sets it.
test("all versions and deletes", async () => {
  const c = await newContainer("cf-avad", {
    changeFeedPolicy: new ChangeFeedPolicy(ChangeFeedRetentionTimeSpan.fromMinutes(5)),
  });
  const { resource: def } = await c.read();
  assert.deepEqual(def.changeFeedPolicy, { retentionDuration: 5 });
  const it = c.items.getChangeFeedIterator({
    changeFeedStartFrom: ChangeFeedStartFrom.Now(),
    changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes,
  });
  assert.equal((await drain(it)).items.length, 0);
  await c.items.create({ id: "d", pk: "p", n: 1 });
  await c.items.upsert({ id: "d", pk: "p", n: 2 });
  await c.item("d", "p").delete();
  const { items } = await drain(it);
  assert.deepEqual(items.map((e) => e.metadata.operationType), ["create", "replace", "delete"]);
  assert.equal(items[0].current.n, 1);
  assert.equal(items[1].current.n, 2);
  assert.equal(items[2].current, undefined);
  assert.deepEqual([items[2].previous.id, items[2].previous.pk], ["d", "p"]);
  assert.equal(items[2].metadata.timeToLiveExpired, false);
  const lsns = items.map((e) => e.metadata.lsn);
  assert.ok(lsns[0] < lsns[1] && lsns[1] < lsns[2], `LSNs in commit order: ${lsns}`);
});

// A container created without a change feed policy serves all versions
// and deletes too, as Azure does on an account with continuous backup:
// Microsoft's live test of the Python SDK
// (test_query_change_feed_with_all_versions_and_deletes) sets a policy
// only against the emulator.
test("all versions and deletes without a change feed policy", async () => {
  const c = await newContainer("cf-avad-default");
  const { resource: def } = await c.read();
  assert.equal(def.changeFeedPolicy, undefined);
  const it = c.items.getChangeFeedIterator({
    changeFeedStartFrom: ChangeFeedStartFrom.Now(),
    changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes,
  });
  assert.equal((await drain(it)).items.length, 0);
  await c.items.create({ id: "d", pk: "p", n: 1 });
  for (let n = 2; n <= 40; n++) await c.items.upsert({ id: "d", pk: "p", n });
  await c.item("d", "p").delete();
  const { items } = await drain(it);
  assert.equal(items.length, 41);
  assert.deepEqual(items.map((e) => e.current?.n ?? "deleted"), [...Array.from({ length: 40 }, (_, i) => i + 1), "deleted"]);
  assert.equal(items[40].metadata.operationType, "delete");
});

// All versions and deletes have no beginning: Azure answers a request
// for them without a continuation (ChangeFeedStartFrom.Beginning, whole
// container, a feed range or a partition key) 400 "You must read the
// change feed from within the retention period.", with or without a
// change feed policy — the "startFromBeginning is not supported" cases of
// @azure/cosmos's live tests (test/public/integration/changeFeedIterator.spec.ts).
test("all versions and deletes from the beginning is refused (400)", async () => {
  const withPolicy = await newContainer("cf-avad-begin", {
    changeFeedPolicy: new ChangeFeedPolicy(ChangeFeedRetentionTimeSpan.fromMinutes(5)),
  });
  const withoutPolicy = await newContainer("cf-avad-begin-default");
  for (const c of [withPolicy, withoutPolicy]) {
    await c.items.create({ id: "b", pk: "p" });
    const ranges = await c.getFeedRanges();
    for (const start of [ChangeFeedStartFrom.Beginning(), ChangeFeedStartFrom.Beginning(ranges[0]), ChangeFeedStartFrom.Beginning("p")]) {
      const it = c.items.getChangeFeedIterator({ changeFeedStartFrom: start, changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes });
      await assert.rejects(it.readNext(), (err) => {
        assert.equal(err.code, StatusCodes.BadRequest);
        assert.ok(err.message.includes("You must read the change feed from within the retention period."), err.message);
        return true;
      });
    }
    // The same container's latest-version feed from the beginning is served.
    const { items } = await drain(c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() }));
    assert.deepEqual(items.map((i) => i.id), ["b"]);
  }
});

// A counter replaced many times in a default container: the latest-version
// feed has it once, at its last version, and a reader that resumes from
// an old continuation gets that one change, not the history.
test("a hot item's history does not pile up in the latest-version feed", async () => {
  const c = await newContainer("cf-hot");
  const it = c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() });
  await drain(it);
  for (let n = 1; n <= 300; n++) await c.items.upsert({ id: "counter", pk: "p", n });
  const { items } = await drain(it);
  assert.equal(items.length, 1);
  assert.equal(items[0].n, 300);
});
