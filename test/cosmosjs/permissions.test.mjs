// Users, permissions and resource tokens through @azure/cosmos: a client
// holding only a permission's token can do exactly what the permission
// grants (Read or All, on its resource and what lies under it, within its
// partition key when it names one) and gets 403 beyond it.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { CosmosClient, PermissionMode } from "@azure/cosmos";
import { endpoint, connectionPolicy, newClient } from "./emulator.mjs";

const admin = newClient();
let database, items, other, user;

before(async () => {
  assert.ok(endpoint, "CERULEAN_COSMOS_ENDPOINT must be set");
  ({ database } = await admin.databases.createIfNotExists({ id: "permdb" }));
  ({ container: items } = await database.containers.createIfNotExists({ id: "items", partitionKey: { paths: ["/pk"] } }));
  ({ container: other } = await database.containers.createIfNotExists({ id: "other", partitionKey: { paths: ["/pk"] } }));
  await items.items.upsert({ id: "seed", pk: "a", n: 1 });
  await items.items.upsert({ id: "seed", pk: "b", n: 2 });
  await other.items.upsert({ id: "secret", pk: "a" });
  ({ user } = await database.users.upsert({ id: "alice" }));
});

// tokenClient returns a client that holds only the token of a new
// permission on resource, and presents it for every request — for the
// other container and the database too — so that the server, not the
// SDK's token lookup, decides what it may do.
async function tokenClient(id, permissionMode, resource, resourcePartitionKey) {
  const def = { id, permissionMode, resource };
  if (resourcePartitionKey !== undefined) def.resourcePartitionKey = resourcePartitionKey;
  const { resource: perm, statusCode } = await user.permissions.upsert(def);
  assert.ok(statusCode === 201 || statusCode === 200, `permission upsert: ${statusCode}`);
  assert.match(perm._token, /^type=resource&ver=/);
  const t = perm._token;
  return new CosmosClient({ endpoint, resourceTokens: { [resource]: t, [other.url]: t, permdb: t }, connectionPolicy });
}

async function expectStatus(promise, code) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.code, code, `want ${code}, got ${err.code}: ${err.message}`);
    return true;
  });
}

test("users and permissions: create, read, list, replace, delete", async () => {
  const { resource: bob, statusCode } = await database.users.create({ id: "bob" });
  assert.equal(statusCode, 201);
  for (const k of ["_rid", "_self", "_etag", "_ts", "_permissions"]) assert.ok(bob[k] !== undefined, k);
  await expectStatus(database.users.create({ id: "bob" }), 409);
  const { resources: users } = await database.users.readAll().fetchAll();
  assert.deepEqual(users.map((u) => u.id).sort(), ["alice", "bob"]);

  const bobUser = database.user("bob");
  const { resource: p } = await bobUser.permissions.create({ id: "read-items", permissionMode: PermissionMode.Read, resource: items.url });
  assert.equal(p.resource, items.url);
  assert.ok(p._token && p._rid && p._self.includes("/permissions/"), JSON.stringify(p));
  const { resource: read } = await bobUser.permission("read-items").read();
  assert.equal(read._rid, p._rid);
  const { resources: perms } = await bobUser.permissions.readAll().fetchAll();
  assert.equal(perms.length, 1);
  const { resource: replaced } = await bobUser.permission("read-items").replace({ id: "read-items", permissionMode: PermissionMode.All, resource: items.url });
  assert.equal(replaced.permissionMode.toLowerCase(), "all");
  assert.notEqual(replaced._etag, p._etag);
  await expectStatus(bobUser.permissions.create({ id: "bad", permissionMode: "Write", resource: items.url }), 400);

  // Deleting the user takes its permissions, and their tokens stop working.
  const holder = new CosmosClient({ endpoint, resourceTokens: { [items.url]: replaced._token }, connectionPolicy });
  await holder.database("permdb").container("items").item("seed", "a").read();
  assert.equal((await bobUser.delete()).statusCode, 204);
  await expectStatus(holder.database("permdb").container("items").item("seed", "a").read(), 401);
  const missing = await bobUser.read().catch((e) => e);
  assert.equal(missing.code, 404);
});

test("a Read token reads its container and nothing else", async () => {
  const c = await tokenClient("read-items", PermissionMode.Read, items.url);
  const ci = c.database("permdb").container("items");
  const { resource } = await ci.item("seed", "a").read();
  assert.equal(resource.n, 1);
  const { resources } = await ci.items.query("SELECT * FROM c WHERE c.id = 'seed'").fetchAll();
  assert.equal(resources.length, 2);
  await expectStatus(ci.items.create({ id: "new", pk: "a" }), 403);
  await expectStatus(ci.item("seed", "a").delete(), 403);
  await expectStatus(c.database("permdb").container("other").item("secret", "a").read(), 403);
  await expectStatus(c.database("permdb").read(), 403);
});

test("an All token writes within its container, and only there", async () => {
  const c = await tokenClient("all-items", PermissionMode.All, items.url);
  const ci = c.database("permdb").container("items");
  const { statusCode } = await ci.items.create({ id: "by-token", pk: "a" });
  assert.equal(statusCode, 201);
  await ci.item("by-token", "a").replace({ id: "by-token", pk: "a", v: 2 });
  assert.equal((await ci.item("by-token", "a").delete()).statusCode, 204);
  await expectStatus(c.database("permdb").container("other").items.create({ id: "x", pk: "a" }), 403);
  await expectStatus(c.database("permdb").containers.create({ id: "made-by-token" }), 403);
});

test("a token scoped to a partition key stays in that partition", async () => {
  const c = await tokenClient("items-a", PermissionMode.All, items.url, ["a"]);
  const ci = c.database("permdb").container("items");
  const { resource } = await ci.item("seed", "a").read();
  assert.equal(resource.n, 1);
  await ci.items.upsert({ id: "in-a", pk: "a" });
  await expectStatus(ci.item("seed", "b").read(), 403);
  await expectStatus(ci.items.create({ id: "in-b", pk: "b" }), 403);
});

test("a token on one item reaches that item only", async () => {
  const itemLink = `${items.url}/docs/seed`;
  const { resource: perm } = await user.permissions.upsert({ id: "one-item", permissionMode: PermissionMode.Read, resource: itemLink, resourcePartitionKey: ["a"] });
  const c = new CosmosClient({ endpoint, resourceTokens: { [itemLink]: perm._token }, connectionPolicy });
  const ci = c.database("permdb").container("items");
  const { resource } = await ci.item("seed", "a").read();
  assert.equal(resource.id, "seed");
  await expectStatus(ci.item("seed", "a").replace({ id: "seed", pk: "a", n: 5 }), 403);
});
