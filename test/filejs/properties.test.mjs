// Azure Files behaviours driven through @azure/storage-file-share with the
// values its options take: "inherit", "now" and "preserve" for SMB
// properties, both permission formats, permission keys, case-insensitive
// names, and share soft delete. The connection string comes from
// CERULEAN_CONNECTION_STRING; js_test.go starts the server keeping
// deleted shares 7 days.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { FileSystemAttributes, ShareServiceClient } from "@azure/storage-file-share";
import { expectError, readAll } from "../jskit/storage.mjs";

const connectionString = process.env.CERULEAN_CONNECTION_STRING;

function service() {
  assert.ok(connectionString, "CERULEAN_CONNECTION_STRING must be set");
  return ShareServiceClient.fromConnectionString(connectionString);
}

// An owner, a group and a DACL, as a permission must have.
const sddl = "O:SYG:SYD:(A;;FA;;;SY)(A;;FA;;;BA)";

test("defaults after create, and properties set with inherit, now and preserve", async () => {
  const share = service().getShareClient("jsprops");
  await share.create();
  const dir = share.getDirectoryClient("d");
  const file = dir.getFileClient("f.txt");

  // What Azure reports for a create that names no SMB property: Archive
  // for a file, Directory for a directory, and one time for creation,
  // last write and change (the Go SDK recording
  // TestFileCreateNonDefaultHTTPHeaders, the Python recording
  // test_create_file, the Go recording
  // TestDirCreateDeleteNegativeMultiLevelDir).
  const d = await dir.create();
  assert.equal(d.fileAttributes, "Directory");
  assert.ok(d.filePermissionKey);
  const c = await file.create(16);
  assert.equal(c.fileAttributes, "Archive");
  assert.equal(c.fileCreatedOn.getTime(), c.fileLastWriteOn.getTime());
  assert.equal(c.fileChangeOn.getTime(), c.fileCreatedOn.getTime());

  // The same create with the values the SDK's options spell out.
  const spelled = dir.getFileClient("spelled.txt");
  const s = await spelled.create(0, {
    filePermission: "inherit",
    creationTime: "now",
    lastWriteTime: "now",
    changeTime: "now",
  });
  assert.equal(s.fileAttributes, "Archive");
  // Files created alike share a permission, so one key (the Python
  // recording test_list_subdirectories_and_files).
  assert.equal(s.filePermissionKey, c.filePermissionKey);
  const sd = await share.getDirectoryClient("spelled").create({ filePermission: "inherit", creationTime: "now", lastWriteTime: "now" });
  assert.equal(sd.fileAttributes, "Directory");

  // Attributes and times set explicitly, then preserved one by one.
  const hidden = new FileSystemAttributes();
  hidden.hidden = true;
  const created = new Date("2021-05-06T07:08:09.123Z");
  const set = await file.setProperties({ fileAttributes: hidden, creationTime: created });
  assert.equal(set.fileAttributes, "Hidden");
  assert.equal(set.fileCreatedOn.getTime(), created.getTime());
  assert.equal(set.fileLastWriteOn.getTime(), c.fileLastWriteOn.getTime());

  await sleep(20);
  const kept = await file.setProperties({
    fileAttributes: "preserve",
    creationTime: "preserve",
    lastWriteTime: "preserve",
    filePermission: "preserve",
  });
  assert.equal(kept.fileAttributes, "Hidden");
  assert.equal(kept.fileCreatedOn.getTime(), created.getTime());
  assert.equal(kept.fileLastWriteOn.getTime(), c.fileLastWriteOn.getTime());
  assert.equal(kept.filePermissionKey, c.filePermissionKey);
  assert.ok(kept.fileChangeOn.getTime() > set.fileChangeOn.getTime(), "a change to a file's properties moves its change time");

  await sleep(20);
  const now = await file.setProperties({ lastWriteTime: "now", changeTime: "now" });
  assert.ok(now.fileLastWriteOn.getTime() > c.fileLastWriteOn.getTime(), "lastWriteTime now takes the request's time");
  assert.equal(now.fileAttributes, "Hidden");
  assert.equal(now.fileCreatedOn.getTime(), created.getTime());

  // setHttpHeaders and resize keep every SMB property.
  await file.setHttpHeaders({ fileContentType: "text/plain" });
  await file.resize(32);
  const props = await file.getProperties();
  assert.equal(props.fileAttributes, "Hidden");
  assert.equal(props.contentType, "text/plain");
  assert.equal(props.contentLength, 32);
  assert.equal(props.fileCreatedOn.getTime(), created.getTime());
  assert.equal(props.fileLastWriteOn.getTime(), now.fileLastWriteOn.getTime());

  // A directory takes the same values; Directory stays among its
  // attributes (the Go recording TestDirSetPropertiesFilePermissionFormat).
  const dset = await dir.setProperties({ fileAttributes: "preserve", creationTime: "preserve", lastWriteTime: "preserve", filePermission: "preserve" });
  assert.equal(dset.fileAttributes, "Directory");
  assert.equal(dset.fileCreatedOn.getTime(), d.fileCreatedOn.getTime());
  const dhidden = await dir.setProperties({ fileAttributes: hidden });
  assert.equal(dhidden.fileAttributes, "Hidden | Directory");

  await expectError(file.setProperties({ creationTime: "yesterday" }), 400, "InvalidHeaderValue");
  await share.delete({ deleteSnapshots: "include" });
});

