// Blob flows through @azure/storage-blob where the JavaScript SDK differs
// from the Go one: the batch body it writes and parses (BlobBatchClient),
// tags and Find Blobs by Tags, sealing an append blob, transactional MD5
// and CRC64 headers, and SAS response-header overrides. The connection
// string comes from CERULEAN_CONNECTION_STRING (js_test.go starts a server
// and sets it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { BlobClient, BlobSASPermissions, BlobServiceClient } from "@azure/storage-blob";
import { expectError, readAll } from "../jskit/storage.mjs";

const connectionString = process.env.CERULEAN_CONNECTION_STRING;

function service() {
  assert.ok(connectionString, "CERULEAN_CONNECTION_STRING must be set");
  return BlobServiceClient.fromConnectionString(connectionString);
}

async function newContainer(name) {
  const container = service().getContainerClient(name);
  await container.create();
  return container;
}

// Azure Storage's CRC-64 (NVMe's polynomial, reflected), little endian, as
// the x-ms-content-crc64 header carries it.
const crcTable = (() => {
  const poly = 0x9a6c9329ac4bc9b5n;
  const table = [];
  for (let i = 0n; i < 256n; i++) {
    let crc = i;
    for (let k = 0; k < 8; k++) crc = crc & 1n ? (crc >> 1n) ^ poly : crc >> 1n;
    table.push(crc);
  }
  return table;
})();

function crc64(data) {
  const mask = 0xffffffffffffffffn;
  let crc = mask;
  for (const b of data) crc = crcTable[Number((crc ^ BigInt(b)) & 0xffn)] ^ (crc >> 8n);
  crc ^= mask;
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(crc);
  return new Uint8Array(out);
}

test("batch delete at account scope, one sub-request failing", async () => {
  const svc = service();
  const container = await newContainer("jsbatchdel");
  const names = ["one", "two/deep", "three"];
  for (const n of names) await container.getBlockBlobClient(n).upload(n, n.length);
  const clients = [...names, "never-there"].map((n) => container.getBlobClient(n));
  const resp = await svc.getBlobBatchClient().deleteBlobs(clients);
  assert.equal(resp._response.status, 202);
  assert.equal(resp.subResponsesSucceededCount, 3);
  assert.equal(resp.subResponsesFailedCount, 1);
  assert.equal(resp.subResponses.length, 4);
  for (let i = 0; i < 3; i++) assert.equal(resp.subResponses[i].status, 202, `sub-response ${i}`);
  assert.equal(resp.subResponses[3].status, 404);
  assert.equal(resp.subResponses[3].errorCode, "BlobNotFound");
  const ids = new Set(resp.subResponses.map((s) => s.headers.get("x-ms-request-id")));
  assert.equal(ids.size, 4, "each sub-response has its own request id");
  const left = [];
  for await (const b of container.listBlobsFlat()) left.push(b.name);
  assert.deepEqual(left, []);
});

test("batch set tier at container scope", async () => {
  const container = await newContainer("jsbatchtier");
  for (const n of ["a", "b"]) await container.getBlockBlobClient(n).upload(n, 1);
  const clients = ["a", "b"].map((n) => container.getBlobClient(n));
  const resp = await container.getBlobBatchClient().setBlobsAccessTier(clients, "Cool");
  assert.equal(resp.subResponsesSucceededCount, 2);
  assert.equal(resp.subResponsesFailedCount, 0);
  for (const c of clients) assert.equal((await c.getProperties()).accessTier, "Cool");
});

