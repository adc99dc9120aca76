// An end-to-end Azure Files flow through @azure/storage-file-share: share,
// directory, a file written in several ranges, listing, download, metadata,
// a file lease that guards writes, and deletes. The connection string comes
// from CERULEAN_CONNECTION_STRING (js_test.go starts a server and sets it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { ShareServiceClient } from "@azure/storage-file-share";
import { expectError, readAll } from "../jskit/storage.mjs";

const connectionString = process.env.CERULEAN_CONNECTION_STRING;

test("share, directory, ranged file, listing, metadata, lease, delete", async () => {
  assert.ok(connectionString, "CERULEAN_CONNECTION_STRING must be set");
  const service = ShareServiceClient.fromConnectionString(connectionString);
  const share = service.getShareClient("jsflow");
  await share.create({ quota: 5, metadata: { owner: "js" } });
  const shareProps = await share.getProperties();
  assert.equal(shareProps.quota, 5);
  assert.deepEqual(shareProps.metadata, { owner: "js" });
  await expectError(share.create(), 409, "ShareAlreadyExists");

  const dir = share.getDirectoryClient("docs");
  await dir.create({ metadata: { kind: "folder" } });
  assert.deepEqual((await dir.getProperties()).metadata, { kind: "folder" });

  // A file written range by range, out of order, with a hole in the middle
  // that reads back as zeros.
  const size = 3 * 1024 * 1024 + 17;
  const want = Buffer.alloc(size);
  const file = dir.getFileClient("data.bin");
  await file.create(size, { fileHttpHeaders: { fileContentType: "application/octet-stream" } });
  const ranges = [
    [2 * 1024 * 1024, 1024 * 1024 + 17],
    [0, 512 * 1024],
    [1024 * 1024, 256 * 1024],
  ];
  for (const [offset, count] of ranges) {
    const chunk = randomBytes(count);
    chunk.copy(want, offset);
    await file.uploadRange(chunk, offset, count);
  }
  const { rangeList } = await file.getRangeList();
  assert.deepEqual(
    rangeList.map((r) => [r.start, r.end]),
    [
      [0, 512 * 1024 - 1],
      [1024 * 1024, 1024 * 1024 + 256 * 1024 - 1],
      [2 * 1024 * 1024, size - 1],
    ],
  );
  const whole = await file.download();
  assert.equal(whole.contentLength, size);
  assert.ok(want.equals(await readAll(whole.readableStreamBody)), "downloaded bytes differ from the ranges written");
  const part = await file.download(1024 * 1024 - 10, 30);
  assert.ok(want.subarray(1024 * 1024 - 10, 1024 * 1024 + 20).equals(await readAll(part.readableStreamBody)));
  assert.ok(want.equals(await file.downloadToBuffer(undefined, undefined, { rangeSize: 1024 * 1024 })));

  // uploadData: the SDK's helper creates the file and writes it in
  // parallel ranges.
  const small = dir.getFileClient("small.txt");
  const text = Buffer.from("hello from the JavaScript SDK\n".repeat(5000));
  await small.uploadData(text, { rangeSize: 64 * 1024, concurrency: 4 });
  assert.ok(text.equals(await small.downloadToBuffer()));

  const listed = [];
  for await (const item of dir.listFilesAndDirectories()) listed.push([item.kind, item.name]);
  assert.deepEqual(listed.sort(), [
    ["file", "data.bin"],
    ["file", "small.txt"],
  ]);
  const root = [];
  for await (const item of share.rootDirectoryClient.listFilesAndDirectories()) root.push([item.kind, item.name]);
  assert.deepEqual(root, [["directory", "docs"]]);
  const shares = [];
  for await (const s of service.listShares({ prefix: "js", includeMetadata: true })) shares.push([s.name, s.metadata]);
  assert.deepEqual(shares, [["jsflow", { owner: "js" }]]);

  await file.setMetadata({ color: "blue", n: "1" });
  const props = await file.getProperties();
  assert.deepEqual(props.metadata, { color: "blue", n: "1" });
  assert.equal(props.contentLength, size);
  assert.equal(props.contentType, "application/octet-stream");
  assert.equal(props.leaseState, "available");

  // A lease: writes without its ID are refused, writes with it succeed.
  const lease = file.getShareLeaseClient();
  const { leaseId } = await lease.acquireLease();
  assert.equal(leaseId, lease.leaseId);
  const leased = await file.getProperties();
  assert.equal(leased.leaseState, "leased");
  assert.equal(leased.leaseStatus, "locked");
  assert.equal(leased.leaseDuration, "infinite");
  const patch = Buffer.from("leased write");
  await expectError(file.uploadRange(patch, 0, patch.length), 412, "LeaseIdMissing");
  await expectError(file.setMetadata({ color: "red" }), 412, "LeaseIdMissing");
  await expectError(file.delete(), 412, "LeaseIdMissing");
  await file.uploadRange(patch, 0, patch.length, { leaseAccessConditions: { leaseId } });
  patch.copy(want, 0);
  const afterLease = await file.download(0, 64);
  assert.ok(want.subarray(0, 64).equals(await readAll(afterLease.readableStreamBody)));
  await lease.releaseLease();
  assert.equal((await file.getProperties()).leaseState, "available");
  await file.setMetadata({ color: "red" });

  await expectError(dir.delete(), 409, "DirectoryNotEmpty");
  await file.delete();
  await small.delete();
  await expectError(file.getProperties(), 404, "ResourceNotFound");
  await dir.delete();
  await share.delete();
  await expectError(share.getProperties(), 404, "ShareNotFound");
});