test("permissions by key and in both formats", async () => {
  const share = service().getShareClient("jsperms");
  await share.create();
  const root = share.rootDirectoryClient;
  const { filePermissionKey: key } = await share.createPermission(sddl);
  assert.ok(key);
  // Read back with Azure's explicit null SACL (test_create_permission_for_share).
  assert.equal((await share.getPermission(key)).permission, sddl + "S:NO_ACCESS_CONTROL");

  const byKey = root.getFileClient("bykey");
  const k = await byKey.create(0, { filePermissionKey: key });
  assert.equal(k.filePermissionKey, key);
  const plain = root.getFileClient("plain");
  await plain.create(0);
  const moved = await plain.setProperties({ filePermissionKey: key });
  assert.equal(moved.filePermissionKey, key);

  // Get Permission in the binary format gives a self-relative security
  // descriptor in base64, which a create takes back with the format named.
  const bin = await share.getPermission(key, { filePermissionFormat: "Binary" });
  assert.equal(bin.format, "binary"); // as Azure writes it (test_get_permission_format)
  assert.match(bin.permission, /^[A-Za-z0-9+/]+=*$/);
  const fromBinary = root.getFileClient("frombinary");
  const b = await fromBinary.create(0, { filePermission: bin.permission, filePermissionFormat: "Binary" });
  assert.equal((await share.getPermission(b.filePermissionKey)).permission, sddl + "S:NO_ACCESS_CONTROL");
  const inline = root.getFileClient("inline");
  const i = await inline.create(0, { filePermission: sddl, filePermissionFormat: "Sddl" });
  assert.equal(i.filePermissionKey, key);
  const dir = root.getDirectoryClient("sd");
  const ds = await dir.create({ filePermission: bin.permission, filePermissionFormat: "Binary" });
  assert.equal(ds.filePermissionKey, key);

  await expectError(root.getFileClient("badkey").create(0, { filePermissionKey: "1*2" }), 400, "FileInvalidPermissionKey");
  await share.delete();
});

test("names are case-insensitive and case-preserving", async () => {
  const share = service().getShareClient("jscase");
  await share.create();
  const docs = share.getDirectoryClient("Docs");
  await docs.create();
  const readme = docs.getFileClient("Readme.TXT");
  const body = Buffer.from("read me");
  const c = await readme.create(body.length);
  await readme.uploadRange(body, 0, body.length);

  const upper = share.getDirectoryClient("DOCS").getFileClient("README.txt");
  assert.equal((await upper.getProperties()).fileId, c.fileId);
  assert.ok(body.equals(await readAll((await upper.download()).readableStreamBody)));
  await expectError(share.getDirectoryClient("docs").create(), 409, "ResourceAlreadyExists");
  // Over a file, a directory meets another type of resource, as Azure
  // answered microsoft/vscode-azurestorage issue 848's Create Directory.
  await expectError(share.getDirectoryClient("docs/readme.txt").create(), 409, "ResourceTypeMismatch");

  const names = [];
  for await (const item of share.getDirectoryClient("dOcS").listFilesAndDirectories()) names.push(item.name);
  assert.deepEqual(names, ["Readme.TXT"]);
  const prefixed = [];
  for await (const item of share.rootDirectoryClient.listFilesAndDirectories({ prefix: "doc" })) prefixed.push(item.name);
  assert.deepEqual(prefixed, ["Docs"]);
  await share.delete();
});

test("share soft delete: include deleted in listings, undelete", async () => {
  const svc = service();
  const share = svc.getShareClient("jssoft");
  await share.create({ metadata: { kept: "yes" } });
  const file = share.rootDirectoryClient.getFileClient("f");
  const body = Buffer.from("soft");
  await file.create(body.length);
  await file.uploadRange(body, 0, body.length);
  await share.delete();
  await expectError(share.getProperties(), 404, "ShareNotFound");

  const live = [];
  for await (const s of svc.listShares({ prefix: "jssoft" })) live.push(s.name);
  assert.deepEqual(live, []);
  const listed = [];
  for await (const s of svc.listShares({ prefix: "jssoft", includeDeleted: true, includeMetadata: true })) listed.push(s);
  assert.equal(listed.length, 1);
  const [deleted] = listed;
  assert.equal(deleted.deleted, true);
  assert.ok(deleted.version);
  assert.ok(deleted.properties.deletedTime instanceof Date);
  assert.equal(deleted.properties.remainingRetentionDays, 7);

  await expectError(svc.undeleteShare("jssoft", "01D60F8BB59A4652"), 404, "ShareNotFound");
  const restored = await svc.undeleteShare("jssoft", deleted.version);
  assert.deepEqual((await restored.getProperties()).metadata, { kept: "yes" });
  assert.ok(body.equals(await readAll((await file.download()).readableStreamBody)));
  await share.delete();
});