test("tags on upload and set, Find Blobs by Tags in account and container", async () => {
  const svc = service();
  const container = await newContainer("jstags");
  const gold = container.getBlockBlobClient("gold");
  await gold.upload("g", 1, { tags: { project: "cerulean", level: "gold" } });
  const silver = container.getBlockBlobClient("silver");
  await silver.upload("s", 1);
  await silver.setTags({ project: "cerulean", level: "silver" });
  assert.deepEqual((await silver.getTags()).tags, { project: "cerulean", level: "silver" });
  assert.equal((await gold.getProperties()).tagCount, 2);

  const found = [];
  for await (const b of svc.findBlobsByTags("project='cerulean' AND level>='gold'")) {
    found.push(`${b.containerName}/${b.name}`);
  }
  assert.deepEqual(found.sort(), ["jstags/gold", "jstags/silver"]);
  const inContainer = [];
  for await (const b of container.findBlobsByTags("level='silver'")) inContainer.push(b.name);
  assert.deepEqual(inContainer, ["silver"]);
});

test("a sealed append blob refuses appends", async () => {
  const container = await newContainer("jsseal");
  const blob = container.getAppendBlobClient("log");
  await blob.create();
  await blob.appendBlock("first", 5);
  await blob.seal();
  assert.equal((await blob.getProperties()).isSealed, true);
  await expectError(blob.appendBlock("more", 4), 409, "BlobIsSealed");
  assert.equal((await readAll((await blob.download()).readableStreamBody)).toString(), "first");
});

test("transactional MD5 and CRC64 checked and echoed", async () => {
  const container = await newContainer("jschecksum");
  const data = randomBytes(4096);
  const md5 = new Uint8Array(createHash("md5").update(data).digest());

  const blob = container.getBlockBlobClient("put");
  const put = await blob.upload(data, data.length, { transactionalContentMD5: md5 });
  assert.deepEqual(new Uint8Array(put.contentMD5), md5);
  const wrongMD5 = new Uint8Array(md5);
  wrongMD5[0] ^= 1;
  await expectError(blob.upload(data, data.length, { transactionalContentMD5: wrongMD5 }), 400, "Md5Mismatch");

  const crc = crc64(data);
  const blocks = container.getBlockBlobClient("blocks");
  const id = Buffer.from("block-0").toString("base64");
  const staged = await blocks.stageBlock(id, data, data.length, { transactionalContentCrc64: crc });
  assert.deepEqual(new Uint8Array(staged.xMsContentCrc64), crc);
  const wrongCRC = new Uint8Array(crc);
  wrongCRC[7] ^= 1;
  await expectError(blocks.stageBlock(id, data, data.length, { transactionalContentCrc64: wrongCRC }), 400, "Crc64Mismatch");

  const log = container.getAppendBlobClient("log");
  await log.create();
  const appended = await log.appendBlock(data, data.length, { transactionalContentCrc64: crc });
  assert.deepEqual(new Uint8Array(appended.xMsContentCrc64), crc);
  await expectError(log.appendBlock(data, data.length, { transactionalContentCrc64: wrongCRC }), 400, "Crc64Mismatch");
});

test("SAS response-header overrides reach the response", async () => {
  const container = await newContainer("jssas");
  const blob = container.getBlockBlobClient("doc");
  await blob.upload("body", 4, { blobHTTPHeaders: { blobContentType: "application/x-stored" } });
  const url = await blob.generateSasUrl({
    permissions: BlobSASPermissions.parse("r"),
    expiresOn: new Date(Date.now() + 3600 * 1000),
    cacheControl: "no-cache",
    contentDisposition: "attachment; filename=doc.txt",
    contentEncoding: "identity",
    contentLanguage: "de",
    contentType: "text/plain",
  });
  const viaSAS = new BlobClient(url);
  for (const resp of [await viaSAS.getProperties(), await viaSAS.download()]) {
    assert.equal(resp.cacheControl, "no-cache");
    assert.equal(resp.contentDisposition, "attachment; filename=doc.txt");
    assert.equal(resp.contentEncoding, "identity");
    assert.equal(resp.contentLanguage, "de");
    assert.equal(resp.contentType, "text/plain");
  }
  assert.equal((await blob.getProperties()).contentType, "application/x-stored");
});
