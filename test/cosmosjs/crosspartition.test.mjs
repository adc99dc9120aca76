// Cross-partition queries through @azure/cosmos: the SDK first sends the
// query to the gateway, which refuses what needs state across partitions
// (400, sub-status 1004, the plan in additionalErrorInfo); the SDK then
// runs it through the query plan. Every query shape must come back whole
// and right, as well as the query metrics the SDK asks for.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { endpoint, newClient } from "./emulator.mjs";

const client = newClient();
let container;

before(async () => {
  assert.ok(endpoint, "CERULEAN_COSMOS_ENDPOINT must be set");
  const { database } = await client.databases.createIfNotExists({ id: "jsxp" });
  ({ container } = await database.containers.createIfNotExists({ id: "xp", partitionKey: { paths: ["/pk"] } }));
  for (let i = 0; i < 20; i++) {
    await container.items.upsert({ id: `i${i}`, pk: `p${i % 5}`, n: i, grp: i % 3 });
  }
});

async function all(query, options = {}) {
  const { resources } = await container.items.query(query, { maxItemCount: 3, ...options }).fetchAll();
  return resources;
}

test("ORDER BY across partitions, paged", async () => {
  const rows = await all("SELECT c.id, c.n FROM c ORDER BY c.n DESC");
  assert.deepEqual(
    rows.map((r) => r.n),
    Array.from({ length: 20 }, (_, i) => 19 - i),
  );
});

test("aggregates across partitions", async () => {
  assert.deepEqual(await all("SELECT VALUE COUNT(1) FROM c"), [20]);
  assert.deepEqual(await all("SELECT VALUE SUM(c.n) FROM c"), [190]);
  assert.deepEqual(await all("SELECT VALUE MAX(c.n) FROM c WHERE c.grp = 1"), [19]);
  assert.deepEqual(await all("SELECT VALUE AVG(c.n) FROM c"), [9.5]);
});

test("DISTINCT across partitions", async () => {
  const vals = await all("SELECT DISTINCT VALUE c.grp FROM c");
  assert.deepEqual([...vals].sort(), [0, 1, 2]);
});

test("GROUP BY across partitions", async () => {
  const rows = await all("SELECT c.grp, COUNT(1) AS cnt FROM c GROUP BY c.grp");
  assert.deepEqual(
    rows.sort((a, b) => a.grp - b.grp),
    [
      { grp: 0, cnt: 7 },
      { grp: 1, cnt: 7 },
      { grp: 2, cnt: 6 },
    ],
  );
});

test("OFFSET / LIMIT and TOP across partitions", async () => {
  const page = await all("SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 5 LIMIT 4");
  assert.deepEqual(page, [5, 6, 7, 8]);
  const top = await all("SELECT TOP 3 VALUE c.n FROM c ORDER BY c.n DESC");
  assert.deepEqual(top, [19, 18, 17]);
});

test("query metrics when asked", async () => {
  const res = await container.items
    .query("SELECT * FROM c WHERE c.pk = 'p1'", { populateQueryMetrics: true, partitionKey: "p1" })
    .fetchNext();
  assert.equal(res.resources.length, 4);
  // The SDK parses the header into QueryMetrics, per partition key range.
  const metrics = res.headers["x-ms-documentdb-query-metrics"];
  assert.ok(metrics, "x-ms-documentdb-query-metrics");
  const m = Object.values(metrics)[0];
  assert.equal(m.retrievedDocumentCount, 4);
  assert.equal(m.outputDocumentCount, 4);
  assert.ok(m.outputDocumentSize > 0);
});
